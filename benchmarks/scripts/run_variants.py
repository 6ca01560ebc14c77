"""Score several retrieval variants over one dataset in one pass (shared ingest).

python benchmarks/scripts/run_variants.py ../shared/bench/locomo --model multilingual-e5-small
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from remem.config import Config
from remem_bench.benchmark import Variant, run_benchmark

H = ("vector", "lexical")
# Ablation: every stage off (one at a time) against the defaults, plus seed settings.
VARIANTS = {
    "default": Variant("default"),
    "vector": Variant("vector", ("vector",)),
    "lexical": Variant("lexical", ("lexical",)),
    "rrf": Variant("rrf", H, {"search.fusion": "rrf"}),
    "weighted-0.7/0.3": Variant(
        "weighted-0.7/0.3", H, {"search.vector_weight": 0.7, "search.lexical_weight": 0.3}
    ),
    "all-stages-off": Variant(
        "all-stages-off",
        H,
        {"search.context_weight": 0.0},
        disable=(
            "min_semantic",
            "noise",
            "rerank",
            "recency",
            "importance",
            "length",
            "decay",
            "time_weight",
            "same_user",
            "time_intent",
            "session_lift",
            "neighbour_lift",
            "min_score",
            "diversity",
            "aggregate_spread",
        ),
    ),
    **{
        f"no-{s}": Variant(f"no-{s}", H, disable=(s,))
        for s in (
            "noise",
            "recency",
            "importance",
            "length",
            "decay",
            "time_intent",
            "session_lift",
            "neighbour_lift",
            "diversity",
            "aggregate_spread",
        )
    },
    "no-context": Variant("no-context", H, {"search.context_weight": 0.0}),
    "recency-0.1": Variant("recency-0.1", H, {"scoring.recency_weight": 0.1}),
    "decay-on": Variant("decay-on", H, {"scoring.decay": True}),
    "time-weight-0.3": Variant("time-weight-0.3", H, {"scoring.time_weight": 0.3}),
    "session-lift-0.1": Variant("session-lift-0.1", H, {"scoring.session_lift": 0.1}),
    "session-lift-0.2": Variant("session-lift-0.2", H, {"scoring.session_lift": 0.2}),
    "mmr": Variant("mmr", H, {"diversity.mode": "mmr"}),
    "time-filter": Variant("time-filter", H, {"time_intent.mode": "filter"}),
    "time-boost-0.1": Variant("time-boost-0.1", H, {"time_intent.boost": 0.1}),
    **{
        f"demote-{t}": Variant(f"demote-{t}", H, {"diversity.threshold": t})
        for t in (0.9, 0.93, 0.97)
    },
    **{
        f"time-boost-{b}": Variant(f"time-boost-{b}", H, {"time_intent.boost": b})
        for b in (0.05, 0.2, 0.5, 1.0)
    },
    "session-lift-0.05": Variant("session-lift-0.05", H, {"scoring.session_lift": 0.05}),
    "recency-0.05": Variant("recency-0.05", H, {"scoring.recency_weight": 0.05}),
    "recency-0.02": Variant("recency-0.02", H, {"scoring.recency_weight": 0.02}),
    **{
        f"nb-{v}": Variant(f"nb-{v}", H, {"scoring.neighbour_lift": v})
        for v in (0.1, 0.2, 0.3, 0.5)
    },
    "nb-0.3-w2": Variant(
        "nb-0.3-w2", H, {"scoring.neighbour_lift": 0.3, "scoring.neighbour_window": 2}
    ),
    "sl-0.2": Variant("sl-0.2", H, {"scoring.session_lift": 0.2}),
    "sl-0.3": Variant("sl-0.3", H, {"scoring.session_lift": 0.3}),
    "sl-0": Variant("sl-0", H, {"scoring.session_lift": 0.0}),
    **{
        f"g-nb{nb}-sl{sl}-w{w}": Variant(
            f"g-nb{nb}-sl{sl}-w{w}",
            H,
            {
                "scoring.neighbour_lift": nb,
                "scoring.session_lift": sl,
                "scoring.neighbour_window": w,
            },
        )
        for nb in (0.5, 0.7)
        for sl in (0.1, 0.2)
        for w in (1, 2)
    },
    "g-nb0.5-sl0.2-w1-top40": Variant(
        "g-nb0.5-sl0.2-w1-top40",
        H,
        {"scoring.neighbour_lift": 0.5, "scoring.session_lift": 0.2, "scoring.neighbour_top": 40},
    ),
    **{
        f"ctx-{w}": Variant(
            f"ctx-{w}",
            H,
            {
                "search.context_weight": w,
                "scoring.neighbour_lift": 0.5,
                "scoring.neighbour_window": 2,
            },
        )
        for w in (0.0, 0.1, 0.2, 0.4)
    },
    **{
        f"span-{v}": Variant(f"span-{v}", H, {"search.min_vector_span": v})
        for v in (0.05, 0.1, 0.15, 0.2)
    },
    **{f"nbtop-{v}": Variant(f"nbtop-{v}", H, {"scoring.neighbour_top": v}) for v in (5, 10, 15)},
    "nb-cap": Variant("nb-cap", H, {"scoring.neighbour_cap": True}),
    "nb-0.3": Variant("nb-0.3", H, {"scoring.neighbour_lift": 0.3}),
    "nb-w1": Variant("nb-w1", H, {"scoring.neighbour_window": 1}),
    "no-nb-no-length": Variant("no-nb-no-length", H, disable=("neighbour_lift", "length")),
    "no-length": Variant("no-length", H, disable=("length",)),
    "no-noise-imp-len": Variant("no-noise-imp-len", H, disable=("noise", "importance", "length")),
    **{
        f"quota-{q}": Variant(f"quota-{q}", H, {"diversity.max_per_session": q})
        for q in (2, 3, 4, 5)
    },
    **{
        f"cover-{q}": Variant(f"cover-{q}", H, {"diversity.session_coverage": q})
        for q in (0.3, 0.5, 0.7)
    },
    **{
        f"agg-{q}": Variant(f"agg-{q}", H, {"diversity.aggregate_max_per_session": q})
        for q in (1, 3)
    },
    "pool-30": Variant("pool-30", H, {"search.candidate_pool": 30}),
    "pool-20": Variant("pool-20", H, {"search.candidate_pool": 20}),
    "pool-100": Variant("pool-100", H, {"search.candidate_pool": 100}),
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
    overrides: dict = {"embed.model": args.model}
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
