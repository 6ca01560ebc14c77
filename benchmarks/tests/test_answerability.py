"""The answerability fit and its figures (remem_bench.answerability) on rows made here."""

from __future__ import annotations

import random

import pytest

from remem_bench.answerability import auc, evaluate, fit, probability, reliability


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
