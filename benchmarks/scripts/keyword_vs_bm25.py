"""remem's keyword channel against plain BM25 over the same tokens, per dataset and query
shape (issue 46): recall@5, recall@10 and MRR of

- ``bm25``: plain BM25 (``remem_bench.keyword_reference.PlainBM25``) over each record's
  indexed tokens, for the whole query's tokens: no pruning, no rewriting, no translation;
- ``lexical-channel``: the keyword channel's own ranking, before fusion and the scoring stages
  (what ``Searcher._lexical`` hands to fusion);
- ``lexical``: the whole pipeline with the keyword channel alone (``channels=("lexical",)``);
- ``vector``: the whole pipeline with the vector channel alone;
- ``hybrid``: the defaults.

Shapes (``keyword_reference.query_shapes``): all; single / dialogue / multi-line; short / long;
cjk / latin; each category. Unanswerable questions are left out (nothing to recall). Results
are merged into ``--out`` by dataset, so datasets can be run one at a time:

    PYTHONPATH=src:benchmarks python benchmarks/scripts/keyword_vs_bm25.py \
        --datasets dialogue_notes,mixed_script --out benchmarks/results/keyword-vs-bm25.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from suite_cli import add_suite_options, chosen_datasets, hybrid_run, progress_every, watch_fusion

from remem import query_vector
from remem.config import Config
from remem.search.chat_budget import ROLE_LABELS
from remem.text.dialogue import speaker_labels
from remem_bench.benchmark import apply_overrides, score_query
from remem_bench.context_gap import GapForm, install, remember_store
from remem_bench.keyword_reference import PlainBM25, query_shapes
from remem_bench.suite import SuiteRun, conversations, ingest, is_unanswerable

SYSTEMS = ("bm25", "lexical-channel", "lexical", "vector", "hybrid")
CHANNELS = {
    "lexical": ("lexical",),
    "vector": ("vector",),
    "hybrid": ("vector", "lexical"),
}
SHOWN = ("recall@5", "recall@10", "mrr")
# what each searcher last handed fusion (watch_fusion wraps a searcher once, with one callback)
_FUSED: dict[int, dict[str, list]] = {}


def ranked_ids(mem: Any, rowids: list[int]) -> list[str]:
    records = mem.store.get_by_rowids(rowids)
    return [records[r].id for r in rowids if r in records]


def ask(mem: Any, bm25: PlainBM25, q: dict, overrides: dict[str, Any]) -> dict[str, list[str]]:
    """The top 10 ids of every system for one question."""
    out: dict[str, list[str]] = {}
    phrase = mem.tokenizer.phrase_tokens(q["query"])
    out["bm25"] = ranked_ids(mem, bm25.top(phrase, 10))
    qvec = query_vector(mem, q["query"])
    seen = _FUSED.setdefault(id(mem.searcher), {})
    seen.clear()
    watch_fusion(mem.searcher, lambda vector, lexical: seen.update(lexical=lexical))
    saved = apply_overrides(mem.config, overrides)
    try:
        for name, channels in CHANNELS.items():
            result = mem.search(
                q["query"],
                k=10,
                now=q.get("timestamp"),
                query_vector=qvec if "vector" in channels else None,
                channels=channels,
            )
            out[name] = [h.record.id for h in result.hits]
    finally:
        apply_overrides(mem.config, saved)
    # the hybrid search handed fusion the keyword channel's own ranking
    out["lexical-channel"] = ranked_ids(mem, [r for r, _ in seen.get("lexical", [])[:10]])
    return out


def run_dataset(
    run: SuiteRun,
    dataset: Any,
    overrides: dict[str, Any],
    limit: int | None,
    gap: GapForm | None = None,
) -> dict[str, Any]:
    """Every answerable question of the dataset through every system, summed by shape."""
    from remem.engine import Memory

    rows: dict[str, dict[str, list[dict[str, float]]]] = defaultdict(lambda: defaultdict(list))
    convs = conversations(dataset.path, [], run.limit_conversations)
    total = sum(len(qs) for _, _, qs in convs)
    done = 0
    for ci, (_conv, turns, questions) in enumerate(convs):
        with Memory(run.db_path(dataset, ci), run.config, embedder=run.embedder) as mem:
            ingest(mem, turns)
            rowids = mem.store.rowids_for_ids([t["id"] for t in turns])
            bm25 = PlainBM25(mem.store.lexical_tokens(rowids))
            if gap is not None:  # the prototype's column means and names for this store
                names = {
                    n
                    for s in {t.get("speaker") or "" for t in turns}
                    for n in mem.tokenizer.phrase_tokens(s)
                }
                remember_store(mem.store, rowids, names if gap.names_out else set())
            session_of = {t["id"]: t["session"] for t in turns}
            for q in questions[:limit] if limit else questions:
                done += 1
                if run.progress:
                    run.progress(dataset.name, done, total)
                if is_unanswerable(q):
                    continue
                tops = ask(mem, bm25, q, overrides)
                shapes = query_shapes(q["query"], q.get("category", "all"))
                for system, ids in tops.items():
                    sessions = [session_of.get(i, "") for i in ids]
                    row = score_query(ids, sessions, q["gold"], q.get("gold_sessions", []))
                    for shape in shapes:
                        rows[shape][system].append(row)
    return {
        shape: {
            "n": len(by_system["bm25"]),
            **{
                system: {
                    m: round(statistics.fmean(r[m] for r in by_system[system]), 4) for m in SHOWN
                }
                for system in SYSTEMS
            },
        }
        for shape, by_system in sorted(rows.items())
    }


# Dialogue-shaped off-topic probes: dialogue_notes' chats asked of stores about other people
# (its English ones of LoCoMo's, its Chinese ones of zh_groupchat's); any hit is a false one.
PROBE_TARGETS = {"locomo": "en", "zh_groupchat": "zh"}


def said_by(query: str, speaker: str) -> str:
    """The chat with every person's label (not the assistant's) replaced by ``speaker``."""
    people = [s for s in speaker_labels(query) if s.casefold() not in ROLE_LABELS]
    lines = []
    for line in query.splitlines():
        label = next((p for p in people if line.startswith(p)), None)
        lines.append(speaker + line[len(label) :] if label else line)
    return "\n".join(lines)


def dialogue_probes(
    run: SuiteRun, datasets: list[Any], per_store: int, own_speaker: bool = False
) -> dict[str, Any]:
    """The share of dialogue-shaped probes that return anything, per target dataset; with
    ``own_speaker`` each chat is said by the store's most frequent speaker instead of its
    own people (strangers to the store): an off-topic chat by someone the store knows."""
    from remem.engine import Memory

    dialogues = [d for d in datasets if d.name == "dialogue_notes"]
    if not dialogues:
        return {}
    probes = [q for _c, _t, qs in conversations(dialogues[0].path, [], None) for q in qs]
    out: dict[str, Any] = {}
    for dataset in datasets:
        lang = PROBE_TARGETS.get(dataset.name)
        if lang is None:
            continue
        asked = [q for q in probes if q["conversation"] == lang][:per_store]
        hits: list[bool] = []
        for ci, (_conv, turns, _qs) in enumerate(conversations(dataset.path, [], 2)):
            with Memory(run.db_path(dataset, ci), run.config, embedder=run.embedder) as mem:
                ingest(mem, turns)
                main = Counter(t.get("speaker") for t in turns).most_common(1)[0][0]
                for q in asked:
                    query = said_by(q["query"], main) if own_speaker else q["query"]
                    hits.append(bool(mem.search(query, k=10, now=q["timestamp"]).hits))
        out[dataset.name] = {"n": len(hits), "false_hit_rate": round(sum(hits) / len(hits), 4)}
        print(f"dialogue probes on {dataset.name}: {out[dataset.name]}", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_suite_options(ap, datasets="dialogue_notes,mixed_script")
    ap.add_argument("--out", default="benchmarks/results/keyword-vs-bm25.json")
    ap.add_argument("--limit", type=int, help="questions per conversation")
    ap.add_argument("--set", action="append", default=[], help="section.key=JSON value")
    ap.add_argument(
        "--context-gap",
        help="WEIGHT/ALONE[/names][/keep-scores][/headN][/fts][/lidf][/floor][/both]: rank the "
        "keyword channel's pool with remem_bench.context_gap (the context counts only for the "
        "words a line lacks; 'names': the store's speaker names left out of the context; "
        "'keep-scores': FTS5's score values handed out in the new order; 'headN': only the "
        "first N rows reordered; 'fts': FTS5's formula and idf, 'lidf' with plain BM25's idf, "
        "'floor' with FTS5's idf floored by it; 'both': a name's rows counted in both columns); "
        "results under 'context_gap' in --out",
    )
    ap.add_argument(
        "--probes", type=int, default=0, help="dialogue probes per store (0: none, no scoring)"
    )
    ap.add_argument(
        "--own-speaker",
        action="store_true",
        help="the probes said by the store's most frequent speaker, not by strangers",
    )
    args = ap.parse_args()
    overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    run = hybrid_run(args, config, progress_every(30))
    gap = GapForm.parse(args.context_gap) if args.context_gap else None
    out = Path(args.out)
    report = json.loads(out.read_text()) if out.is_file() else {"datasets": {}}
    section = report["datasets"]
    if gap:
        section = report.setdefault("context_gap", {}).setdefault(args.context_gap, {})
    if args.probes:
        apply_overrides(config, overrides)
        found = dialogue_probes(run, chosen_datasets(args), args.probes, args.own_speaker)
        key = json.dumps(overrides) + (" said by the store's speaker" if args.own_speaker else "")
        report.setdefault("dialogue_probes", {})[key] = found
        out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
        return
    for dataset in chosen_datasets(args):
        start = time.perf_counter()
        if gap is not None:
            with install(gap):
                shapes = run_dataset(run, dataset, overrides, args.limit, gap)
        else:
            shapes = run_dataset(run, dataset, overrides, args.limit)
        section[dataset.name] = {
            "held_out": dataset.held_out,
            "limit_conversations": args.limit_conversations,
            "limit_questions": args.limit,
            "overrides": overrides,
            "seconds": round(time.perf_counter() - start),
            "shapes": shapes,
        }
        for shape, row in shapes.items():
            cells = "  ".join(f"{s} {row[s]['recall@10']:.3f}/{row[s]['mrr']:.3f}" for s in SYSTEMS)
            print(f"{dataset.name:16} {shape:28} n={row['n']:4}  {cells}", flush=True)
    report["about"] = (
        "recall@5 / recall@10 / MRR per dataset and query shape of plain BM25 over remem's "
        "own indexed tokens, remem's keyword channel (its own ranking, and the pipeline with "
        "it alone), the vector channel alone and the default hybrid "
        "(benchmarks/scripts/keyword_vs_bm25.py)"
    )
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
