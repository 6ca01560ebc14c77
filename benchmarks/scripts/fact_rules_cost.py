"""What the fact rules cost per message (issue 47): ``remem.facts.extract.statements_of`` run
over every distinct text in ``benchmarks/data`` (corpus lines, queries, the capture set's
lines) and LoCoMo's turns (``--locomo``, when the file is there), each as a user's message.

Reported: thread CPU-µs per message (mean, p50, p95), for all messages and split by those
that yield a statement and those that yield none, over ``--rounds`` timed passes after one
untimed pass (the rules compile on first use); with ``--profile``, which rules' patterns cost
most (CPU-µs spent in each rule's ``finditer``, summed over one pass).

Identity: ``--dump PATH`` writes every text's complete output (every statement, all fields;
and each conversation's ``statements_of_conversation``) as JSON lines, and the result records
its sha256: two runs of different code read the same iff the digests are equal.

    python benchmarks/scripts/fact_rules_cost.py --rounds 3 --profile --dump /tmp/facts.jsonl \\
        --out benchmarks/results/fact-rules-cost.json
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import statistics
import time
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from remem.facts import extract
from remem.facts.rule import Rule
from remem.types import Record
from remem_bench import DATA_DIR, RESULTS_DIR

LOCOMO = Path("/work/shared/bench/locomo/corpus.jsonl")
_FIELDS = ("text", "query", "question")


def _jsonl_texts(path: Path) -> Iterator[tuple[str, str | None]]:
    """(text, conversation) of each line's text fields."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        for name in _FIELDS:
            if isinstance(row.get(name), str):
                yield row[name], f"{path.parent.name}:{row.get('conversation')}"


def texts_of(locomo: Path | None) -> tuple[list[str], dict[str, list[str]]]:
    """The distinct texts, in a stable order, and each corpus conversation's turns in order."""
    seen: dict[str, None] = {}
    conversations: dict[str, list[str]] = defaultdict(list)
    files = sorted(DATA_DIR.rglob("*.jsonl"))
    if locomo is not None and locomo.exists():
        files.append(locomo)
    for path in files:
        for text, conversation in _jsonl_texts(path):
            seen.setdefault(text, None)
            if path.name == "corpus.jsonl" and conversation is not None:
                conversations[conversation].append(text)
    for path in sorted((DATA_DIR / "capture_set").glob("*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split(" | ")
            if not line.startswith("#") and len(parts) >= 3:
                seen.setdefault(parts[2].strip(), None)
    return list(seen), dict(conversations)


def _record(text: str, n: int) -> Record:
    return Record(
        id=f"r{n}",
        kind="message",
        text=text,
        role="user",
        speaker_id="u1",
        speaker_label="Sam",
        created_at=1_767_225_600.0 + 60 * n,
    )


def _row(statements: list[Any]) -> list[dict[str, Any]]:
    return [dataclasses.asdict(s) for s in statements]


def dump(path: Path, texts: list[str], conversations: dict[str, list[str]]) -> str:
    """Write every output as JSON lines; the file's sha256."""
    with path.open("w", encoding="utf-8") as out:
        for n, text in enumerate(texts):
            found = _row(extract.statements_of(_record(text, n)))
            out.write(json.dumps({"text": text, "statements": found}, ensure_ascii=False) + "\n")
        for name, turns in sorted(conversations.items()):
            records = [_record(t, n) for n, t in enumerate(turns)]
            found = _row(extract.statements_of_conversation(records))
            out.write(json.dumps({"conversation": name, "statements": found}) + "\n")
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    return {
        "n": len(values),
        "mean_us": round(statistics.fmean(values), 1),
        "p50_us": round(ordered[len(ordered) // 2], 1),
        "p95_us": round(ordered[int(len(ordered) * 0.95)], 1),
    }


def timed(texts: list[str], rounds: int) -> dict[str, Any]:
    """Thread CPU-µs per message, the best of ``rounds`` passes per message."""
    records = [_record(t, n) for n, t in enumerate(texts)]
    yields = [bool(extract.statements_of(r)) for r in records]  # warm: rules compiled
    best = [float("inf")] * len(records)
    for _ in range(rounds):
        for i, record in enumerate(records):
            start = time.thread_time_ns()
            extract.statements_of(record)
            best[i] = min(best[i], (time.thread_time_ns() - start) / 1000)
    return {
        "all": _summary(best),
        "yield_a_statement": _summary([b for b, y in zip(best, yields, strict=True) if y]),
        "yield_none": _summary([b for b, y in zip(best, yields, strict=True) if not y]),
        "total_cpu_s_per_pass": round(sum(best) / 1e6, 3),
    }


class _TimedPattern:
    """A compiled pattern whose ``finditer`` adds its CPU time to its rule's total."""

    def __init__(self, pattern: Any, totals: dict[str, float], key: str) -> None:
        self._pattern, self._totals, self._key = pattern, totals, key

    def finditer(self, text: str) -> Iterator[Any]:
        start = time.thread_time_ns()
        found = list(self._pattern.finditer(text))
        self._totals[self._key] += (time.thread_time_ns() - start) / 1000
        return iter(found)


def profile(texts: list[str], top: int) -> list[dict[str, Any]]:
    """The rules whose patterns cost most over one pass (CPU-µs in ``finditer``)."""
    totals: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    original = Rule.pattern

    def pattern(rule: Rule) -> Any:
        key = f"{rule.attribute} {rule.source[:40]} ... {rule.source[-40:]}"
        calls[key] += 1
        return _TimedPattern(original.fget(rule), totals, key)  # type: ignore[attr-defined]

    Rule.pattern = property(pattern)  # type: ignore[assignment,method-assign]
    try:
        for n, text in enumerate(texts):
            extract.statements_of(_record(text, n))
    finally:
        Rule.pattern = original  # type: ignore[method-assign]
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])[:top]
    return [
        {"rule": key, "cpu_us_total": round(us), "runs": calls[key], "us_per_run": us / calls[key]}
        for key, us in ranked
    ]


_PARTS = {  # what runs per message on the facts path, by the function that does it
    "rules (extract.statements_of)": "statements_of",
    "FactService.context": "context",
    "FactService._learn_people": "_learn_people",
    "  of which the lines before a he/she (antecedent_after)": "antecedent_after",
    "pronoun / bare-answer checks": ("has_pronoun", "opens_with_value"),
    "store reads (facts citing, previous lines)": ("facts_citing", "previous_texts"),
    "facts re-folded and written (FactService._replace)": "_replace",
    "the store's transaction (begin, commit)": "transaction",
}


def service(turns: list[tuple[str, str]], batch: int) -> dict[str, Any]:
    """``FactService.update_each_quietly`` (the facts fill's call) over a real SQLite store
    holding these (conversation, text) turns, ``batch`` records a call: CPU-µs per record,
    and each part's share of it (cProfile's cumulative time, so the shares carry its
    overhead alike)."""
    import cProfile
    import pstats
    import tempfile

    from remem.facts.service import FactService
    from remem.store.sqlite import SQLiteStore

    with tempfile.TemporaryDirectory() as work:
        store = SQLiteStore(Path(work) / "facts.db")
        rows = [
            (
                {
                    "id": f"m{n}",
                    "kind": "message",
                    "text": text,
                    "role": "user",
                    "scope": "global",
                    "session": conversation,
                    "speaker_id": f"u{n % 2}",
                    "speaker_label": ("Sam", "Kim")[n % 2],
                    "created_at": 1.7e9 + 60 * n,
                    "content_hash": f"h{n}",
                    "importance": 0.5,
                },
                text,
                "",
            )
            for n, (conversation, text) in enumerate(turns)
        ]
        rowids = [r for r in store.insert_records(rows) if r is not None]
        records = list(store.get_by_rowids(rowids).values())
        facts = FactService(store)
        facts.update_each_quietly(records[:batch])  # warm: rules compiled, people read
        profiler = cProfile.Profile()
        profiler.enable()
        facts.update_each_quietly(records[batch : 2 * batch])
        profiler.disable()
        start = time.thread_time_ns()
        for at in range(2 * batch, len(records), batch):
            facts.update_each_quietly(records[at : at + batch])
        plain_us = (time.thread_time_ns() - start) / 1000 / max(1, len(records) - 2 * batch)
        store.close()
    stats = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = max(v[3] for k, v in stats.items() if k[2] == "update_each_quietly")
    shares: dict[str, float] = {}
    for part, names in _PARTS.items():
        wanted = (names,) if isinstance(names, str) else names
        shares[part] = round(sum(v[3] for k, v in stats.items() if k[2] in wanted) / total, 3)
    calls = sum(v[1] for k, v in stats.items() if k[2] == "statements_of")
    shares["statements_of calls per record"] = round(calls / batch, 2)
    return {"records": len(records) - 2 * batch, "cpu_us_per_record": round(plain_us, 1), **shares}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="which rules cost most")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--dump", type=Path, help="write every output here (identity check)")
    parser.add_argument("--no-locomo", action="store_true")
    parser.add_argument("--label", default="")
    parser.add_argument(
        "--service", type=int, default=0, help="also FactService.update over N corpus turns"
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    texts, conversations = texts_of(None if args.no_locomo else LOCOMO)
    result: dict[str, Any] = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M"),
        "label": args.label,
        "load_before": os.getloadavg(),
        "texts": len(texts),
        "conversations": len(conversations),
        "cpu_per_message": timed(texts, args.rounds),
    }
    if args.profile:
        result["costliest_rules"] = profile(texts, args.top)
    if args.service:
        turns = [(c, t) for c, ts in sorted(conversations.items()) for t in ts][: args.service]
        result["fact_service_update"] = service(turns, 256)
    if args.dump:
        result["output_sha256"] = dump(args.dump, texts, conversations)
    result["load_after"] = os.getloadavg()
    print(json.dumps(result, ensure_ascii=False, indent=1))
    if args.out:  # a run is added to the file's runs (before / after pairs side by side)
        out = args.out if args.out.is_absolute() else RESULTS_DIR / args.out.name
        kept = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {"runs": []}
        kept["what"] = __doc__.splitlines()[0]
        kept["runs"].append(result)
        out.write_text(json.dumps(kept, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
