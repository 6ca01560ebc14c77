"""Look for a per-query channel weight rule in benchmarks/scripts/channel_weights.py's rows, and test it on a
dataset it was not chosen on.

A rule is a stump: vector weight ``low`` when a feature is below a threshold, ``high`` when it
is not. For each dataset left out, the rule is chosen on the others (the mean over them of
recall@10 + MRR, each dataset counting once) and scored on the one left out against the
default fixed weight. A rule worth shipping wins where it was not chosen.

Also printed: for each feature, the best fixed weight per dataset inside each quartile of
the feature (if a feature explains why datasets want different weights, they agree within a
quartile).

PYTHONPATH=src python benchmarks/scripts/channel_weight_rules.py /var/tmp/cw.jsonl [more.jsonl] --out r.json
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict

from suite_cli import read_rows, rows_and_out

DEFAULT = 0.4


def load(paths: list[str]) -> list[dict]:
    return read_rows(paths)


def weights_of(rows: list[dict]) -> list[float]:
    return sorted(float(k.split("@")[1]) for k in rows[0] if k.startswith("r10@"))


def value(row: dict, w: float) -> float:
    return row[f"r10@{w}"] + row[f"mrr@{w}"]


def score(rows: list[dict], choose) -> dict[str, float]:
    n = max(1, len(rows))
    picks = [(r, choose(r)) for r in rows]
    return {
        "recall@10": sum(r[f"r10@{w}"] for r, w in picks) / n,
        "mrr": sum(r[f"mrr@{w}"] for r, w in picks) / n,
        "session_recall@10": sum(r[f"s10@{w}"] for r, w in picks) / n,
    }


def objective(by_ds: dict[str, list[dict]], choose) -> float:
    return statistics.fmean(
        s["recall@10"] + s["mrr"] for s in (score(rows, choose) for rows in by_ds.values())
    )


def stump(feature: str, threshold: float, low: float, high: float):
    return lambda r: low if r["f"][feature] < threshold else high


def thresholds(rows: list[dict], feature: str) -> list[float]:
    values = sorted(r["f"][feature] for r in rows)
    qs = {values[int(len(values) * q / 20)] for q in range(1, 20)}
    return sorted(qs)


def best_stump(by_ds: dict[str, list[dict]], ws: list[float], feats: list[str]) -> dict:
    pooled = [r for rows in by_ds.values() for r in rows]
    best = {"objective": objective(by_ds, lambda r: DEFAULT), "rule": None}
    for feature in feats:
        for t in thresholds(pooled, feature):
            for low in ws:
                for high in ws:
                    if low == high:
                        continue
                    o = objective(by_ds, stump(feature, t, low, high))
                    if o > best["objective"] + 1e-9:
                        best = {"objective": o, "rule": (feature, t, low, high)}
    return best


def quartiles(by_ds: dict[str, list[dict]], ws: list[float], feature: str) -> list[dict]:
    pooled = sorted(r["f"][feature] for rows in by_ds.values() for r in rows)
    cuts = [pooled[int(len(pooled) * q / 4)] for q in (1, 2, 3)]
    out = []
    for i in range(4):
        lo = cuts[i - 1] if i else float("-inf")
        hi = cuts[i] if i < 3 else float("inf")
        cell = {"range": [lo, hi]}
        for ds, rows in by_ds.items():
            inside = [r for r in rows if lo <= r["f"][feature] < hi]
            if len(inside) < 15:
                continue
            means = {w: statistics.fmean(value(r, w) for r in inside) for w in ws}
            best = max(means, key=lambda w: means[w])
            cell[ds] = {
                "n": len(inside),
                "best": best,
                "gain": round(means[best] - means[DEFAULT], 3),
            }
        out.append(cell)
    return out


def main() -> None:
    args = rows_and_out()
    rows = load(args.rows)
    ws = weights_of(rows)
    by_ds: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_ds[r["dataset"]].append(r)
    feats = sorted(rows[0]["f"])
    report: dict = {"fixed": {}, "oracle": {}, "quartiles": {}, "leave_one_out": {}}
    for ds, rs in by_ds.items():
        report["fixed"][ds] = {w: score(rs, lambda r, w=w: w) for w in ws}
        report["oracle"][ds] = score(rs, lambda r: max(ws, key=lambda x: value(r, x)))
        print(ds, len(rs), "oracle", {k: round(v, 3) for k, v in report["oracle"][ds].items()})
        for w in ws:
            s = report["fixed"][ds][w]
            print(f"  w={w}: r@10 {s['recall@10']:.3f} mrr {s['mrr']:.3f}")
    for feature in feats:
        report["quartiles"][feature] = quartiles(by_ds, ws, feature)
        print(feature)
        for cell in report["quartiles"][feature]:
            rng = cell["range"]
            print(
                f"  [{rng[0]:.3f}, {rng[1]:.3f})", {k: v for k, v in cell.items() if k != "range"}
            )
    if len(by_ds) > 1:
        for held in by_ds:
            train = {ds: rs for ds, rs in by_ds.items() if ds != held}
            found = best_stump(train, ws, feats)
            rule = found["rule"]
            choose = stump(*rule) if rule else (lambda r: DEFAULT)
            got, base = score(by_ds[held], choose), score(by_ds[held], lambda r: DEFAULT)
            report["leave_one_out"][held] = {"rule": rule, "held_out": got, "default": base}
            print(f"held out {held}: rule {rule}")
            print(
                f"  default r@10 {base['recall@10']:.3f} mrr {base['mrr']:.3f}"
                f" -> rule r@10 {got['recall@10']:.3f} mrr {got['mrr']:.3f}"
            )
        found = best_stump(by_ds, ws, feats)
        report["all"] = found
        print("chosen on all:", found)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
