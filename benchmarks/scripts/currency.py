"""The currency stage (search/currency.py) measured: rank of the first gold record per
question, with the stage and without it (``disable=("currency",)``), per category.

    PYTHONPATH=src:benchmarks python benchmarks/scripts/currency.py

writes ``benchmarks/results/currency.json`` (then ``python -m remem_bench.report >
docs/benchmarks.md``). Datasets: changed_facts (the development set), changed_facts_heldout
(reported, never tuned on), zh_groupchat (every category: "update" is the one this is for, the
others must not drop) and LongMemEval oracle's knowledge-update questions (``--lme-limit``
caps them; 0 leaves LongMemEval out). Each conversation is its own in-memory store with the
bundled model; its facts are those the facts service derives (``Memory.rebuild_facts``). Run
it again after the extractor or the stage changes: the figures are only as good as the facts.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from remem import Config, Memory
from remem.embed.local import E5Embedder
from remem.facts.extract import ExtractionContext, statements_of_conversation
from remem.facts.fold import fold
from remem.facts.model import THING_FAMILIES, Statement, name_subject, thing_subject
from remem.facts.subjects import people_of, relative_subject, resolve_name
from remem.ops import store_latent_terms
from remem.store.memory import InMemoryStore
from remem.types import Record
from remem_bench import RESULTS_DIR
from remem_bench.benchmark import (
    apply_overrides,
    by_conversation,
    load_dataset,
    score_query,
    turn_fields,
)
from remem_bench.suite import is_unanswerable

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "benchmarks" / "data"
SHARED = REPO.parent / "shared" / "bench"
DEPTH = 50  # how deep a gold record's rank is looked for
# name -> (stages disabled, settings): the defaults, the stage off, and the stage with a lead
# without reading which chain the question asks for (scoring.currency_ask off)
VARIANTS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "with": ((), {}),
    "without": (("currency",), {}),
    "no-ask": ((), {"scoring.currency_ask": False}),
}


def put_facts(mem: Memory, oracle: dict[str, list[dict[str, Any]]] | None = None) -> int:
    """The conversation's facts as the product keeps them: the facts service derives them
    again from every record (``Memory.rebuild_facts``, what indexing keeps current). With
    ``oracle`` (record id -> gold statements, ``data/changed_facts/facts.jsonl``) a ceiling:
    every annotated line states exactly its gold statements, the others what the rules read."""
    if oracle is None:
        return mem.rebuild_facts().facts
    records = list(mem.store.iter_records())
    people = people_of(records)
    found = [
        s
        for s in statements_of_conversation(records, ExtractionContext(people=people))
        if s.record_id not in oracle
    ]
    for record in records:
        for gold in oracle.get(record.id, []):
            found.append(gold_statement(record, gold, people))
    facts = fold(found)
    with mem.store.transaction():
        mem.store.clear_facts()
        mem.store.put_facts(facts)
    return len(facts)


def gold_statement(record: Record, gold: dict[str, Any], people: dict[str, str]) -> Statement:
    """A gold statement of a line as the extractor would have made it (said when the line was)."""
    speaker = name_subject(record.speaker_label or "")
    who = gold["subject"]
    if gold["attribute"] in THING_FAMILIES:  # a thing, a group or a role
        subject, name = thing_subject(who), who
    elif who == "speaker":
        subject, name = speaker, record.speaker_label or ""
    elif who.startswith("speaker's "):
        relation = who.removeprefix("speaker's ")
        subject, name = relative_subject(speaker, relation), who
    else:
        subject, name = resolve_name(who, people), who
    return Statement(
        record_id=record.id,
        scope=record.scope,
        subject=subject,
        subject_name=name,
        attribute=gold["attribute"],
        value=gold["value"],
        said_at=record.created_at,
        valid_from=record.event_time or record.created_at,
        polarity=gold["polarity"],
    )


def read_gold(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Record id -> its gold statements (a set's ``facts.jsonl``)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return {row["id"]: row["facts"] for row in rows}


def first_gold_rank(ids: list[str], gold: list[str]) -> int | None:
    wanted = set(gold)
    return next((i for i, rid in enumerate(ids, start=1) if rid in wanted), None)


def run_dataset(
    path: Path,
    embedder: E5Embedder,
    *,
    categories: set[str] | None = None,
    limit: int = 0,
    oracle: bool = False,
) -> dict[str, Any]:
    corpus, queries = load_dataset(path)
    if categories:
        queries = [q for q in queries if q.get("category") in categories]
    if limit:
        queries = queries[:limit]
    turns, asked = by_conversation(corpus, queries)
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in VARIANTS}
    facts = 0
    for conv, conv_queries in asked.items():
        config = Config.load(env={}, overrides={"indexing.mode": "sync"})
        with Memory(store=InMemoryStore(), config=config, embedder=embedder) as mem:
            mem.ingest_many(turn_fields(turns[conv]), on_conflict="skip", wait=True)
            mem.embed_pending()
            store_latent_terms(mem)
            gold = read_gold(path / "facts.jsonl") if oracle else None
            facts += put_facts(mem, gold)
            session_of = {t["id"]: t["session"] for t in turns[conv]}
            for q in conv_queries:
                for name, (disable, overrides) in VARIANTS.items():
                    saved = apply_overrides(mem.config, overrides)
                    try:
                        found = mem.search(q["query"], k=DEPTH, now=q["timestamp"], disable=disable)
                    finally:
                        apply_overrides(mem.config, saved)
                    hits = found.hits
                    ids = [h.record.id for h in hits]
                    row: dict[str, Any] = {"qid": q["qid"], "category": q.get("category", "all")}
                    if is_unanswerable(q):
                        row["answered"] = bool(ids[:10])
                    else:
                        sessions = [session_of.get(i, "") for i in ids]
                        row.update(
                            score_query(ids, sessions, q["gold"], q.get("gold_sessions", []))
                        )
                        row["rank"] = first_gold_rank(ids, q["gold"])
                    rows[name].append(row)
    return {"facts": facts, **{name: summarise(r) for name, r in rows.items()}}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_cat: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_cat[row["category"]].append(row)
    out: dict[str, Any] = {}
    for cat, items in sorted(by_cat.items()):
        ranked = [r for r in items if "rank" in r]
        if not ranked:  # unanswerable: how often anything is returned in the top 10
            out[cat] = {"n": len(items), "answered": mean([r["answered"] for r in items])}
            continue
        ranks = [r["rank"] for r in ranked]
        out[cat] = {
            "n": len(ranked),
            "rank1": mean([r == 1 for r in ranks]),
            "top3": mean([r is not None and r <= 3 for r in ranks]),
            "recall@10": mean([r["recall@10"] for r in ranked]),
            "mrr": mean([r["mrr"] for r in ranked]),
        }
    return out


def mean(values: list[Any]) -> float:
    return round(sum(float(v) for v in values) / len(values), 4) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lme-limit", type=int, default=72, help="LongMemEval KU questions")
    parser.add_argument("--datasets", default="changed_facts,changed_facts_heldout,zh_groupchat")
    parser.add_argument("--out", default=str(RESULTS_DIR / "currency.json"))
    parser.add_argument("--note", default="", help="what the run's facts came from")
    parser.add_argument(
        "--oracle",
        action="store_true",
        help="the ceiling: annotated lines state their gold facts (sets with a facts.jsonl)",
    )
    args = parser.parse_args()
    embedder = E5Embedder()
    results: dict[str, Any] = {}
    start = time.time()

    def write() -> None:  # after every dataset: a run cut short keeps what it measured
        payload = {
            "script": "benchmarks/scripts/currency.py",
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "note": args.note or "facts from the extractor as it is on the branch",
            "machine": "2 cores shared with other jobs: timings mean little",
            "seconds": round(time.time() - start, 1),
            "datasets": results,
        }
        Path(args.out).write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")

    for name in [d for d in args.datasets.split(",") if d]:
        # this package's sets, else the shared benchmark folder's (locomo)
        folder = DATA / name if (DATA / name).is_dir() else SHARED / name
        oracle = args.oracle and (folder / "facts.jsonl").is_file()
        results[name] = run_dataset(folder, embedder, oracle=oracle)
        print(name, json.dumps(results[name], ensure_ascii=False), flush=True)
        write()
    lme = SHARED / "longmemeval_oracle"
    if args.lme_limit and (lme / "queries.jsonl").is_file():
        results["longmemeval_oracle_ku"] = run_dataset(
            lme, embedder, categories={"knowledge-update"}, limit=args.lme_limit
        )
        print("lme", json.dumps(results["longmemeval_oracle_ku"]), flush=True)
        write()


if __name__ == "__main__":
    main()
