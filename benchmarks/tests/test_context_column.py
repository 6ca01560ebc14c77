"""The BM25F variant of context_column.py: each column normalised by its own length."""

from __future__ import annotations

import math

import pytest
from bench_helpers import load_bench_script

context_column = load_bench_script("context_column")


def test_bm25f_matches_the_formula_by_hand() -> None:
    docs = {1: (["cat", "sat"], ["dog"]), 2: (["mat"], ["cat", "cat", "rug"])}
    idf = 0.7
    scores = context_column.bm25f_scores(docs, [["cat"]], [idf], 0.2)
    own_norm = 1 - 0.75 + 0.75 * 2 / 1.5  # own lengths 2 and 1: mean 1.5
    expected = idf * (1 / own_norm) / (1 / own_norm + 1.2)
    assert scores[1] == pytest.approx(expected)
    ctx_norm = 1 - 0.75 + 0.75 * 3 / 2  # context lengths 1 and 3: mean 2
    tf = 0.2 * 2 / ctx_norm
    assert scores[2] == pytest.approx(idf * tf / (tf + 1.2))


def test_a_long_turn_before_a_line_does_not_lower_its_own_words() -> None:
    # FTS5 normalises by the whole row: the same line after a long turn scored lower;
    # BM25F normalises the own column by its own length only
    short_ctx = (["ann", "globex"], ["hi"])
    long_ctx = (["ann", "globex"], ["so", "how", "was", "the", "weekend", "at", "the", "lake"])
    docs = {1: short_ctx, 2: long_ctx, 3: (["jo", "lunch"], [])}
    scores = context_column.bm25f_scores(docs, [["globex"]], [1.0], 0.2)
    assert scores[1] == pytest.approx(scores[2])
    fts = context_column.row_score
    avgdl = sum(len(o) + len(c) for o, c in docs.values()) / 3
    assert fts(*short_ctx, [["globex"]], [1.0], avgdl, 0.2) > fts(
        *long_ctx, [["globex"]], [1.0], avgdl, 0.2
    )
    assert not math.isnan(scores[3]) and scores[3] == 0.0
