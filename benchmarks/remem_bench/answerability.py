"""The answerability score's fit and its measurement, over rows dumped from the suite's stores.

A row is one question asked of one store: its dataset, its kind (``ans``: answerable, with
gold turns; ``unans``: an unanswerable question of the dataset, near misses included;
``probe``: a no-answer set question asked of the store), and its returned hits in the
pipeline's order (the top 10), each with its gold flag and every input of remem's answerability
score (``remem.search.answerability.FEATURES``, None where a search could not compute it).
``benchmarks/scripts/fit_answerability.py`` dumps them and fits; ``answerability_eval.py``
measures a fit.

The fit: a logistic regression per hit (positives: gold hits of answerable questions; every
other hit negative), on standardised features (a missing value counts as the feature's mean,
as the pipeline does), Newton's method with a small L2 penalty, unweighted so that the score
is a probability. A feature that is None for every training hit is left out, so the fit runs
with or without the answer-type module.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from remem.search.answerability import (
    QUESTION_INPUTS,
    QUESTION_ONLY,
    AnswerabilityModel,
    question_row,
)

Row = dict[str, Any]
BINS = 10


def training_hits(rows: Sequence[Row], features: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(X with NaN for a missing value, y) over every returned hit of ``rows``."""
    xs, ys = [], []
    for row in rows:
        for hit in row["hits"]:
            xs.append([_value(hit["features"].get(f)) for f in features])
            ys.append(1.0 if row["kind"] == "ans" and hit["gold"] else 0.0)
    return np.array(xs, float).reshape(-1, len(features)), np.array(ys, float)


def _value(v: float | None) -> float:
    return math.nan if v is None else float(v)


def present_features(rows: Sequence[Row], features: Sequence[str]) -> list[str]:
    """The features some hit has a value for (the answer-type slot is empty without its module)."""
    seen = {
        f
        for row in rows
        for hit in row["hits"]
        for f, v in hit["features"].items()
        if v is not None
    }
    return [f for f in features if f in seen]


def logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> np.ndarray:
    """Weights (intercept first) of a logistic regression by Newton's method, L2 on all but the
    intercept."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    penalty = l2 * np.eye(len(w))
    penalty[0, 0] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-np.clip(xb @ w, -30, 30)))
        g = xb.T @ (p - y) + penalty @ w
        h = (xb * (p * (1 - p))[:, None]).T @ xb + penalty + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(h, g)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w


def fit(
    rows: Sequence[Row], features: Sequence[str], l2: float = 1.0, monotone: bool = False
) -> dict[str, Any]:
    """The fit in the shape ``remem/data/answerability.json`` keeps under "fit"; with
    ``monotone``, the logistic's output is calibrated by ``isotonic`` on the same hits."""
    fitted, raw, y = _logistic_fit(rows, features, l2)
    if monotone:
        fitted["calibration"] = isotonic(raw.tolist(), y.tolist())
    return fitted


def fit_two_part(
    rows: Sequence[Row],
    features: Sequence[str],
    l2: float = 1.0,
    monotone: bool = False,
    per_question: bool = False,
    question_inputs: Sequence[str] = QUESTION_INPUTS,
) -> dict[str, Any]:
    """The score as two parts (``AnswerabilityModel``): the question's, fitted on every
    question with hits (positive: an answerable question whose answer is among its hits) over
    ``question_inputs`` (all of ``QUESTION_INPUTS``); the hit's, fitted on the questions whose
    answer is among their hits
    (positive: the answer) over ``features`` but the per-search constants.

    ``monotone`` calibrates the product by ``isotonic`` on every hit (is it an answer);
    ``per_question`` on each question's best hit instead (is an answer among its hits: what
    "a near miss's best hit scores under 0.5, an answer 0.5 or more" reads), a monotone map
    that moves no order, only where a share of the scores falls."""
    asked = [r for r in rows if r["hits"]]
    questions = [
        {
            "kind": "ans" if _answer_found(r) else "unans",
            "hits": [{"gold": True, "features": question_row([h["features"] for h in r["hits"]])}],
        }
        for r in asked
    ]
    question, _, _ = _logistic_fit(questions, list(question_inputs), l2)
    found = [r for r in asked if _answer_found(r)]
    fitted, _, _ = _logistic_fit(found, [f for f in features if f not in QUESTION_ONLY], l2)
    fitted["question"] = question
    fitted["questions"] = len(asked)
    model = AnswerabilityModel.from_dict({"fit": fitted})  # not cached: it changes here
    if per_question:
        best = [
            max(model.probability(h["features"], _question(r)) for h in r["hits"]) for r in asked
        ]
        fitted["calibration"] = isotonic(best, [float(_answer_found(r)) for r in asked])
        fitted["calibrated_on"] = "the best hit of each question: an answer among its hits"
    elif monotone:
        raw = [model.probability(h["features"], _question(r)) for r in asked for h in r["hits"]]
        gold = [float(r["kind"] == "ans" and h["gold"]) for r in asked for h in r["hits"]]
        fitted["calibration"] = isotonic(raw, gold)
    return fitted


def _answer_found(row: Row) -> bool:
    return row["kind"] == "ans" and any(h["gold"] for h in row["hits"])


def _question(row: Row) -> dict[str, float | None]:
    return question_row([h["features"] for h in row["hits"]])


def _logistic_fit(
    rows: Sequence[Row], features: Sequence[str], l2: float
) -> tuple[dict[str, Any], np.ndarray, np.ndarray]:
    """One logistic part: its fit, its raw outputs on the training hits, their labels."""
    used = present_features(rows, features)
    x, y = training_hits(rows, used)
    mean = np.nanmean(x, axis=0)
    scale = np.nanstd(x, axis=0)
    scale[scale == 0] = 1.0
    z = np.nan_to_num((x - mean) / scale, nan=0.0)  # missing = the mean
    w = logistic(z, y, l2=l2)
    fitted: dict[str, Any] = {
        "intercept": round(float(w[0]), 5),
        "coefficients": {f: round(float(c), 5) for f, c in zip(used, w[1:], strict=True)},
        "mean": {f: round(float(m), 6) for f, m in zip(used, mean, strict=True)},
        "scale": {f: round(float(s), 6) for f, s in zip(used, scale, strict=True)},
        "hits": len(y),
        "positives": int(y.sum()),
    }
    raw = 1 / (1 + np.exp(-np.clip(w[0] + z @ w[1:], -30, 30)))
    return fitted, raw, y


def probability(
    fitted: dict[str, Any],
    hit_features: dict[str, float | None],
    question: dict[str, float | None] | None = None,
) -> float:
    """The score remem computes for a hit (``AnswerabilityModel.probability``, the same code)."""
    return _model(fitted).probability(hit_features, question)


def row_scores(fitted: dict[str, Any], row: Row) -> list[float]:
    """Each returned hit's score, the question's inputs read from the row's hits as the
    stage reads them from its best hits."""
    question = _question(row)
    return [probability(fitted, h["features"], question) for h in row["hits"]]


def _model(fitted: dict[str, Any]) -> AnswerabilityModel:
    key = id(fitted)
    if key not in _MODELS or _MODELS[key][0] is not fitted:
        _MODELS[key] = (fitted, AnswerabilityModel.from_dict({"fit": fitted}))
    return _MODELS[key][1]


_MODELS: dict[int, tuple[dict[str, Any], AnswerabilityModel]] = {}


def isotonic(pred: Sequence[float], y: Sequence[float], points: int = 40) -> list[list[float]]:
    """A monotone calibration of ``pred`` against the 0/1 outcomes ``y``: the predictions in
    ``points`` bins of equal count, then pool-adjacent-violators over the bins' observed shares
    (weighted by their counts); each pooled block a knot (its mean prediction, its observed
    share), for ``AnswerabilityModel.calibrated``."""
    order = np.argsort(pred, kind="stable")
    p, o = np.asarray(pred, float)[order], np.asarray(y, float)[order]
    blocks: list[list[float]] = []  # [mean prediction, observed share, weight]
    for part in np.array_split(np.arange(len(p)), min(points, len(p))):
        if len(part):
            blocks.append([float(p[part].mean()), float(o[part].mean()), float(len(part))])
            while len(blocks) > 1 and blocks[-2][1] >= blocks[-1][1]:
                (x0, y0, w0), (x1, y1, w1) = blocks[-2], blocks[-1]
                w = w0 + w1
                blocks[-2:] = [[(x0 * w0 + x1 * w1) / w, (y0 * w0 + y1 * w1) / w, w]]
    return [[round(x, 6), round(yv, 6)] for x, yv, _w in blocks]


def auc(pos: Sequence[float], neg: Sequence[float]) -> float | None:
    """The chance a random positive scores above a random negative (ties count half)."""
    if not pos or not neg:
        return None
    p, n = np.asarray(pos), np.asarray(neg)
    return float(np.mean([(v > n).mean() + 0.5 * (v == n).mean() for v in p]))


def reliability(pairs: Sequence[tuple[float, bool]], bins: int = BINS) -> list[dict[str, Any]]:
    """Predicted against observed in ``bins`` equal-width bins of the prediction."""
    out = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [(p, o) for p, o in pairs if lo <= p < hi or (b == bins - 1 and p == 1.0)]
        out.append(
            {
                "bin": f"{lo:.1f}-{hi:.1f}",
                "n": len(inside),
                "predicted": round(float(np.mean([p for p, _ in inside])), 3) if inside else None,
                "observed": round(float(np.mean([o for _, o in inside])), 3) if inside else None,
            }
        )
    return out


OWN_SPEAKER = ":own_speaker"  # a chat set's chats asked of other stores by their main speaker


def is_chat(row: Row) -> bool:
    """The question is a chat by people the store knows (its hits read ``chat_words``)."""
    return any(h["features"].get("chat_words") is not None for h in row["hits"])


def searched(row: Row, best: float, search_t: float, chat_t: float) -> bool:
    """remem's search gate: a candidate over its relevance floor, or the best hit at
    ``search_t``; a known person's chat also needs its best hit at ``chat_t``."""
    if is_chat(row) and best < chat_t:
        return False
    return row["best_margin"] >= 0 or best >= search_t


def recall10(row: Row, emptied: bool) -> float:
    gold = set(row["gold"])
    if emptied or not gold:
        return 0.0
    return len(gold & {h["id"] for h in row["hits"][:10]}) / len(gold)


def groups(rows: Sequence[Row]) -> dict[str, list[Row]]:
    """The row sets figures are given for: each dataset's own rows; for each chat set's
    own-speaker probes ("<chat set>:own_speaker", fit_answerability.py) "<chat set> +
    own_speaker <lang>", its chats in that language against the probes; and for each near-miss
    set (rows asked of another dataset's store: ``host`` is not ``dataset``)

    - "<set> <lang>": its questions in that language against the answerable questions in that
      language of the conversations it asks about (the English near-miss set, the Chinese one);
    - "<host> + <set>": the host dataset's rows with the set's questions about its
      conversations added to its unanswerable ones.
    """
    out: dict[str, list[Row]] = {}
    for name in sorted({r["dataset"] for r in rows}):
        out[name] = [r for r in rows if r["dataset"] == name]
    near = [
        r
        for r in rows
        if r.get("host", r["dataset"]) != r["dataset"] and OWN_SPEAKER not in r["dataset"]
    ]
    for name in sorted({r["dataset"] for r in rows if OWN_SPEAKER in r["dataset"]}):
        chats = name.removesuffix(OWN_SPEAKER)  # the chat set the probes were taken from
        for lang in sorted({r["lang"] for r in rows if r["dataset"] == name}):
            out[f"{chats} + {name.removeprefix(chats + ':')} {lang}"] = [
                r for r in rows if r["dataset"] in (name, chats) and r.get("lang") == lang
            ]
    for name in sorted({r["dataset"] for r in near}):
        mine = [r for r in near if r["dataset"] == name]
        for lang in sorted({r["lang"] for r in mine}):
            asked = [r for r in mine if r["lang"] == lang]
            convs = {(r["host"], r["conv"]) for r in asked}
            answerable = [
                r
                for r in rows
                if r["kind"] == "ans"
                and r["dataset"] == r.get("host", r["dataset"])
                and (r["dataset"], r["conv"]) in convs
                and r.get("lang") == lang
            ]
            out[f"{name} {lang}"] = asked + answerable
        for host in sorted({r["host"] for r in mine}):
            own = [r for r in rows if r["dataset"] == host]
            if own:
                out[f"{host} + {name}"] = own + [r for r in mine if r["host"] == host]
    return out


def evaluate(
    rows: Sequence[Row],
    fitted: dict[str, Any],
    search_t: float,
    recall_t: float,
    chat_t: float = 0.0,
) -> dict[str, Any]:
    """Per group of rows (``groups``): AUC of the best hit's score (unanswerable and probes against answerable),
    near misses below 0.5, answers at 0.5 or more, what search answers (a candidate over its
    relevance floor, or the best hit at ``search_t`` or more) and what auto-recall injects
    (of that, hits at ``recall_t`` or more), recall@10 with the search gate, and the
    reliability of every returned hit's score."""
    return {
        name: _dataset_figures(sub, fitted, search_t, recall_t, chat_t)
        for name, sub in groups(rows).items()
    }


def _dataset_figures(
    rows: Sequence[Row], fitted: dict[str, Any], search_t: float, recall_t: float, chat_t: float
) -> dict[str, Any]:
    scored = [row_scores(fitted, r) for r in rows]
    best = [max(s, default=0.0) for s in scored]
    # remem's gate: a search answers when a candidate cleared its relevance floor or its best
    # hit reaches the search threshold; auto-recall injects its hits that reach its own
    answers = [searched(r, b, search_t, chat_t) for r, b in zip(rows, best, strict=True)]
    injects = [a and b >= recall_t for a, b in zip(answers, best, strict=True)]
    ans = [i for i, r in enumerate(rows) if r["kind"] == "ans"]
    unans = [i for i, r in enumerate(rows) if r["kind"] == "unans"]
    probes = [i for i, r in enumerate(rows) if r["kind"] == "probe"]
    answer_scores = [
        max((p for p, h in zip(scored[i], rows[i]["hits"], strict=True) if h["gold"]), default=None)
        for i in ans
    ]
    found = [s for s in answer_scores if s is not None]
    pairs = [
        (p, bool(r["kind"] == "ans" and h["gold"]))
        for r, s in zip(rows, scored, strict=True)
        for p, h in zip(s, r["hits"], strict=True)
    ]

    def share(idx: list[int], test: Any) -> float | None:
        return round(sum(bool(test(i)) for i in idx) / len(idx), 4) if idx else None

    return {
        "n_answerable": len(ans),
        "n_unanswerable": len(unans),
        "n_probes": len(probes),
        "auc_unanswerable": _round(auc([best[i] for i in ans], [best[i] for i in unans])),
        "auc_probes": _round(auc([best[i] for i in ans], [best[i] for i in probes])),
        "unanswerable_best_below_0.5": share(unans, lambda i: best[i] < 0.5),
        "answer_found_at_0.5": round(sum(s >= 0.5 for s in found) / len(found), 4)
        if found
        else None,
        "n_answer_in_top10": len(found),
        "recall_injects_unanswerable": share(unans, lambda i: injects[i]),
        "recall_injects_probes": share(probes, lambda i: injects[i]),
        "recall_empties_answerable": share(ans, lambda i: not injects[i]),
        "search_answers_unanswerable": share(unans, lambda i: answers[i]),
        "search_answers_probes": share(probes, lambda i: answers[i]),
        "search_empties_answerable": share(ans, lambda i: not answers[i]),
        "recall@10_gated": _round(
            float(np.mean([recall10(rows[i], not answers[i]) for i in ans])) if ans else None
        ),
        "recall@10_ungated": _round(
            float(np.mean([recall10(rows[i], False) for i in ans])) if ans else None
        ),
        "reliability": reliability(pairs),
    }


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 4)


TRADEOFF_GRID = tuple(round(i / 100, 2) for i in range(0, 31))


def tradeoff(
    rows: Sequence[Row], fitted: dict[str, Any], search_t: float, most_emptied: float = 0.03
) -> dict[str, Any]:
    """Per group of rows (``groups``): auto-recall's whole trade-off, false injection against
    answerable questions emptied, for every recall threshold of ``TRADEOFF_GRID`` (the search
    gate at ``search_t``), and the operating point the target allows: the highest threshold
    (of every distinct best-hit score) that empties at most ``most_emptied`` of the answerable
    questions, and what it injects there; with unanswerable questions, ``best_cut``."""
    out: dict[str, Any] = {}
    for name, sub in groups(rows).items():
        best = [max(row_scores(fitted, r), default=0.0) for r in sub]
        curve = OperatingCurve(sub, best, search_t)
        entry: dict[str, Any] = {"curve": [curve.point(t) for t in TRADEOFF_GRID]}
        if curve.kinds["ans"]:
            within = [
                t
                for t in sorted({0.0, *(round(b, 4) for b in best)})
                if (curve.point(t)["empties answerable"] or 0.0) <= most_emptied
            ]
            entry[f"at {most_emptied:.0%} emptied"] = curve.point(max(within)) if within else None
        if curve.kinds["ans"] and curve.kinds["unans"]:
            entry["both 0.5 targets, best cut"] = best_cut(sub, fitted)
        out[name] = entry
    return out


class OperatingCurve:
    """What auto-recall does on a group of rows at a recall threshold: it injects when the
    search answers (a candidate over its floor, or the best hit at the search threshold) and
    the best hit reaches the recall threshold."""

    def __init__(self, rows: Sequence[Row], best: list[float], search_t: float) -> None:
        self.best = best
        self.answers = [
            r["best_margin"] >= 0 or b >= search_t for r, b in zip(rows, best, strict=True)
        ]
        self.kinds = {k: [i for i, r in enumerate(rows) if r["kind"] == k] for k in KINDS}

    def point(self, t: float) -> dict[str, float | None]:
        inject = [a and b >= t for a, b in zip(self.answers, self.best, strict=True)]
        share = {
            k: round(sum(inject[i] == (k != "ans") for i in idx) / len(idx), 4) if idx else None
            for k, idx in self.kinds.items()
        }
        return {
            "threshold": t,
            "injects unanswerable": share["unans"],
            "injects probes": share["probe"],
            "empties answerable": share["ans"],
        }


def best_cut(rows: Sequence[Row], fitted: dict[str, Any]) -> dict[str, float]:
    """Whether any monotone recalibration of ``fitted`` can meet both of issue 45's shares
    (an answer in the top 10 at 0.5 or more for 80% of answerable questions, the best hit
    under 0.5 for 90% of unanswerable ones): the cut of the raw score that comes closest to
    both (the highest smaller share of its target), and the two shares there. A calibration
    only moves where 0.5 falls, so if no cut meets both, none does."""
    answers, bests = [], []
    for r in rows:
        scores = row_scores(fitted, r)
        if r["kind"] == "unans":
            bests.append(max(scores, default=0.0))
        elif r["kind"] == "ans" and any(h["gold"] for h in r["hits"]):
            answers.append(max(p for p, h in zip(scores, r["hits"], strict=True) if h["gold"]))
    found: dict[str, float] = {}
    for cut in sorted({*answers, *bests}):
        above = sum(a >= cut for a in answers) / len(answers) if answers else 0.0
        below = sum(b < cut for b in bests) / len(bests)
        if min(above / 0.8, below / 0.9) > found.get("closeness", -1.0):
            found = {"closeness": min(above / 0.8, below / 0.9), "cut": cut}
            found |= {"answers at or above": above, "unanswerable best below": below}
    return {k: round(v, 4) for k, v in found.items()}


KINDS = ("ans", "unans", "probe")
