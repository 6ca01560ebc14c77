"""The answerability fit and its figures (remem_bench.answerability) on rows made here."""

from __future__ import annotations

import itertools
import random

import pytest

from remem_bench.answerability import (
    auc,
    best_cut,
    evaluate,
    fit,
    groups,
    isotonic,
    probability,
    reliability,
    tradeoff,
)


def rows(n: int = 200, seed: int = 7) -> list[dict]:
    """Questions whose gold hit has a higher ``signal`` than the rest; an unused input is None
    everywhere (as the answer-type slot is without its module)."""
    rng = random.Random(seed)
    out = []
    for q in range(n):
        kind = "ans" if q % 4 else "unans"
        hits = []
        for i in range(5):
            gold = kind == "ans" and i == 0
            signal = rng.gauss(1.5 if gold else 0.0, 1.0)
            hits.append(
                {"id": f"{q}-{i}", "gold": gold, "features": {"signal": signal, "unused": None}}
            )
        out.append(
            {
                "dataset": "made",
                "kind": kind,
                "gold": [f"{q}-0"] if kind == "ans" else [],
                "best_margin": -1.0,
                "hits": hits,
            }
        )
    return out


def test_the_fit_leaves_out_an_input_no_hit_has_and_weighs_the_signal_up():
    fitted = fit(rows(), ["signal", "unused"])
    assert list(fitted["coefficients"]) == ["signal"]
    assert fitted["coefficients"]["signal"] > 0.5
    low = probability(fitted, {"signal": -1.0, "unused": None})
    high = probability(fitted, {"signal": 3.0})
    assert 0 < low < high < 1


def test_the_figures_read_the_gate_as_remem_does():
    data = rows()
    fitted = fit(data, ["signal"])
    figs = evaluate(data, fitted, search_t=0.0, recall_t=0.0)["made"]
    # every search answers at threshold 0 (the floors alone would answer none here)
    assert figs["search_empties_answerable"] == 0.0
    assert figs["recall@10_gated"] == figs["recall@10_ungated"] == pytest.approx(1.0)
    assert 0.5 < figs["auc_unanswerable"] <= 1.0
    shut = evaluate(data, fitted, search_t=1.0, recall_t=1.0)["made"]
    assert shut["search_empties_answerable"] == 1.0 and shut["recall@10_gated"] == 0.0
    assert sum(b["n"] for b in figs["reliability"]) == sum(len(r["hits"]) for r in data)


def test_auc_and_reliability_bins():
    assert auc([0.9, 0.8], [0.1, 0.2]) == 1.0 and auc([0.5], [0.5]) == 0.5
    assert auc([], [0.1]) is None
    bins = reliability([(0.05, False), (0.95, True), (1.0, True)])
    assert bins[0]["n"] == 1 and bins[9]["n"] == 2 and bins[9]["observed"] == 1.0


def test_the_monotone_calibration_is_increasing_and_reads_the_observed_share():
    data = rows(400)
    fitted = fit(data, ["signal"], monotone=True)
    knots = fitted["calibration"]
    assert len(knots) >= 2
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in itertools.pairwise(knots))
    # the pooled blocks keep the observed share: the hits' mean score is the share of answers
    scores = [probability(fitted, h["features"]) for r in data for h in r["hits"]]
    golds = [r["kind"] == "ans" and h["gold"] for r in data for h in r["hits"]]
    assert sum(scores) / len(scores) == pytest.approx(sum(golds) / len(golds), abs=0.02)
    # a violation is pooled: two bins out of order become one at their mean
    assert isotonic([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1], points=4) == [
        [0.1, 0.0],
        [0.25, 0.5],
        [0.4, 1.0],
    ]


def test_a_near_miss_set_is_reported_with_its_hosts_answerable_questions():
    host = [
        {**r, "host": "chat", "conv": i % 2, "lang": "en", "dataset": "chat"}
        for i, r in enumerate(rows(8))
    ]
    near = [
        {**r, "dataset": "near", "host": "chat", "conv": 0, "lang": "en", "kind": "unans"}
        for r in rows(2)
    ]
    found = groups(host + near)
    assert set(found) == {"chat", "near", "near en", "chat + near"}
    # the set's questions against the answerable ones of the conversation they are about
    assert found["near en"][:2] == near
    assert {r["conv"] for r in found["near en"][2:]} == {0}
    assert all(r["kind"] == "ans" for r in found["near en"][2:])
    assert len(found["chat + near"]) == len(host) + len(near)


def test_the_tradeoff_gives_every_threshold_and_the_point_at_three_percent_emptied():
    data = rows()
    fitted = fit(data, ["signal"])
    made = tradeoff(data, fitted, search_t=0.0)["made"]
    curve = made["curve"]
    assert [p["threshold"] for p in curve][:3] == [0.0, 0.01, 0.02]
    # a stricter threshold injects no more and empties no fewer
    for a, b in itertools.pairwise(curve):
        assert b["injects unanswerable"] <= a["injects unanswerable"]
        assert b["empties answerable"] >= a["empties answerable"]
    at3 = made["at 3% emptied"]
    assert at3["empties answerable"] <= 0.03
    stricter = [p for p in curve if p["threshold"] > at3["threshold"]]
    assert all(p["empties answerable"] > 0.03 for p in stricter)


def test_the_best_cut_does_not_move_under_a_monotone_recalibration():
    data = rows()
    fitted = fit(data, ["signal"])
    cut = best_cut(data, fitted)
    assert 0 < cut["answers at or above"] <= 1 and 0 < cut["unanswerable best below"] <= 1
    recalibrated = {**fitted, "calibration": [[0.0, 0.2], [1.0, 0.9]]}
    again = best_cut(data, recalibrated)
    assert again["closeness"] == cut["closeness"]
    assert again["answers at or above"] == cut["answers at or above"]


def test_a_chat_sets_own_speaker_probes_are_reported_against_its_chats():
    # fit_answerability.py's chat rows: a chat set's chats (answerable) and the same chats
    # said by another store's main speaker ("<set>:own_speaker", probes asked of that store)
    chats = [
        {**r, "dataset": "talk", "host": "talk", "conv": 0, "lang": "en", "kind": "ans"}
        for r in rows(8)
        if r["kind"] == "ans"
    ]
    probes = [
        {**r, "dataset": "talk:own_speaker", "host": "story", "conv": 0, "lang": "en"}
        | {"kind": "probe", "gold": []}
        for r in rows(4)
    ]
    found = groups(chats + probes)
    # not read as a near-miss set of the store it was asked of
    assert set(found) == {"talk", "talk:own_speaker", "talk + own_speaker en"}
    assert found["talk + own_speaker en"] == chats + probes


def test_a_chat_is_held_to_the_chat_threshold_and_a_question_is_not():
    data = rows(40)
    fitted = fit(data, ["signal"])
    for r in data:
        r["best_margin"] = 0.5  # every search clears its floors, as a known person's chat does
    chats = [
        {**r, "hits": [{**h, "features": {**h["features"], "chat_words": 0.0}} for h in r["hits"]]}
        for r in data
    ]
    assert evaluate(data, fitted, 0.3, 0.0, chat_t=1.0)["made"]["search_empties_answerable"] == 0
    held = evaluate(chats, fitted, 0.3, 0.0, chat_t=1.0)["made"]
    assert held["search_empties_answerable"] == 1.0  # no score reaches 1
    assert evaluate(chats, fitted, 0.3, 0.0)["made"]["search_empties_answerable"] == 0  # off
