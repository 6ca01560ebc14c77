"""Fit the relevance calibration (remem/search/relevance.py) on cross_script_features.py rows.

A logistic regression per hit (the top 10 of each question): positives are gold hits of
answerable questions, negatives every hit of an off-topic (no-answer) question. A hit the
cross-script witness reads (``cross``) counts the better of its e5 cosine and the witness's
USE cosine mapped onto e5's scale, as the relevance stage does. Then the floor: for each
candidate floor, per dataset, the recall@10 lost on answerable questions whose best hit falls
below it and the share of off-topic probes and unanswerable questions whose best hit clears it.

With ``--lane``, every hit is read as the fast lane reads a record still waiting for e5: its
USE cosine mapped onto e5's scale (``ingest/fast_lane.SCORE_LINE``), as if the whole
store waited. That fits the lane's own calibration (``relevance.LANE_CALIBRATIONS``), and the
floor table is printed for it and for the e5 calibration read on those mapped cosines (what a
waiting record got before it had its own).

PYTHONPATH=src python benchmarks/scripts/fit_calibration.py [--lane] [--out=F.json] /var/tmp/xs.jsonl
(rows of benchmarks/scripts/cross_script_features.py)
"""

from __future__ import annotations

import json
import math
import sys
import zlib

import numpy as np
from suite_cli import read_rows

from remem.embed.calibrations import CALIBRATIONS
from remem.embed.fast_model import SCORE_LINE

A, B = SCORE_LINE["local:multilingual-e5-small"]
FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)


def load(paths: list[str]) -> list[dict]:
    return read_rows(paths)


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


LANE = "--lane" in sys.argv


def features(row: dict, hit: dict) -> tuple[float, float, float] | None:
    """(cosine, baseline, coverage) as the relevance stage sees them; None without a vector."""
    if hit["cos"] is None or row["base"] is None:
        return None
    mapped = row["base"] + A + B * (hit["ucos"] - row["ubase"])
    if LANE:
        return mapped, row["base"], hit["cov"]
    cos = hit["cos"]
    if hit.get("cross"):
        cos = max(cos, mapped)
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


def floor_table(rows: list[dict], w: np.ndarray) -> dict:
    table: dict = {}
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
            table.setdefault(ds, {})[floor] = {
                "recall@10 lost": round(total - kept, 4),
                "probes answered": round(fp, 4),
                "unanswerable answered": round(fu, 4),
            }
    return table


def main() -> None:
    rows = load([a for a in sys.argv[1:] if not a.startswith("--")])
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
    report: dict = {
        "fitted": dict(
            zip(("intercept", "cosine", "baseline", "coverage"), w.round(3).tolist(), strict=True)
        ),
        "hits": len(ys),
        "lane": LANE,
        "floors (fitted)": floor_table(rows, w),
    }
    if LANE:
        e5 = CALIBRATIONS["multilingual-e5-small"]
        e5w = np.array([e5.intercept, e5.cosine, e5.baseline, e5.coverage])
        print("== the e5 calibration read on the lane's mapped cosines")
        report["floors (e5 calibration, every record waiting)"] = floor_table(rows, e5w)
        print("== a share of the records waiting (the rest judged as today), at floor 0.25")
        shares = report["floor 0.25, a share waiting"] = {}
        for share in (0.1, 0.3, 0.6, 1.0):
            for name, judge in (("e5 calibration", e5w), ("lane calibration", w)):
                got = shares[f"{share:.0%} waiting, {name}"] = waiting_share(
                    rows, e5w, judge, share
                )
                print(f"   {share:.0%} waiting, {name}:", got)
    out = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--out=")), None)
    if out:
        with open(out, "w") as fh:
            json.dump(report, fh, indent=1)


def _waits(hit_id: str, share: float) -> bool:
    return zlib.crc32(hit_id.encode()) % 1000 < share * 1000


def waiting_share(rows: list[dict], e5w: np.ndarray, judge: np.ndarray, share: float) -> dict:
    """Per dataset at floor 0.25: recall@10 lost and probes answered when the records a hash
    picks (``share`` of them) wait for e5 and are judged by ``judge`` on their mapped cosine."""
    out = {}
    for ds in sorted({r["dataset"] for r in rows}):
        sub = [r for r in rows if r["dataset"] == ds]
        lost = answered = 0.0
        n_ans = n_probe = 0
        for r in sub:
            best = 0.0
            for hit in r["hits"][:10]:
                if hit["cos"] is None or r["base"] is None:
                    continue
                waits = _waits(hit["id"], share)
                cos = r["base"] + A + B * (hit["ucos"] - r["ubase"]) if waits else hit["cos"]
                if not waits and hit.get("cross"):
                    cos = max(cos, r["base"] + A + B * (hit["ucos"] - r["ubase"]))
                w = judge if waits else e5w
                z = w[0] + w[1] * cos + w[2] * r["base"] + w[3] * hit["cov"]
                best = max(best, 1 / (1 + math.exp(-max(-30.0, min(30.0, z)))))
            if r["kind"] == "ans":
                n_ans += 1
                lost += recall10(r) if best < 0.25 else 0.0
            elif r["kind"] == "probe":
                n_probe += 1
                answered += best >= 0.25
        out[ds] = {
            "recall@10 lost": round(lost / max(1, n_ans), 3),
            "probes answered": round(answered / max(1, n_probe), 3),
        }
    return out


if __name__ == "__main__":
    main()
