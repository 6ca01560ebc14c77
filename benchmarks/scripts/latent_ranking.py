"""Would the latent-term relevance re-rank the best few hits better than the pipeline's score?

Reads feature-dump rows augmented by benchmarks/scripts/sparse_features.py and, for each answerable
question, re-sorts its best N hits by (1 - alpha) x score / best score + alpha x its
calibrated relevance with the latent cosine (``LATENT_CALIBRATIONS``), leaving the rest in
place. Reports MRR per dataset before and after (benchmarks/results/latent-ranking.json).

PYTHONPATH=src:benchmarks/scripts python benchmarks/scripts/latent_ranking.py /var/tmp/xs-sparse.jsonl \
    /var/tmp/xs-lme-sparse.jsonl --out benchmarks/results/latent-ranking.json
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from suite_cli import rows_and_out
from two_model_relevance import _e5, load

from remem.embed.calibrations import LATENT_CALIBRATIONS

CALIBRATION = LATENT_CALIBRATIONS["multilingual-e5-small"]
SHAPES = [(n, alpha) for n in (3, 5, 10) for alpha in (0.5, 1.0)]


def first_gold(hits: list[dict]) -> float:
    return next((1 / (i + 1) for i, h in enumerate(hits) if h["gold"]), 0.0)


def reranked(row: dict, n: int, alpha: float) -> list[dict]:
    hits = row["hits"][:10]
    top = hits[:n]
    if any(h["cos"] is None or "scos" not in h for h in top):
        return hits
    best = top[0]["score"] or 1.0

    def key(h: dict) -> float:
        return (1 - alpha) * h["score"] / best + alpha * CALIBRATION(*_e5(row, h), h["scos"])

    return sorted(top, key=lambda h: -key(h)) + hits[n:]


def report(rows: list[dict]) -> dict:
    out: dict = {}
    for ds in sorted({r["dataset"] for r in rows}):
        ans = [r for r in rows if r["dataset"] == ds and r["kind"] == "ans"]
        cell = {
            "n": len(ans),
            "pipeline": round(float(np.mean([first_gold(r["hits"][:10]) for r in ans])), 4),
        }
        for n, alpha in SHAPES:
            got = np.mean([first_gold(reranked(r, n, alpha)) for r in ans])
            cell[f"best {n}, alpha {alpha}"] = round(float(got), 4)
        out[ds] = cell
    return out


def main() -> None:
    args = rows_and_out()
    got = report(load(args.rows))
    for ds, cell in got.items():
        print(ds, cell)
    if args.out:
        Path(args.out).write_text(json.dumps(got, indent=1) + "\n")


if __name__ == "__main__":
    main()
