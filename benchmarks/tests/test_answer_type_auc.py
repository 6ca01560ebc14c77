"""benchmarks/scripts/answer_type_auc.py: the AUC ranks answerable evidence above unanswerable
evidence (ties half), unknown types are left out of ``auc`` and counted as 0.5 in ``auc_all``,
and a hit is read with the turns around it in its own session only."""

from __future__ import annotations

import pytest
from bench_helpers import load_bench_script

ata = load_bench_script("answer_type_auc")


def _row(answerable: bool, evidence: float | None, lang: str = "en") -> dict:
    return {
        "answerable": answerable,
        "evidence": evidence,
        "margin": 0.0,
        "lang": lang,
        "type": None if evidence is None else "place",
    }


def test_auc_counts_ties_half_and_needs_both_sides():
    assert ata.auc([1.0, 0.5], [0.0]) == 1.0
    assert ata.auc([0.5], [0.5]) == 0.5
    assert ata.auc([0.0], [1.0]) == 0.0
    assert ata.auc([], [1.0]) is None


def test_unknown_types_are_left_out_of_auc_and_neutral_in_auc_all():
    rows = [_row(True, 1.0), _row(True, None), _row(False, 0.0), _row(False, None)]
    found = ata.summarise(rows)
    assert found["auc"] == 1.0
    # pairs: (1.0 vs 0.0) 1, (1.0 vs 0.5) 1, (0.5 vs 0.0) 1, (0.5 vs 0.5) 0.5 -> 0.875
    assert found["auc_all"] == pytest.approx(0.875, abs=0.001)
    assert found["typed"] == {"answerable": 0.5, "unanswerable": 0.5}
    assert found["by_type"]["place"]["n_answerable"] == 1


def test_report_splits_by_language():
    rows = [_row(True, 1.0, "en"), _row(False, 0.0, "en"), _row(True, 0.0, "zh")]
    out = ata.report(rows)
    assert out["en"]["auc"] == 1.0 and out["zh"]["auc"] is None
    assert out["all"]["n_answerable"] == 2


def test_neighbours_stay_in_the_session():
    turns = [
        {"id": "a", "session": "s1", "speaker": "Tom", "text": "where to?"},
        {"id": "b", "session": "s1", "speaker": "Ann", "text": "Hangzhou"},
        {"id": "c", "session": "s2", "speaker": "Tom", "text": "back home"},
    ]
    around = ata.neighbours_of(turns)
    assert around["b"] == ["Ann: Hangzhou", "Tom: where to?"]
    assert around["c"] == ["Tom: back home"]
