"""The fact extractor's floor on the capture set, scored exactly as the benchmark scores it
(``remem_bench.fact_extraction.capture_set``): precision >= 0.95 and recall >= 0.80 per
language, and nothing read from any non-statement (issue 48)."""

from __future__ import annotations

import pytest

from remem_bench.fact_extraction import capture_set


@pytest.fixture(scope="module")
def report() -> dict:
    return capture_set()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_precision_and_recall_floor(report, lang):
    tally = report["by_language"][lang]
    assert tally["gold"] >= 70, "the gold file lost its statements"
    assert tally["precision"] >= 0.95, f"{lang} precision {tally['precision']:.3f}"
    assert tally["recall"] >= 0.80, f"{lang} recall {tally['recall']:.3f}"


def test_nothing_is_read_from_a_non_statement(report):
    assert report["utterances"] >= 300
    assert report["non_statement_statements"] == 0
