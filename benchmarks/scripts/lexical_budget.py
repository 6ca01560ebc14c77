"""How the keyword search's budgets trade time for recall in a big store.

In a store of 20k+ records the lexical channel asks FTS5 only for the rarest query words whose
records add up to the postings budget (``search.lexical_postings_budget``): FTS5 scores every
record holding an asked word, so the budget bounds its time. When the words left hold more
than the first-pass budget (``search.lexical_first_pass_budget``), it searches in two passes:
the rarest words up to that budget, then only the rows found, scored for every word. A
variant is ``POSTINGS:FIRST_PASS`` (0 = no limit / one pass). This bench measures, on the
100k store of ``benchmarks/scripts/speed.py`` (real LoCoMo and LongMemEval chat text, real USE vectors),
each variant, interleaved query by query so that every variant sees the same machine load:

- the keyword step's time and the whole search's time (query vector given), p50 / p95;
- recall@10 of the whole pipeline at 100k records: the real questions of both datasets, each
  answered by its gold turns, which sit in the store among 100k others from every
  conversation (a needle in a haystack much bigger than any dataset's own store);
- recall@10 of a keyword-only search (the pipeline with the keyword channel alone), the part
  the budget changes.

    python benchmarks/scripts/lexical_budget.py [--variants 0:0 20000:0 5000:0 20000:2500] [--queries 300]
        [--out benchmarks/results/lexical-budget-100k.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ann_vectors import CORPORA, MAX_CHARS, SHARED, corpus_texts, query_vectors
from speed import build_store


def questions(per_corpus: int) -> list[tuple[int, str, set[str]]]:
    """(index into query_vectors(), question, gold store ids) for the first ``per_corpus``
    questions of each corpus whose gold turns are all in the store."""
    position = {text: i for i, text in enumerate(corpus_texts())}
    out = []
    offset = 0
    for name in CORPORA:
        turns = {}
        for line in (SHARED / name / "corpus.jsonl").read_text().splitlines():
            row = json.loads(line)
            turns[row["id"]] = row["text"].strip()[:MAX_CHARS]
        text = (SHARED / name / "queries.jsonl").read_text()
        lines = [json.loads(x) for x in text.splitlines() if x]
        taken = 0
        for i, q in enumerate(lines):
            gold = {position.get(turns.get(g, "")) for g in q["gold"]}
            if q["gold"] and None not in gold and taken < per_corpus:
                out.append((offset + i, q["query"], {f"r{p}" for p in gold}))
                taken += 1
        offset += len(lines)
    return out


def pct(values: list[float], p: float) -> float:
    return round(float(np.percentile(values, p)), 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", default="/tmp/ann/speed-100000.db")
    ap.add_argument(
        "--variants",
        nargs="+",
        default=["0:0", "20000:0", "10000:0", "5000:0", "2500:0", "20000:5000", "20000:2500"],
    )
    ap.add_argument("--queries", type=int, default=300, help="per corpus")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()

    from remem import Config, Memory
    from remem.embed.local import USEEmbedder

    db = Path(args.db)
    build_store(db, 100_000)
    asked = questions(args.queries)
    qvecs = query_vectors()
    embedder = USEEmbedder(threads=1)
    mems = {}
    for variant in args.variants:
        budget, first_pass = (int(x) for x in variant.split(":"))
        overrides = {
            "search.lexical_postings_budget": budget,
            "search.lexical_first_pass_budget": first_pass,
        }
        mems[variant] = Memory(db, Config.load(env={}, overrides=overrides), embedder=embedder)
    for mem in mems.values():  # warm the pages and the index
        for _, text, _ in asked[:20]:
            mem.search(text, k=10, query_vector=qvecs[0])
    runs: dict[str, dict[str, list[float]]] = {
        v: {"lexical_ms": [], "total_ms": [], "recall": [], "lexical_recall": []}
        for v in args.variants
    }
    loads = [os.getloadavg()[0]]
    for n, (qi, text, gold) in enumerate(asked):
        for variant, mem in mems.items():
            start = time.perf_counter()
            result = mem.search(text, k=10, query_vector=qvecs[qi])
            took = (time.perf_counter() - start) * 1000
            run = runs[variant]
            run["total_ms"].append(took)
            run["lexical_ms"].append(result.timings_ms["lexical"])
            run["recall"].append(len(gold & {h.record.id for h in result.hits}) / len(gold))
            lexical = mem.search(text, k=10, channels=("lexical",))
            ids = {h.record.id for h in lexical.hits}
            run["lexical_recall"].append(len(gold & ids) / len(gold))
        if n % 50 == 0:
            loads.append(os.getloadavg()[0])
            print(f"  {n}/{len(asked)} questions", file=sys.stderr)
    rows = {}
    for variant, run in runs.items():
        rows[variant] = {
            "lexical_p50_ms": pct(run["lexical_ms"], 50),
            "lexical_p95_ms": pct(run["lexical_ms"], 95),
            "search_p50_ms": pct(run["total_ms"], 50),
            "search_p95_ms": pct(run["total_ms"], 95),
            "recall@10": round(float(np.mean(run["recall"])), 4),
            "lexical_recall@10": round(float(np.mean(run["lexical_recall"])), 4),
        }
        print(variant, rows[variant])
    result = {
        "bench": "lexical_budget",
        "records": 100_000,
        "questions": len(asked),
        "variants (postings budget:first-pass budget)": rows,
        "load_avg_1m": {"min": min(loads), "max": max(loads)},
    }
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    for mem in mems.values():
        mem.close()


if __name__ == "__main__":
    main()
