"""How often the dictionary translation (``translate.keyword``) changes a question's top hit,
for better and for worse, per dataset (issue 46).

Every question is asked twice of the same store with the default pipeline: with translation
(the default) and with ``translate.keyword`` off (``translate.vector`` is off by default, so
nothing is translated then). A question's top hit is *better* with translation when it is a
gold turn with it and was not without it, *worse* the other way round; *changed* counts every
question whose top hit differs. Recall@5 / recall@10 / MRR of both runs are reported beside
them, per dataset and per category. Held-out sets (zh_validation) are reported, never tuned on.

    PYTHONPATH=src:benchmarks python benchmarks/scripts/translation_effect.py \\
        --datasets mixed_script,zh_groupchat,zh_validation,changed_facts \\
        --out benchmarks/results/translation-effect.json
    # LoCoMo (English only: the store holds no Chinese, so nothing should change), limited:
    ... --datasets locomo --limit-conversations 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from suite_cli import add_suite_options, chosen_datasets, progress_every

from remem import query_vector
from remem.config import Config
from remem_bench.benchmark import Variant, apply_overrides, score_query
from remem_bench.suite import SuiteRun, VariantScores, is_unanswerable

ON, OFF, WEIGHTED = "translation", "no_translation", "translation_weighted"
VARIANTS = [Variant(ON), Variant(OFF, overrides={"translate.keyword": False})]


class TopHits(SuiteRun):
    """A suite run of answerable questions that also keeps each one's top hit per variant."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tops: dict[str, dict[str, list[str | None]]] = defaultdict(lambda: defaultdict(list))
        self._dataset = ""
        self.category = ""  # only the questions of this category (a quick look)

    def ask_all(
        self,
        mem: Any,
        name: str,
        turns: list[dict],
        questions: list[dict],
        probes: list[dict[str, Any]],
        progress: tuple[int, int],
    ) -> int:
        self._dataset = name
        answerable = [q for q in questions if not is_unanswerable(q)]
        if self.category:
            answerable = [q for q in answerable if q.get("category") == self.category]
        return super().ask_all(mem, name, turns, answerable, [], progress)

    def ask(
        self,
        mem: Any,
        q: dict[str, Any],
        session_of: dict[str, str],
        per_variant: dict[str, VariantScores],
        *,
        probe: bool,
    ) -> None:
        qvec = query_vector(mem, q["query"]) if self.embedder else None
        for variant in self.variants:
            saved = apply_overrides(mem.config, variant.overrides)
            try:
                result = mem.search(q["query"], k=self.k, now=q.get("timestamp"), query_vector=qvec)
            finally:
                apply_overrides(mem.config, saved)
            ids = [h.record.id for h in result.hits]
            row = score_query(
                ids, [session_of.get(i, "") for i in ids], q["gold"], q.get("gold_sessions", [])
            )
            per_variant[variant.name].add_answerable(row, q.get("category", "all"))
            self.tops[self._dataset][variant.name].append(ids[0] if ids else None)


def effect(on: VariantScores, off: VariantScores, rows: range | list[int]) -> dict[str, Any]:
    """Better / worse / changed top hits and the metrics of both runs over ``rows``."""
    better = sum(1 for i in rows if on.answerable[i]["mrr"] == 1 > off.answerable[i]["mrr"])
    worse = sum(1 for i in rows if off.answerable[i]["mrr"] == 1 > on.answerable[i]["mrr"])
    out: dict[str, Any] = {"n": len(rows), "top_better": better, "top_worse": worse}
    for name, scores in ((ON, on), (OFF, off)):
        out[name] = {
            m: round(statistics.fmean(scores.answerable[i][m] for i in rows), 4) if rows else 0.0
            for m in ("recall@5", "recall@10", "mrr")
        }
    return out


def summarise(run: TopHits, dataset: str, on_name: str = ON) -> dict[str, Any]:
    on, off = run.scores[dataset][on_name], run.scores[dataset][OFF]
    every = range(len(on.answerable))
    out = effect(on, off, every)
    tops = run.tops.get(dataset, {})
    if tops:
        out["top_changed"] = sum(a != b for a, b in zip(tops[on_name], tops[OFF], strict=True))
    by_cat: dict[str, list[int]] = defaultdict(list)
    for i, cat in enumerate(on.categories):
        by_cat[cat].append(i)
    out["by_category"] = {cat: effect(on, off, rows) for cat, rows in sorted(by_cat.items())}
    if on_name == ON and WEIGHTED in run.scores[dataset]:
        out[WEIGHTED] = summarise(run, dataset, WEIGHTED)
        out[WEIGHTED]["weight"] = run.variants[-1].overrides["translate.weight"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_suite_options(ap, datasets="mixed_script,zh_groupchat,zh_validation,changed_facts")
    ap.add_argument("--out", help="write the JSON here (merged into what the file holds)")
    ap.add_argument("--label", default="", help="a note kept with the results")
    ap.add_argument("--category", default="", help="only this category's questions")
    ap.add_argument("--weight", type=float, help="translate.weight of the translated run")
    args = ap.parse_args()
    config = Config.load(env={})
    variants = list(VARIANTS)
    if args.weight is not None:  # a third run: translated words weighted so
        variants.append(Variant(WEIGHTED, overrides={"translate.weight": args.weight}))
    run = TopHits(variants, config, Path(args.cache_dir), progress=progress_every(30))
    run.limit_conversations = args.limit_conversations
    run.category = args.category
    results: dict[str, Any] = {}
    for dataset in chosen_datasets(args):
        start = time.perf_counter()
        run.run(dataset, [])
        results[dataset.name] = summarise(run, dataset.name)
        results[dataset.name]["held_out"] = dataset.held_out
        results[dataset.name]["seconds"] = round(time.perf_counter() - start, 1)
        if args.limit_conversations:
            results[dataset.name]["limit_conversations"] = args.limit_conversations
        print(dataset.name, json.dumps(results[dataset.name]), file=sys.stderr, flush=True)
    if args.out:
        path = Path(args.out)
        held = json.loads(path.read_text()) if path.is_file() else {}
        held.setdefault("datasets", {}).update(results)
        held["label"] = args.label or held.get("label", "")
        held["date"] = time.strftime("%Y-%m-%d")
        path.write_text(json.dumps(held, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(results, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
