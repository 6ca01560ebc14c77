"""What a narrowed keyword search pays for its scope's BM25 statistics, against a whole-store
search, on a store of n real chat lines without vectors (``embed.provider`` none: the
lexical path alone).

Own-session recall narrows to ``kinds=["message"]`` and one session (minus the turn) and
counts its words over the session's records (``search/scoped_terms.py``,
``Store.phrase_counts``); the whole-store search filters by the kind alone. Reports search
p50/p95 of each and the scoped statistics' own p50, in one run.

    PYTHONPATH=src:benchmarks:benchmarks/scripts python benchmarks/scripts/scoped_counts.py \
        --n 100000 --per-session 1000 --db /tmp/scoped-100k.db
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from ann_vectors import corpus_texts, query_texts

import remem.search.scoped_terms as scoped_terms
from remem import Config, Memory
from remem.types import Filters


def build(db: Path, n: int, per_session: int) -> None:
    texts = corpus_texts()
    with Memory(db, Config.load(env={}, overrides={"embed.provider": "none"})) as mem:
        for start in range(0, n, 5000):
            rows = []
            for i in range(start, min(n, start + 5000)):
                text = texts[i % len(texts)] + (f" #{i // len(texts)}" if i >= len(texts) else "")
                fields = {
                    "id": f"r{i}",
                    "kind": "message",
                    "text": text,
                    "scope": f"user:{i % 50}",
                    "session": f"s{i // per_session}",
                    "created_at": 1_700_000_000 + i * 60,
                    "content_hash": str(i),
                    "importance": 0.5,
                }
                rows.append((fields, mem.tokenizer.index_string(text)))
            mem.store.insert_records(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--per-session", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=150)
    ap.add_argument("--db", type=Path, required=True, help="built on the first run, then reused")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if not args.db.exists():
        build(args.db, args.n, args.per_session)
    sessions = args.n // args.per_session
    counted: list[float] = []
    original = scoped_terms.scoped_stats

    def timed(*a, **k):  # the scoped statistics' own time
        t = time.perf_counter()
        out = original(*a, **k)
        counted.append((time.perf_counter() - t) * 1000)
        return out

    scoped_terms.scoped_stats = timed
    questions = query_texts()[::7][: args.queries]
    report: dict = {"n": args.n, "per_session": args.per_session, "load_avg": os.getloadavg()}
    with Memory(args.db, Config.load(env={}, overrides={"embed.provider": "none"})) as mem:
        for mode in ("whole-store", "own-session"):
            counted.clear()
            ms = []
            for i, q in enumerate(questions):
                filters = Filters(kinds=["message"], exclude_ids=[f"r{i}"])
                if mode == "own-session":
                    filters.sessions = [f"s{(i * 37) % sessions}"]
                t = time.perf_counter()
                mem.search(q, k=10, filters=filters)
                ms.append((time.perf_counter() - t) * 1000)
            ms.sort()
            report[mode] = {
                "search_p50_ms": round(ms[len(ms) // 2], 1),
                "search_p95_ms": round(ms[int(0.95 * len(ms))], 1),
                "scoped_stats_p50_ms": round(statistics.median(counted), 1) if counted else None,
            }
    report["load_avg_end"] = os.getloadavg()
    print(json.dumps(report, indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
