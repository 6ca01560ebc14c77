"""Which query tokens the lexical channel asks BM25 for (``prune_common``)."""

from __future__ import annotations

from helpers import memory_store_with
from remem.search.lexical import prune_common, weigh_terms
from remem.store.memory import InMemoryStore


def _store(docs: list[str]) -> InMemoryStore:
    return memory_store_with(*docs, indexed=True)[0]


# 100 records: "common" in all, "often" in 40, "some" in 10, "rare" in 2, "once" in 1
DOCS = [
    " ".join(
        w
        for w, every in (("common", 1), ("often", 2.5), ("some", 10), ("rare", 50), ("once", 100))
        if i % every == 0 or (w == "often" and i % 5 == 1)
    )
    for i in range(100)
]


def test_small_stores_keep_every_token():
    store = _store(DOCS)
    tokens = ["common", "rare", "often"]
    assert prune_common(store, tokens, 0.05, min_docs=1000, postings_budget=1) == tokens


def test_tokens_in_too_many_records_are_left_out():
    store = _store(DOCS)
    got = prune_common(store, ["common", "often", "some", "rare"], 0.2, min_docs=10)
    assert got == ["some", "rare"]  # in query order


def test_the_budget_keeps_the_rarest_tokens_that_fit():
    store = _store(DOCS)
    n, df = store.term_stats(["often", "some", "rare", "once"])
    assert (n, df["often"], df["some"], df["rare"], df["once"]) == (100, 40, 10, 2, 1)
    query = ["often", "some", "rare", "once"]
    assert prune_common(store, query, 1.0, 10, postings_budget=3) == ["rare", "once"]
    assert prune_common(store, query, 1.0, 10, postings_budget=13) == ["some", "rare", "once"]
    assert prune_common(store, query, 1.0, 10, postings_budget=0) == query  # no budget


def test_the_rarest_token_stays_when_none_fits():
    store = _store(DOCS)
    assert prune_common(store, ["common", "often"], 0.05, 10, postings_budget=1) == ["often"]
    assert prune_common(store, ["some", "often"], 1.0, 10, postings_budget=1) == ["some"]


def test_weigh_terms_scales_the_share_of_the_words_given():
    store = _store(["rare some", "rare", "some", "common"])
    found = [(r, s) for r, s in store.lexical_rescore([1, 2, 3], ["rare", "some"], 0.0).items()]
    share = store.lexical_rescore([1, 2, 3], ["rare"], 0.0)
    full = dict(found)
    for weight in (0.0, 0.5, 1.5):
        got = dict(weigh_terms(store, found, ["rare"], weight, 0.0))
        for rowid in (1, 2, 3):
            expected = full[rowid] + (weight - 1) * share.get(rowid, 0.0)
            assert abs(got[rowid] - expected) < 1e-9
    assert weigh_terms(store, found, ["rare"], 1.0, 0.0) is found  # 1: unchanged
    assert weigh_terms(store, found, [], 2.0, 0.0) is found
    up = weigh_terms(store, found, ["rare"], 3.0, 0.0)
    assert {r for r, _ in up[:2]} == {1, 2}  # the lines with the word first
    assert [s for _, s in up] == sorted((s for _, s in up), reverse=True)
