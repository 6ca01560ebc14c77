"""The gap rule's prototype (remem_bench.context_gap): its forms and FTS5-formula score."""

from __future__ import annotations

import pytest

from remem.store.memory.lexical_index import row_score
from remem_bench.context_gap import GapForm, fts_gap_score, gap_score


def test_forms_parse() -> None:
    assert GapForm.parse("0.5/0.2/names") == GapForm(0.5, 0.2, True)
    fts = GapForm.parse("0.5/0.1/names/fts")
    assert (fts.formula, fts.idf, fts.names_idf, fts.alone) == ("fts", "fts", "own", 0.1)
    assert GapForm.parse("0.5/0.2/fts/lidf/both").idf == "lucene"
    assert GapForm.parse("0.5/0.2/fts/lidf/both").names_idf == "both"
    assert GapForm.parse("0.5/0.2/names/fts/floor").idf == "floor"
    head = GapForm.parse("0.5/0.2/names/keep-scores/head10")
    assert (head.keep_scores, head.head, head.formula) == (True, 10, "bm25f")


def test_the_context_fills_only_what_the_line_lacks() -> None:
    own, context = ["ann", "globex"], ["globex", "work"]
    phrases, idfs = [["globex"], ["work"]], [1.0, 0.5]
    got = fts_gap_score(own, context, phrases, idfs, 4.0, 0.5, 0.2)
    # globex counts once from the line (not topped up by the context), work at 0.5
    expected = (
        row_score(own, context, [["globex"]], [1.0], 4.0, 0.0)
        + row_score(own, context, [["work"]], [0.5], 4.0, 0.5)
        - row_score(own, context, [["work"]], [0.5], 4.0, 0.0)
    )
    assert got == pytest.approx(expected)
    # today's rule tops the line's own word up from the context too
    assert row_score(own, context, [["globex"]], [1.0], 4.0, 0.2) > row_score(
        own, context, [["globex"]], [1.0], 4.0, 0.0
    )


def test_a_line_holding_no_query_word_gets_the_context_at_alone() -> None:
    phrases, idfs = [["globex"]], [1.0]
    alone = fts_gap_score(["deal"], ["globex"], phrases, idfs, 3.0, 0.5, 0.2)
    assert alone == pytest.approx(row_score(["deal"], ["globex"], phrases, idfs, 3.0, 0.2))
    assert fts_gap_score(["deal"], ["globex"], phrases, idfs, 3.0, 0.5, 0.0) == 0.0
    assert gap_score(["deal"], ["globex"], phrases, idfs, (1.0, 1.0), 0.5, 0.0) == 0.0
