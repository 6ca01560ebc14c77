"""The plain BM25 reference of keyword_vs_bm25.py and the query shapes it reports by."""

from __future__ import annotations

import math

import pytest

from remem.text.tokenize import Tokenizer
from remem_bench.keyword_reference import PlainBM25, is_dialogue, query_shapes


def test_bm25_matches_the_formula_by_hand() -> None:
    bm25 = PlainBM25({1: ["cat", "sat"], 2: ["dog", "sat", "sat", "mat"], 3: ["bird"]})
    idf_cat = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    norm = 1 - 0.75 + 0.75 * 2 / (7 / 3)
    expected = idf_cat * 1 * 2.5 / (1 + 1.5 * norm)
    assert bm25.scores(["cat"])[1] == pytest.approx(expected)
    assert 3 not in bm25.scores(["cat", "sat"])  # a record holding no query token
    assert bm25.top(["sat"], 1) == [2]  # twice "sat" beats once, despite the length
    # each distinct query token counts once
    assert bm25.scores(["cat", "cat"]) == bm25.scores(["cat"])


def test_bm25_over_remem_tokens_finds_a_chinese_line_by_its_bigrams() -> None:
    tok = Tokenizer("both")
    docs = {1: tok.index_tokens("小美对青霉素过敏"), 2: tok.index_tokens("小美喜欢喝咖啡")}
    assert PlainBM25(docs).top(tok.phrase_tokens("青霉素能用吗"), 1) == [1]


def test_query_shapes() -> None:
    chat = "Lily: morning!\nAssistant: Hi, how can I help?\nLily: what do I usually get?"
    assert is_dialogue(chat)
    assert query_shapes(chat, "dialogue") == [
        "all",
        "dialogue",
        "short",
        "latin",
        "category:dialogue",
    ]
    assert query_shapes(chat * 3, "d")[2] == "long"  # past the vector channel's 32 tokens
    assert query_shapes("小美喜欢喝什么？", "x")[1:4] == ["single", "short", "cjk"]
    assert query_shapes("Where does 王磊 live now?", "live")[3] == "latin"
    assert not is_dialogue("first line\nsecond line")
