"""Would the cross-script witness rank better, not only judge relevance? Offline, on rows of
benchmarks/scripts/cross_script_features.py: each hit the witness reads (``cross``) gains
weight x max(0, USE-mapped cosine - e5 cosine) / span over its final score, and the top 30
are ranked again. Prints and writes recall@5 / recall@10 / MRR per dataset and for
zh_groupchat's cross_lingual category, per (weight, span).

PYTHONPATH=src python benchmarks/scripts/cross_script_ranking.py /var/tmp/xs.jsonl --out results.json
"""

from __future__ import annotations

import argparse
import json

from remem.conversation.fast_lane import SCORE_LINE

A, B = SCORE_LINE["local:multilingual-e5-small"]
WEIGHTS = (0.0, 0.2, 0.4, 0.6, 1.0)
SPANS = (0.05, 0.1)


def rescored(row: dict, weight: float, span: float) -> list[bool]:
    """The row's hits ranked again, as gold flags, best first."""
    scored = []
    for h in row["hits"]:
        score = h["score"]
        if weight and h.get("cross") and h["cos"] is not None:
            mapped = row["base"] + A + B * (h["ucos"] - row["ubase"])
            score += weight * max(0.0, mapped - h["cos"]) / span
        scored.append((score, h["gold"]))
    scored.sort(key=lambda x: -x[0])
    return [gold for _, gold in scored]


def metrics(rows: list[dict], weight: float, span: float) -> dict[str, float]:
    r5 = r10 = mrr = 0.0
    for row in rows:
        gold = rescored(row, weight, span)
        n = row["n_gold"]
        r5 += sum(gold[:5]) / n
        r10 += sum(gold[:10]) / n
        mrr += next((1 / (i + 1) for i, g in enumerate(gold[:10]) if g), 0.0)
    k = max(1, len(rows))
    return {"recall@5": r5 / k, "recall@10": r10 / k, "mrr": mrr / k, "n": len(rows)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("features", nargs="+")
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = []
    for path in args.features:
        with open(path) as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    answerable = [r for r in rows if r["kind"] == "ans" and r["n_gold"]]
    groups = {
        ds: [r for r in answerable if r["dataset"] == ds] for ds in ("locomo", "zh_groupchat")
    }
    groups["zh_groupchat/cross_lingual"] = [
        r for r in groups["zh_groupchat"] if r["cat"] == "cross_lingual"
    ]
    out = []
    for weight in WEIGHTS:
        for span in SPANS:
            row = {"weight": weight, "span": span}
            for name, subset in groups.items():
                m = metrics(subset, weight, span)
                row[name] = {k: round(v, 4) for k, v in m.items()}
            out.append(row)
            print(
                weight,
                span,
                " | ".join(
                    f"{name} {row[name]['recall@5']:.3f} / {row[name]['recall@10']:.3f} / "
                    f"{row[name]['mrr']:.3f}"
                    for name in groups
                ),
            )
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
