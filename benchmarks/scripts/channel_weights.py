"""Which channel weight suits which question? For every answerable suite question, the whole
default pipeline (no relevance floor) at several vector weights (lexical = 1 - vector), and
what the question's own candidate lists say before fusion:

- ``v_top`` / ``v_gap``: the best vector cosine and its lead over the 10th; ``v_lift``: the
  best cosine over the query's neutral baseline (how far above "anything at all" it is);
- ``l_top`` / ``l_ratio``: the best BM25 score and the 10th's share of it;
- ``cover``: the best own-text coverage of the query among the top 3 lexical hits
  (``search/adaptive.lexical_confidence``); ``agree``: how many of the two channels' top 10
  are the same records; ``v1_in_l`` / ``l1_in_v``: whether each channel's best is in the
  other's top 10;
- ``tokens`` / ``cjk``: the query's token count and whether it is written in CJK.

One JSON line per question (features, and recall@10 / MRR per weight); the per-query rule is
then looked for offline with benchmarks/scripts/channel_weight_rules.py, leaving one dataset out.

PYTHONPATH=src python benchmarks/scripts/channel_weights.py --datasets locomo,zh_groupchat \
    --cache-dir /var/tmp/suite-cache --out /var/tmp/cw.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from suite_cli import add_suite_options, dump_rows, watch_fusion

from remem.search import pipeline as search_module
from remem.search.adaptive import lexical_confidence
from remem.text.scripts import script_of
from remem_bench.benchmark import apply_overrides, score_query
from remem_bench.suite import SuiteRun, is_unanswerable

WEIGHTS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


class Capture:
    """What the search saw before fusion, for the question being asked."""

    def __init__(self) -> None:
        self.vector: list[tuple[int, float]] = []
        self.lexical: list[tuple[int, float]] = []
        self.cover = 0.0
        self.baseline: float | None = None

    def install(self) -> None:
        original = dict(search_module.SCORE_STAGES)["adaptive_fusion"]

        def watched(cands: list, ctx: Any) -> list:
            self.cover = lexical_confidence(cands, ctx)
            self.baseline = ctx.found.baseline
            return original(cands, ctx)

        stages = search_module.SCORE_STAGES
        stages[[n for n, _ in stages].index("adaptive_fusion")] = ("adaptive_fusion", watched)


def features(cap: Capture, query: str, tokens: int) -> dict[str, float]:
    v = [s for _, s in cap.vector]
    lx = [s for _, s in cap.lexical]
    v10 = {r for r, _ in cap.vector[:10]}
    l10 = {r for r, _ in cap.lexical[:10]}
    return {
        "v_top": v[0] if v else 0.0,
        "v_gap": v[0] - v[min(9, len(v) - 1)] if v else 0.0,
        "v_lift": v[0] - cap.baseline if v and cap.baseline is not None else 0.0,
        "l_top": lx[0] if lx else 0.0,
        "l_ratio": lx[min(9, len(lx) - 1)] / lx[0] if lx and lx[0] > 0 else 0.0,
        "cover": cap.cover,
        "agree": len(v10 & l10),
        "v1_in_l": float(bool(cap.vector) and cap.vector[0][0] in l10),
        "l1_in_v": float(bool(cap.lexical) and cap.lexical[0][0] in v10),
        "tokens": tokens,
        "cjk": float(script_of(query) == "cjk"),
        "n_lexical": len(lx),
    }


class WeightRun(SuiteRun):
    def __init__(self, *args: Any, out: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.out = out
        self.cap = Capture()
        self.cap.install()
        self.dataset = ""
        self.conv = -1

    def run(self, dataset: Any, probes: list[dict[str, Any]]) -> None:
        self.dataset = dataset.name
        super().run(dataset, probes)

    def db_path(self, dataset: Any, ci: int) -> Path:
        self.conv = ci
        return super().db_path(dataset, ci)

    def _keep(self, vector: list, lexical: list) -> None:
        self.cap.vector, self.cap.lexical = vector, lexical

    def ask(
        self,
        mem: Any,
        q: dict[str, Any],
        session_of: dict[str, str],
        per_variant: Any,
        *,
        probe: bool,
    ) -> None:
        if probe or is_unanswerable(q):
            return
        searcher = mem.searcher
        watch_fusion(searcher, self._keep)
        qvec = searcher.embed_query(self.embedder, q["query"])
        row: dict[str, Any] = {
            "dataset": self.dataset,
            "conv": self.conv,
            "id": q.get("id"),
            "category": q.get("category", "all"),
        }
        for w in WEIGHTS:
            saved = apply_overrides(
                mem.config,
                {
                    "search.vector_weight": w,
                    "search.lexical_weight": round(1 - w, 3),
                    "search.relevance_floor": 0.0,
                },
            )
            try:
                result = mem.search(q["query"], k=10, now=q.get("timestamp"), query_vector=qvec)
            finally:
                apply_overrides(mem.config, saved)
            if w == WEIGHTS[0]:
                tokens = len(searcher.tokenizer.query_tokens(q["query"]))
                row["f"] = features(self.cap, q["query"], tokens)
            ids = [h.record.id for h in result.hits]
            m = score_query(
                ids, [session_of.get(i, "") for i in ids], q["gold"], q.get("gold_sessions", [])
            )
            row[f"r10@{w}"] = m["recall@10"]
            row[f"mrr@{w}"] = m["mrr"]
            row[f"s10@{w}"] = m["session_recall@10"]
        self.out.write(json.dumps(row) + "\n")
        self.out.flush()


def main() -> None:
    ap = argparse.ArgumentParser()
    add_suite_options(ap)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    dump_rows(WeightRun, args, 30)


if __name__ == "__main__":
    main()
