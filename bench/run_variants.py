"""Score several retrieval variants over one dataset in one pass (shared ingest).

python bench/run_variants.py ../shared/bench/locomo --model multilingual-e5-small
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from remem.benchmark import Variant, run_benchmark
from remem.config import Config

VARIANTS = {
    "w-28": Variant(
        "w-28",
        ("vector", "lexical"),
        {"fusion": "weighted", "vector_weight": 0.2, "lexical_weight": 0.8},
    ),
    "w-46": Variant(
        "w-46",
        ("vector", "lexical"),
        {"fusion": "weighted", "vector_weight": 0.4, "lexical_weight": 0.6},
    ),
    "rrf-l3-k10": Variant(
        "rrf-l3-k10", ("vector", "lexical"), {"rrf_lexical_weight": 3.0, "rrf_k": 10}
    ),
    "rrf-l2-k5": Variant(
        "rrf-l2-k5", ("vector", "lexical"), {"rrf_lexical_weight": 2.0, "rrf_k": 5}
    ),
    "rrf-l2": Variant("rrf-l2", ("vector", "lexical"), {"rrf_lexical_weight": 2.0}),
    "rrf-l3": Variant("rrf-l3", ("vector", "lexical"), {"rrf_lexical_weight": 3.0}),
    "rrf-l2-k20": Variant(
        "rrf-l2-k20", ("vector", "lexical"), {"rrf_lexical_weight": 2.0, "rrf_k": 20}
    ),
    "w-55": Variant(
        "w-55",
        ("vector", "lexical"),
        {"fusion": "weighted", "vector_weight": 0.5, "lexical_weight": 0.5},
    ),
    "w-37": Variant(
        "w-37",
        ("vector", "lexical"),
        {"fusion": "weighted", "vector_weight": 0.3, "lexical_weight": 0.7},
    ),
    "hybrid-rrf": Variant("hybrid-rrf", ("vector", "lexical"), {"fusion": "rrf"}),
    "hybrid-weighted": Variant("hybrid-weighted", ("vector", "lexical"), {"fusion": "weighted"}),
    "vector": Variant("vector", ("vector",)),
    "lexical": Variant("lexical", ("lexical",)),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("--model", default="multilingual-e5-small")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--set", action="append", default=[], help="section.key=value override")
    ap.add_argument("--limit-conversations", type=int)
    ap.add_argument("--out")
    ap.add_argument("--reuse-dir", help="keep ingested stores here between runs")
    args = ap.parse_args()
    overrides = {"embed.model": args.model}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = json.loads(value) if value[:1] in "[{0123456789-tf" else value
    config = Config.load(env={}, overrides=overrides)
    started = time.time()
    last = [0.0]

    def progress(_stage: str, done: int, total: int) -> None:
        if time.time() - last[0] > 10:
            last[0] = time.time()
            print(f"  {done}/{total} queries, {time.time() - started:.0f}s", file=sys.stderr)

    result = run_benchmark(
        args.dataset,
        config=config,
        variants=[VARIANTS[v] for v in args.variants.split(",")],
        limit_conversations=args.limit_conversations,
        progress=progress,
        reuse_dir=args.reuse_dir,
    )
    for name, res in result["variants"].items():
        o = res["overall"]
        lat = res["latency_ms"]
        print(
            f"{args.model:24s} {name:16s} r@5 {o['recall@5']:.3f} r@10 {o['recall@10']:.3f} "
            f"hit@10 {o['hit@10']:.3f} sess@10 {o['session_recall@10']:.3f} mrr {o['mrr']:.3f} "
            f"p50 {lat['search_p50']:.1f}ms p95 {lat['search_p95']:.1f}ms "
            f"ingest {res['ingest_per_s']}/s"
        )
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(result, fh, indent=1)


if __name__ == "__main__":
    main()
