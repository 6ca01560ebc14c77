"""Fit the relevance calibration (remem/retrieve/relevance.py) on calibration_features.py rows.

A logistic regression per hit: positives are gold hits of answerable questions, negatives
every hit of an off-topic (no-answer) question. Then the floor: for each candidate floor,
the share of answerable questions whose best hit falls below it (their recall is lost) and
the share of no-answer questions whose best hit clears it (false injections).

PYTHONPATH=src python bench/fit_calibration.py /tmp/features-*.jsonl
"""

from __future__ import annotations

import json
import sys

import numpy as np


def load(paths: list[str]) -> list[dict]:
    rows = []
    for path in paths:
        with open(path) as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    return rows


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 50) -> np.ndarray:
    """Logistic regression by Newton's method (IRLS), balanced classes, small L2."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    cw = np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-xb @ w))
        g = xb.T @ (cw * (p - y)) + l2 * w
        h = (xb * (cw * p * (1 - p))[:, None]).T @ xb + l2 * np.eye(len(w))
        w -= np.linalg.solve(h, g)
    return w


def best_relevance(row: dict, w: np.ndarray) -> float:
    best = 0.0
    for h in row["hits"]:
        if h["cos"] is None:
            continue
        z = w[0] + w[1] * h["cos"] + w[2] * h["cov"]
        best = max(best, 1 / (1 + np.exp(-z)))
    return best


def main() -> None:
    rows = load(sys.argv[1:])
    xs, ys = [], []
    for r in rows:
        for h in r["hits"]:
            if h["cos"] is None:
                continue
            if r["kind"] == "ans" and h["gold"]:
                xs.append((h["cos"], h["cov"]))
                ys.append(1)
            elif r["kind"] == "probe":
                xs.append((h["cos"], h["cov"]))
                ys.append(0)
    w = fit(np.array(xs), np.array(ys, float))
    print(f"intercept={w[0]:.3f} cosine={w[1]:.3f} coverage={w[2]:.3f}  ({len(ys)} hits)")
    for ds in sorted({r["dataset"] for r in rows}):
        sub = [r for r in rows if r["dataset"] == ds]
        ans = [r for r in sub if r["kind"] == "ans"]
        probe = [r for r in sub if r["kind"] == "probe"]
        unans = [r for r in sub if r["kind"] == "unans"]
        rel = {id(r): best_relevance(r, w) for r in sub}
        print(f"-- {ds}: {len(ans)} answerable, {len(probe)} probes, {len(unans)} unanswerable")
        for floor in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95):
            lost = [r for r in ans if rel[id(r)] < floor]
            lost_hits = sum(any(h["gold"] for h in r["hits"]) for r in lost)
            fh = sum(rel[id(r)] >= floor for r in probe) / max(1, len(probe))
            fu = sum(rel[id(r)] >= floor for r in unans) / max(1, len(unans))
            print(
                f"floor {floor:.2f}: abstains on {len(lost) / max(1, len(ans)):.3f} of answerable"
                f" ({lost_hits} had a gold hit), false hits: no-answer {fh:.3f}, unanswerable"
                f" {fu:.3f}"
            )


if __name__ == "__main__":
    main()
