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


def test_the_context_fills_only_the_words_a_line_lacks() -> None:
    # issue 46's gap rule: a query word the line holds counts in the line alone; one it lacks
    # counts through the turn before at ``weight`` (``alone`` when the line holds no query word)
    means = (2.0, 2.0)
    both = context_column.gap_score(
        ["ann", "globex"], ["ann", "globex"], [["globex"]], [1.0], means, 0.5, 0.2
    )
    own = context_column.gap_score(["ann", "globex"], [], [["globex"]], [1.0], means, 0.5, 0.2)
    assert both == pytest.approx(own)  # the context never doubles a word the line has
    supported = context_column.gap_score(
        ["ann", "x"], ["globex", "y"], [["ann"], ["globex"]], [1.0, 1.0], means, 0.5, 0.2
    )
    sat = 1 * 2.2 / (1 + 1.2)  # one hit, lengths at the mean
    assert supported == pytest.approx(sat + 0.5 * sat)
    echo = context_column.gap_score(
        ["jo", "x"], ["globex", "y"], [["globex"]], [1.0], means, 0.5, 0.2
    )
    assert echo == pytest.approx(0.2 * sat)  # a reply found through the line it answers


def test_a_name_in_every_context_no_longer_hides_the_line_that_says_it() -> None:
    # a 20-line chat of Ann (odd rows) and Jo; each row's context is the line before it, its
    # speaker label included, so "ann" is in every row and FTS5's idf gives it nothing: Jo's
    # reply to Ann's car line outranks every line of Ann's that holds only her name
    own = {r: ["ann", f"a{r}"] if r % 2 else ["jo", f"j{r}"] for r in range(1, 21)}
    own[5] = ["ann", "car", "red"]
    rows = {r: (words, own.get(r - 1, [])) for r, words in own.items()}
    phrases = [["ann"], ["car"]]
    names = {"ann", "jo"}
    fts = context_column.ranked(rows, phrases, context_column.variants(names)["context 0.2"])
    assert fts[:2] == [5, 6]  # the reply "jo j6" second, through its context alone
    gap = context_column.variants(names)["gap 0.5/0.2 both-column df names out"]
    top = context_column.ranked(rows, phrases, gap)
    assert top[0] == 5
    assert all(r % 2 for r in top)  # Ann's lines first: the name counts where it is said
