"""benchmarks/scripts/attribute_auc.py: a question's evidence is the best over its top hits,
an unknown attribute is left out of ``auc_typed`` and counted as 0.5 in ``auc``."""

from __future__ import annotations

import pytest
from bench_helpers import load_bench_script

aa = load_bench_script("attribute_auc")


def _row(kind: str, *values: float | None) -> dict:
    return {"kind": kind, "hits": [{"features": {"attribute": v}} for v in values]}


def test_the_best_of_the_top_hits_counts():
    row = _row("ans", 0.0, None, 1.0, 0.7)
    assert aa.best(row, "attribute", 3) == 1.0
    assert aa.best(row, "attribute", 2) == 0.0
    assert aa.best(_row("ans", None), "attribute", 3) is None


def test_unknown_attributes_are_neutral_in_auc_and_left_out_of_auc_typed():
    rows = [_row("ans", 1.0), _row("ans", None), _row("unans", 0.0), _row("unans", None)]
    found = aa.figures(rows, "attribute", 10)
    assert found["auc_typed"] == 1.0
    # pairs: (1 vs 0) 1, (1 vs 0.5) 1, (0.5 vs 0) 1, (0.5 vs 0.5) 0.5 -> 0.875
    assert found["auc"] == pytest.approx(0.875, abs=0.001)
    assert found["known"] == {"answerable": 0.5, "unanswerable": 0.5}
