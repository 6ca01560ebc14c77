"""Score search variants over chosen suite datasets in one pass (stores cached between runs).

PYTHONPATH=src python bench/suite_variants.py --datasets zh_groupchat --variants default,lexical
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from remem.benchmark import Variant
from remem.benchmark_suite import load_no_answer, run_suite, suite_datasets
from remem.config import Config

H = ("vector", "lexical")
REPO = Path(__file__).resolve().parents[1]
VARIANTS = {
    "default": Variant("default"),
    "vector": Variant("vector", ("vector",)),
    "lexical": Variant("lexical", ("lexical",)),
    "no-floor": Variant("no-floor", H, {"search.relevance_floor": 0.0}),
    "fixed-weights": Variant("fixed-weights", H, {"search.adaptive_full_coverage": 0.0}),
    **{
        f"floor-{v}": Variant(f"floor-{v}", H, {"search.relevance_floor": v})
        for v in (0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
    },
    "no-context": Variant("no-context", H, {"search.context_weight": 0.0}),
    "no-nb": Variant("no-nb", H, disable=("neighbour_lift",)),
    "nb-cap": Variant("nb-cap", H, {"scoring.neighbour_cap": True}),
    "nb-uncapped": Variant("nb-uncapped", H, {"scoring.neighbour_cap": False}),
    **{
        f"adapt-{v}": Variant(f"adapt-{v}", H, {"search.adaptive_full_coverage": v})
        for v in (0.3, 0.5, 0.7, 0.9)
    },
    "rrf": Variant("rrf", H, {"search.fusion": "rrf"}),
    # the link channel (retrieve/links.py), each link kind alone and together
    **{
        f"link-ent-{v}": Variant(
            f"link-ent-{v}", H, {"scoring.link_lift": v, "scoring.link_kinds": ["entity"]}
        )
        for v in (0.1, 0.2, 0.3, 0.5, 0.8)
    },
    **{
        f"link-ent-{mode[0]}-{v}": Variant(
            f"link-ent-{mode[0]}-{v}",
            H,
            {
                "scoring.link_lift": v,
                "scoring.link_kinds": ["entity"],
                "scoring.link_entities": mode,
            },
        )
        for mode in ("query", "other")
        for v in (0.1, 0.2, 0.3, 0.5, 0.8)
    },
    **{
        f"link-ent-{m[0]}top{t}-{v}": Variant(
            f"link-ent-{m[0]}top{t}-{v}",
            H,
            {
                "scoring.link_lift": v,
                "scoring.link_kinds": ["entity"],
                "scoring.link_top": t,
                "scoring.link_entities": m,
            },
        )
        for m in ("any", "other")
        for t in (3, 10)
        for v in (0.1, 0.2, 0.3, 0.5)
    },
    **{
        f"link-term-{v}": Variant(
            f"link-term-{v}", H, {"scoring.link_lift": v, "scoring.link_kinds": ["term"]}
        )
        for v in (0.1, 0.2, 0.3, 0.5)
    },
    **{
        f"link-ent-o-term-{v}": Variant(
            f"link-ent-o-term-{v}",
            H,
            {
                "scoring.link_lift": v,
                "scoring.link_kinds": ["entity", "term"],
                "scoring.link_entities": "other",
            },
        )
        for v in (0.1, 0.2, 0.3)
    },
    **{
        f"link-{name}-below-{v}": Variant(
            f"link-{name}-below-{v}",
            H,
            {
                "scoring.link_lift": v,
                "scoring.link_kinds": kinds,
                "scoring.link_entities": "other",
                "scoring.link_below_top": True,
            },
        )
        for name, kinds in (
            ("ent-o", ["entity"]),
            ("term", ["term"]),
            ("ent-o-term", ["entity", "term"]),
        )
        for v in (0.2, 0.3, 0.4, 0.5)
    },
    "link-src": Variant(
        "link-src", H, {"scoring.link_lift": 0.2, "scoring.link_kinds": ["source"]}
    ),
    "link-sup": Variant(
        "link-sup", H, {"scoring.link_lift": 0.2, "scoring.link_kinds": ["supersession"]}
    ),
    **{f"link-all-{v}": Variant(f"link-all-{v}", H, {"scoring.link_lift": v}) for v in (0.1, 0.2)},
    "no-names": Variant("no-names", H, {"names.translate_vector": False}),
    **{
        name: Variant(name, H, {"translate.keyword": keyword, "translate.vector": vector})
        for name, keyword, vector in (
            ("no-translate", False, False),
            ("tr-kw", True, False),
            ("tr-vec", False, True),
            ("tr-both", True, True),
        )
    },
    **{
        f"vw-{w}": Variant(
            f"vw-{w}", H, {"search.vector_weight": w, "search.lexical_weight": 1 - w}
        )
        for w in (0.3, 0.5, 0.6, 0.7)
    },
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="locomo,zh_groupchat")
    ap.add_argument("--variants", default="default,lexical")
    ap.add_argument("--set", action="append", default=[], help="section.key=value override")
    ap.add_argument("--shared-dir", default=str(REPO.parent.parent / "shared" / "bench"))
    ap.add_argument("--cache-dir", default=str(REPO / ".remem-bench-cache"))
    ap.add_argument("--limit-conversations", type=int)
    ap.add_argument("--out")
    args = ap.parse_args()
    overrides: dict = {"indexing.mode": "sync"}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = json.loads(value) if value[:1] in "[{0123456789-tf" else value
    names = args.datasets.split(",")
    datasets = [
        d
        for d in suite_datasets(Path(args.shared_dir), REPO / "bench" / "data", quick=False)
        if d.name in names
    ]
    started, last = time.time(), [0.0]

    def progress(name: str, done: int, total: int) -> None:
        if time.time() - last[0] > 20:
            last[0] = time.time()
            print(f"  {name} {done}/{total}, {time.time() - started:.0f}s", file=sys.stderr)

    result = run_suite(
        datasets,
        no_answer=load_no_answer(REPO / "bench" / "data" / "no_answer" / "queries.jsonl"),
        config=Config.load(env={}, overrides=overrides),
        cache_dir=Path(args.cache_dir),
        variants=[VARIANTS[v] for v in args.variants.split(",")],
        progress=progress,
        limit_conversations=args.limit_conversations,
    )
    for vname, v in result["variants"].items():
        for dname, d in v["datasets"].items():
            o = d["overall"]
            print(
                f"{vname:14s} {dname:20s} r@5 {o['recall@5']:.3f} r@10 {o['recall@10']:.3f} "
                f"mrr {o['mrr']:.3f} unans-fh {d['unanswerable']['false_hit_rate']} "
                f"noans-fh {d['no_answer']['false_hit_rate']} p50 {d['latency_ms']['p50']}ms"
            )
        m = v["macro"]
        print(f"{vname:14s} {'macro':20s} r@10 {m['recall@10']:.3f} mrr {m['mrr']:.3f}")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
