"""Fit the relevance calibration (remem/retrieve/relevance.py) on cross_script_features.py rows.

A logistic regression per hit (the top 10 of each question): positives are gold hits of
answerable questions, negatives every hit of an off-topic (no-answer) question. A hit the
cross-script witness reads (``cross``) counts the better of its e5 cosine and the witness's
USE cosine mapped onto e5's scale, as the relevance stage does. Then the floor: for each
candidate floor, per dataset, the recall@10 lost on answerable questions whose best hit falls
below it and the share of off-topic probes and unanswerable questions whose best hit clears it.

PYTHONPATH=src python bench/fit_calibration.py /var/tmp/xs.jsonl  (rows of bench/cross_script_features.py)
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np

from remem.conversation.fast_lane import SCORE_LINE

A, B = SCORE_LINE["local:multilingual-e5-small"]
FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)


def load(paths: list[str]) -> list[dict]:
    rows = []
    for path in paths:
        with open(path) as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    return rows


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 60) -> np.ndarray:
    """Logistic regression by Newton's method (IRLS), balanced classes, small L2."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    cw = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(xb @ w, -30, 30)))
        g = xb.T @ (cw * (p - y)) + l2 * w
        h = (xb * (cw * p * (1 - p))[:, None]).T @ xb + l2 * np.eye(len(w))
        w -= np.linalg.solve(h, g)
    return w


def features(row: dict, hit: dict) -> tuple[float, float, float] | None:
    """(cosine, baseline, coverage) as the relevance stage sees them; None without a vector."""
    if hit["cos"] is None or row["base"] is None:
        return None
    cos = hit["cos"]
    if hit.get("cross"):
        cos = max(cos, row["base"] + A + B * (hit["ucos"] - row["ubase"]))
    return cos, row["base"], hit["cov"]


def best_relevance(row: dict, w: np.ndarray) -> float:
    best = 0.0
    for hit in row["hits"][:10]:
        f = features(row, hit)
        if f is not None:
            z = w[0] + w[1] * f[0] + w[2] * f[1] + w[3] * f[2]
            best = max(best, 1 / (1 + math.exp(-max(-30.0, min(30.0, z)))))
    return best


def recall10(row: dict) -> float:
    return sum(h["gold"] for h in row["hits"][:10]) / row["n_gold"] if row["n_gold"] else 0.0


def main() -> None:
    rows = load(sys.argv[1:])
    xs, ys = [], []
    for r in rows:
        for h in r["hits"][:10]:
            f = features(r, h)
            if f is None:
                continue
            if r["kind"] == "ans" and h["gold"]:
                xs.append(f)
                ys.append(1)
            elif r["kind"] == "probe":
                xs.append(f)
                ys.append(0)
    w = fit(np.array(xs), np.array(ys, float))
    print(
        f"intercept={w[0]:.3f} cosine={w[1]:.3f} baseline={w[2]:.3f} coverage={w[3]:.3f}"
        f"  ({len(ys)} hits)"
    )
    for ds in sorted({r["dataset"] for r in rows}):
        sub = [r for r in rows if r["dataset"] == ds]
        ans = [r for r in sub if r["kind"] == "ans"]
        probe = [r for r in sub if r["kind"] == "probe"]
        unans = [r for r in sub if r["kind"] == "unans"]
        rel = {id(r): best_relevance(r, w) for r in sub}
        total = sum(recall10(r) for r in ans) / max(1, len(ans))
        print(f"-- {ds}: {len(ans)} answerable, {len(probe)} probes, {len(unans)} unanswerable")
        for floor in FLOORS:
            kept = sum(recall10(r) for r in ans if rel[id(r)] >= floor) / max(1, len(ans))
            fp = sum(rel[id(r)] >= floor for r in probe) / max(1, len(probe))
            fu = sum(rel[id(r)] >= floor for r in unans) / max(1, len(unans))
            print(
                f"floor {floor:.2f}: recall@10 lost {total - kept:.3f}, answered: probes"
                f" {fp:.3f}, unanswerable {fu:.3f}"
            )


if __name__ == "__main__":
    main()
