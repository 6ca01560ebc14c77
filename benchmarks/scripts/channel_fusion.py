"""Screen ways of fusing the two channels, offline: each answerable suite question's vector and
lexical candidate lists (as the search saw them before fusion) are dumped once, then each rule
fuses them and recall@10 / MRR of the fused list alone are scored per dataset. The stages
after fusion (neighbour and session lift, time intent, diversity ...) are left out, so a rule
is compared with the default weighted fusion under the same omission; what wins here is then
measured through the whole pipeline (benchmarks/scripts/suite_variants.py).

Rules (``RULES``): the default weighted fusion (min-max vector with a 0.05 span floor, BM25
over the best); plain min-max for both; z-scores; distribution-based score fusion (each
channel's scores over mean +- 3 sd, Mazzeschi's DBSF); reciprocal rank fusion.

PYTHONPATH=src python benchmarks/scripts/channel_fusion.py dump --datasets locomo,zh_groupchat \
    --cache-dir /var/tmp/suite-cache --out /var/tmp/cf.jsonl
PYTHONPATH=src python benchmarks/scripts/channel_fusion.py score /var/tmp/cf.jsonl [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from suite_cli import add_suite_options, dump_rows, read_rows, watch_fusion

from remem_bench.suite import SuiteRun, is_unanswerable

Ranked = list[tuple[int, float]]


class DumpRun(SuiteRun):
    """Asks every answerable question once with the defaults (no floor) and writes its lists."""

    def __init__(self, *args: Any, out: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.out = out
        self.dataset = ""
        self.lists: tuple[Ranked, Ranked] = ([], [])

    def run(self, dataset: Any, probes: list[dict[str, Any]]) -> None:
        self.dataset = dataset.name
        super().run(dataset, [])

    def _keep(self, vector: Ranked, lexical: Ranked) -> None:
        self.lists = (vector, lexical)

    def ask(self, mem: Any, q: dict[str, Any], session_of: dict[str, str], per_variant: Any,
             *, probe: bool) -> None:  # fmt: skip
        if probe or is_unanswerable(q):
            return
        searcher = mem.searcher
        watch_fusion(searcher, self._keep)
        qvec = searcher.embed_query(self.embedder, q["query"])
        mem.config.search.relevance_floor = 0.0
        result = mem.search(q["query"], k=10, now=q.get("timestamp"), query_vector=qvec)
        vector, lexical = self.lists
        row = {
            "dataset": self.dataset,
            "category": q.get("category", "all"),
            "v": [[r, round(s, 6)] for r, s in vector],
            "l": [[r, round(s, 6)] for r, s in lexical],
            "gold": mem.store.rowids_for_ids(q["gold"]),
            "n_gold": len(set(q["gold"])),
            "final": [h.record.rowid for h in result.hits],
        }
        self.out.write(json.dumps(row) + "\n")


# ---------------------------------------------------------------------------- rules


def _norm_minmax(scores: list[float], min_span: float = 0.0) -> Callable[[float], float]:
    lo, hi = min(scores), max(scores)
    span = max(hi - lo, min_span)
    lo = hi - span
    return (lambda s: (s - lo) / span) if span > 0 else (lambda s: 1.0)


def _norm_over_best(scores: list[float]) -> Callable[[float], float]:
    hi = max(scores)
    return (lambda s: s / hi) if hi > 0 else (lambda s: 0.0)


def _norm_z(scores: list[float]) -> Callable[[float], float]:
    mu = statistics.fmean(scores)
    sd = statistics.pstdev(scores) or 1.0
    return lambda s: (s - mu) / sd


def _norm_dbsf(scores: list[float]) -> Callable[[float], float]:
    mu = statistics.fmean(scores)
    sd = statistics.pstdev(scores) or 1.0
    return lambda s: (s - (mu - 3 * sd)) / (6 * sd)


Norm = Callable[[list[float]], Callable[[float], float]]


def weighted(vnorm: Norm, lnorm: Norm, wv: float, *, missing: float | None = None):
    """wv x vnorm(vector) + (1 - wv) x lnorm(lexical); a channel that did not return the record
    adds nothing (or ``missing``, the value a record absent from it gets)."""

    def fuse(v: Ranked, lx: Ranked) -> list[int]:
        fv = vnorm([s for _, s in v]) if v else None
        fl = lnorm([s for _, s in lx]) if lx else None
        vs, ls = dict(v), dict(lx)
        scores = {}
        for r in vs.keys() | ls.keys():
            a = fv(vs[r]) if fv and r in vs else (missing if missing is not None else 0.0)
            b = fl(ls[r]) if fl and r in ls else (missing if missing is not None else 0.0)
            scores[r] = wv * a + (1 - wv) * b
        return [r for r, _ in sorted(scores.items(), key=lambda p: (-p[1], p[0]))]

    return fuse


def rrf(k: int, wv: float = 0.5):
    def fuse(v: Ranked, lx: Ranked) -> list[int]:
        scores: dict[int, float] = defaultdict(float)
        for rank, (r, _) in enumerate(v, 1):
            scores[r] += wv / (k + rank)
        for rank, (r, _) in enumerate(lx, 1):
            scores[r] += (1 - wv) / (k + rank)
        return [r for r, _ in sorted(scores.items(), key=lambda p: (-p[1], p[0]))]

    return fuse


def _default_vector(scores: list[float]) -> Callable[[float], float]:
    return _norm_minmax(scores, 0.05)


RULES: dict[str, Callable[[Ranked, Ranked], list[int]]] = {
    **{f"default-{w}": weighted(_default_vector, _norm_over_best, w) for w in (0.3, 0.4, 0.5, 0.6)},
    **{f"minmax-{w}": weighted(_norm_minmax, _norm_minmax, w) for w in (0.3, 0.4, 0.5, 0.6)},
    **{f"z-{w}": weighted(_norm_z, _norm_z, w, missing=-1.0) for w in (0.3, 0.4, 0.5, 0.6)},
    **{f"dbsf-{w}": weighted(_norm_dbsf, _norm_dbsf, w) for w in (0.3, 0.4, 0.5, 0.6)},
    **{
        f"dbsf-v-best-l-{w}": weighted(_norm_dbsf, _norm_over_best, w) for w in (0.3, 0.4, 0.5, 0.6)
    },
    **{f"rrf{k}-{w}": rrf(k, w) for k in (10, 60) for w in (0.4, 0.5)},
}


def metrics(rows: list[dict], ranked: Callable[[dict], list[int]]) -> dict[str, float]:
    r10 = mrr = 0.0
    for row in rows:
        gold = set(row["gold"])
        top = ranked(row)[:10]
        r10 += len(gold & set(top)) / max(1, row["n_gold"])
        mrr += next((1 / (i + 1) for i, r in enumerate(top) if r in gold), 0.0)
    n = max(1, len(rows))
    return {"recall@10": round(r10 / n, 4), "mrr": round(mrr / n, 4)}


def score(paths: list[str], out: str | None) -> None:
    rows = read_rows(paths)
    for row in rows:
        row["v"] = [tuple(p) for p in row["v"]]
        row["l"] = [tuple(p) for p in row["l"]]
    by_ds: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_ds[row["dataset"]].append(row)
    report: dict[str, dict] = {"whole pipeline (defaults)": {}}
    for ds, rs in by_ds.items():
        report["whole pipeline (defaults)"][ds] = metrics(rs, lambda r: r["final"])
    for name, rule in RULES.items():
        report[name] = {
            ds: metrics(rs, lambda r, f=rule: f(r["v"], r["l"])) for ds, rs in by_ds.items()
        }
    for name, per in report.items():
        macro_r = statistics.fmean(m["recall@10"] for m in per.values())
        macro_m = statistics.fmean(m["mrr"] for m in per.values())
        cells = "  ".join(f"{ds} {m['recall@10']:.3f}/{m['mrr']:.3f}" for ds, m in per.items())
        print(f"{name:26s} {cells}  macro {macro_r:.3f}/{macro_m:.3f}")
    if out:
        with open(out, "w") as fh:
            json.dump(report, fh, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("dump", "score"))
    ap.add_argument("rows", nargs="*")
    add_suite_options(ap)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.mode == "score":
        score(args.rows, args.out)
        return
    dump_rows(DumpRun, args, 20)


if __name__ == "__main__":
    main()
