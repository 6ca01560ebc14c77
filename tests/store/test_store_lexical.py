"""Store conformance: BM25 lexical search over a record's tokens and its context, and the
document frequencies query pruning asks for. The last test holds the in-memory BM25 to the
scores SQLite FTS5 gives on the same rows."""

from __future__ import annotations

import random

import pytest
from conformance import T, fields

from remem.search.lexical import lexical_candidates
from remem.store.memory import InMemoryStore
from remem.store.queries import LexicalQuery, TextUpdate
from remem.store.sqlite import SQLiteStore
from remem.types import Filters


def random_rows(rng: random.Random, words: list[str], n: int, most: int) -> list[tuple]:
    """``n`` records whose tokens and context are up to ``most`` random ``words`` each."""
    return [
        (
            fields(i),
            " ".join(rng.choices(words, k=rng.randint(0, most))),
            " ".join(rng.choices(words, k=rng.randint(0, most))),
        )
        for i in range(n)
    ]


def add(store, n, tokens, context="", **extra):
    (rowid,) = store.insert_records([(fields(n, **extra), tokens, context)])
    return rowid


def test_a_rarer_matching_term_ranks_higher(store):
    rare = add(store, 1, "zebra filler")
    common = add(store, 2, "cat filler")
    for n in range(3, 8):
        add(store, n, f"cat other{n}")
    hits = store.lexical_search(LexicalQuery(["zebra", "cat"], None), 3)
    assert hits[0][0] == rare
    assert common in [r for r, _ in hits]
    assert all(score > 0 for _, score in hits)
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)


def test_more_matching_terms_and_repeats_rank_higher(store):
    both = add(store, 1, "apple banana")
    once = add(store, 2, "apple cherry")
    twice = add(store, 3, "apple apple")
    add(store, 4, "durian")
    add(store, 5, "elder")
    ranked = [r for r, _ in store.lexical_search(LexicalQuery(["apple", "banana"], None), 10)]
    assert ranked[0] == both and set(ranked) == {both, once, twice}
    ranked = [r for r, _ in store.lexical_search(LexicalQuery(["apple"], None), 10)]
    assert ranked[0] == twice


def test_lexical_search_applies_filters_before_the_limit(store):
    rowids = [add(store, n, "shared word", scope="a" if n % 2 else "b") for n in range(1, 9)]
    memory = add(store, 9, "shared", kind="memory", valid_to=T + 100)
    hits = store.lexical_search(LexicalQuery(["shared"], Filters(scopes=["a"])), 2)
    assert len(hits) == 2 and {r for r, _ in hits} <= set(rowids[::2])
    current = Filters(include_superseded=False)
    assert memory in [
        r for r, _ in store.lexical_search(LexicalQuery(["shared"], current, T + 50), 20)
    ]
    assert memory not in [
        r for r, _ in store.lexical_search(LexicalQuery(["shared"], current, T + 200), 20)
    ]
    assert store.lexical_search(LexicalQuery(["shared"], Filters(kinds=[])), 5) == []


def test_the_context_column_counts_only_when_weighted(store):
    own = add(store, 1, "rocket launch", "weather")
    context_only = add(store, 2, "weather today", "rocket launch")
    add(store, 3, "unrelated words", "")
    assert [r for r, _ in store.lexical_search(LexicalQuery(["rocket"], None), 10)] == [own]
    weighted = store.lexical_search(LexicalQuery(["rocket"], None, None, 0.3), 10)
    assert [r for r, _ in weighted] == [own, context_only]  # own tokens weigh more
    assert store.lexical_search(LexicalQuery(["rocket"], None, None, -1.0), 10)[0][0] == own
    heavy = store.lexical_search(LexicalQuery(["rocket"], None, None, 5.0), 10)
    assert heavy[0][0] == context_only


def test_no_tokens_no_hits(store):
    add(store, 1, "something")
    assert store.lexical_search(LexicalQuery([], None), 10) == []
    assert store.lexical_search(LexicalQuery(["", ""], None), 10) == []
    assert store.lexical_search(LexicalQuery(["absent"], None), 10) == []


def test_query_syntax_is_not_interpreted(store):
    rowid = add(store, 1, "and or not near")
    for token in ['"', "NEAR(a b)", "a*", "col:x", "OR"]:
        store.lexical_search(LexicalQuery([token], None), 5)  # no syntax error
    assert [r for r, _ in store.lexical_search(LexicalQuery(["OR"], None), 5)] == [
        rowid
    ]  # case folded


def test_term_stats_count_records_holding_each_token(store):
    add(store, 1, "apple banana", "cherry")
    add(store, 2, "apple", "apple")
    add(store, 3, "", index_status="skipped")  # stored only: counted, holds nothing
    n, df = store.term_stats(["apple", "banana", "cherry", "missing"])
    assert n == 3
    assert df == {"apple": 2, "banana": 1, "cherry": 1}  # context counts; absent left out


def test_term_stats_and_rescoring_follow_every_write_between_searches(store):
    # The SQLite store keeps the counts it read until the next write: none may outlive one.
    first = add(store, 1, "apple banana")
    add(store, 2, "apple")
    assert store.term_stats(["apple", "banana"]) == (2, {"apple": 2, "banana": 1})
    before = store.lexical_rescore([first], ["apple", "banana"], 0.0)
    third = add(store, 3, "banana cherry")
    assert store.term_stats(["apple", "banana"]) == (3, {"apple": 2, "banana": 2})
    store.delete(["r2"])
    assert store.term_stats(["apple", "banana", "cherry"]) == (
        2,
        {"apple": 1, "banana": 2, "cherry": 1},
    )
    for query in (["apple", "banana"], ["banana cherry", "apple"]):
        want = dict(store.lexical_search(LexicalQuery(query, None), 10))
        got = store.lexical_rescore([first, third], query, 0.0)
        assert got == pytest.approx(want, rel=1e-9), query
    assert got[first] != pytest.approx(before[first])


def test_term_stats_see_what_another_connection_wrote(tmp_path):
    path = tmp_path / "m.db"
    reader, writer = SQLiteStore(path), SQLiteStore(path)
    try:
        add(reader, 1, "apple")
        assert reader.term_stats(["apple"]) == (1, {"apple": 1})
        add(writer, 2, "apple pear")
        assert reader.term_stats(["apple", "pear"]) == (2, {"apple": 2, "pear": 1})
    finally:
        reader.close()
        writer.close()


def test_lexical_tokens_are_each_records_own_indexed_tokens(store):
    a = add(store, 1, "apple banana apple", "cherry")
    b = add(store, 2, "durian")
    skipped = add(store, 3, "", index_status="skipped")
    got = store.lexical_tokens([a, b, skipped, 999_999])
    assert got == {a: ["apple", "banana", "apple"], b: ["durian"]}  # no context, no empties
    store.update_text(TextUpdate(b, "new text", "h2", "elder fig"))
    assert store.lexical_tokens([b]) == {b: ["elder", "fig"]}
    store.delete(["r1"])
    assert store.lexical_tokens([a, b]) == {b: ["elder", "fig"]}
    assert store.lexical_tokens([]) == {}


def test_common_words_are_skipped_only_in_big_stores(store):
    rows = [(fields(i), "common" + (" rare" if i == 7 else "")) for i in range(40)]
    rowids = store.insert_records(rows)
    everything = store.lexical_search(LexicalQuery(["common", "rare"], None), 100)
    assert len(everything) == 40  # small store: nothing pruned
    options = {"context_weight": 0.0, "max_df": 0.5, "prune_min_docs": 10}
    pruned = lexical_candidates(store, ["common", "rare"], None, 100, None, **options)
    assert [r for r, _ in pruned] == [rowids[7]]  # "common" is in every record: skipped
    only_common = lexical_candidates(store, ["common"], None, 100, None, **options)
    assert len(only_common) == 40  # all tokens common: the rarest is kept


@pytest.mark.parametrize("context_weight", [0.0, 0.4, 2.0])
def test_in_memory_bm25_scores_equal_fts5s(tmp_path, context_weight):
    rng = random.Random(7)
    words = [f"w{i}" for i in range(25)] + ["Élan", "foo-bar"]  # folded; split into a phrase
    rows = random_rows(rng, words, 150, 10)
    sqlite, memory = SQLiteStore(tmp_path / "s.db"), InMemoryStore()
    sqlite.insert_records(rows)
    memory.insert_records(rows)
    for _ in range(60):
        query = rng.sample([*words, "élan", "w1 w2"], k=rng.randint(1, 4))
        want = dict(sqlite.lexical_search(LexicalQuery(query, None, None, context_weight), 1000))
        got = dict(memory.lexical_search(LexicalQuery(query, None, None, context_weight), 1000))
        assert got.keys() == want.keys(), query
        for rowid, score in want.items():
            assert got[rowid] == pytest.approx(score, rel=1e-9), (query, rowid)
    sqlite.close()


@pytest.mark.parametrize("context_weight", [0.0, 0.4])
def test_rescoring_some_rows_gives_the_scores_the_search_gives(store, context_weight):
    rng = random.Random(11)
    words = [f"w{i}" for i in range(20)] + ["Élan", "foo-bar"]  # folded; split into a phrase
    rows = random_rows(rng, words, 120, 9)
    rowids = store.insert_records(rows)
    store.delete(["r3", "r40"])  # the statistics follow deletes
    for _ in range(40):
        query = rng.sample([*words, "élan", "w1 w2", "absent"], k=rng.randint(1, 5))
        want = dict(store.lexical_search(LexicalQuery(query, None, None, context_weight), 1000))
        some = rng.sample(rowids, 30)
        got = store.lexical_rescore(some, query, context_weight)
        assert got.keys() == {r for r in some if r in want}, query
        for rowid, score in got.items():
            assert score == pytest.approx(want[rowid], rel=1e-9), (query, rowid)
    assert store.lexical_rescore([], ["w1"], context_weight) == {}
    assert store.lexical_rescore(rowids[:5], [], context_weight) == {}


def test_a_big_store_searches_in_two_passes_rare_words_first(store):
    # 60 records: "rare" in 3, "mid" in 20, "common" in 40 (one record holds "mid" alone)
    rows = []
    for i in range(60):
        words = ["rare"] * (i < 3) + ["mid"] * (i < 20) + ["common"] * (i < 40)
        rows.append((fields(i), " ".join(words) or "filler"))
    rowids = store.insert_records(rows)
    options = {"context_weight": 0.0, "max_df": 0.9, "prune_min_docs": 10}
    one_pass = lexical_candidates(store, ["rare", "mid", "common"], None, 5, None, **options)
    two = lexical_candidates(
        store, ["rare", "mid", "common"], None, 5, None, first_pass_budget=3, **options
    )
    # the 3 rows holding "rare", scored for all 3 words as the one-pass search scores them
    assert [r for r, _ in two] == [r for r, _ in one_pass[:3]] == rowids[:3]
    assert [s for _, s in two] == pytest.approx([s for _, s in one_pass[:3]], rel=1e-9)
    # rows without a rare word are not found by a two-pass search (one pass finds them)
    assert len(one_pass) == 5 and len(two) == 3


@pytest.mark.parametrize("context_weight", [0.0, 0.3])
def test_two_passes_score_as_one_whatever_the_words(store, context_weight):
    # The second pass adds the other words' share to the first pass's BM25: equal to one
    # pass over all words for every row the first pass found, repeated words included.
    rng = random.Random(5)
    words = ["rare", "rarer", *(f"w{i}" for i in range(8)), "foo-bar"]
    weights = [1, 1, *([12] * 8), 4]
    rows = [
        (
            fields(i),
            " ".join(rng.choices(words, weights, k=6)),
            " ".join(rng.choices(words, weights, k=4)),
        )
        for i in range(80)
    ]
    store.insert_records(rows)
    options = {"context_weight": context_weight, "max_df": 0.99, "prune_min_docs": 10}
    for query in (["rare", "w1", "w2"], ["w3", "rarer", "w3", "foo-bar"], ["rare", "rare", "w0"]):
        one = dict(lexical_candidates(store, query, None, 200, None, **options))
        two = lexical_candidates(store, query, None, 50, None, first_pass_budget=12, **options)
        assert two and len(two) < len(one), query  # two passes ran, and kept fewer rows
        for rowid, score in two:
            assert score == pytest.approx(one[rowid], rel=1e-9), (query, rowid)


def test_newest_rows_holding_a_word_come_without_scoring(store):
    a = add(store, 1, "apple", "pear")
    b = add(store, 2, "apple apple")
    c = add(store, 3, "banana", "apple", scope="user:x")
    d = add(store, 4, "foo-bar")
    assert store.lexical_newest(LexicalQuery(["apple"], None), 10) == [b, a]  # own tokens only
    assert store.lexical_newest(LexicalQuery(["apple"], None, None, 0.2), 10) == [c, b, a]
    assert store.lexical_newest(LexicalQuery(["apple"], None), 1) == [b]
    assert store.lexical_newest(
        LexicalQuery(["apple", "pear"], Filters(scopes=["user:x"]), None, 0.2), 5
    ) == [c]
    assert store.lexical_newest(LexicalQuery(["foo-bar"], None), 5) == [
        d
    ]  # a phrase, adjacent terms
    assert store.lexical_newest(LexicalQuery(["bar-foo"], None), 5) == []
    assert (
        store.lexical_newest(LexicalQuery([], None), 5)
        == []
        == store.lexical_newest(LexicalQuery(["apple"], None), 0)
    )


def test_a_query_of_common_words_only_reads_the_newest_rows_holding_the_rarest(store):
    rows = [(fields(i), "common" + (" often" if i % 2 else "")) for i in range(60)]
    rowids = store.insert_records(rows)
    options = {"context_weight": 0.0, "max_df": 0.5, "prune_min_docs": 10}
    found = lexical_candidates(
        store, ["common", "often"], None, 3, None, first_pass_budget=5, **options
    )
    # every word is common: the 4 x 3 newest rows holding the rarest ("often"), then scored
    # for the words asked; a small store (under prune_min_docs) is searched in one pass
    newest_often = sorted(r for i, r in enumerate(rowids) if i % 2)[-12:]
    assert len(found) == 3 and {r for r, _ in found} <= set(newest_often)
    small = {**options, "prune_min_docs": 100}
    assert (
        len(lexical_candidates(store, ["often"], None, 50, None, first_pass_budget=5, **small))
        == 30
    )


def test_a_scopes_own_counts_give_its_rows_their_bm25(store):
    # "apple" is in every line of scope x and in one of scope y's five: common in the store,
    # rare in y
    for n in range(1, 6):
        add(store, n, "apple filler", scope="x")
    lone = add(store, 6, "apple pie", "pear", scope="y")
    for n in range(7, 11):
        add(store, n, "other words", "pear", scope="y")
    y = Filters(scopes=["y"])
    assert store.phrase_counts(LexicalQuery(["apple", "pear", "kiwi", "apple-pie"], y)) == (
        5,
        {"apple": 1, "apple-pie": 1},  # own tokens only; a phrase counts as one
    )
    assert store.phrase_counts(LexicalQuery(["pear"], y, None, 0.2)) == (
        5,
        {"pear": 5},
    )  # context too
    assert store.phrase_counts(LexicalQuery(["apple"], None)) == (10, {"apple": 6})
    # rescoring with the store's own counts is the store's BM25: own column or both, a
    # phrase, a word only the context holds
    asked = ["pie", "pear", "apple-pie", "other"]
    for weight in (0.0, 0.2):
        hits = dict(store.lexical_search(LexicalQuery(asked, None, None, weight), 10))
        counts = store.phrase_counts(LexicalQuery(asked, None, None, weight))
        assert store.lexical_rescore(list(hits), asked, weight, stats=counts) == pytest.approx(hits)
        # and a scope's counts change it
        inside = store.lexical_rescore(list(hits), asked, weight, stats=(5, counts[1]))
        assert inside != pytest.approx(hits)
    # with y's counts the line holding y's rare word scores higher
    inside = store.lexical_rescore(
        [lone], ["apple"], 0.0, stats=store.phrase_counts(LexicalQuery(["apple"], y))
    )
    assert inside[lone] > store.lexical_rescore([lone], ["apple"], 0.0)[lone] * 100


def test_a_sessions_counts_are_its_own_records_with_every_other_filter(store):
    # what a chat's own-session recall asks: its kind, its scope, its session, minus the turn
    rng = random.Random(7)
    words = ["apple", "pear", "kiwi", "plum", "fig"]
    rows = [
        (
            fields(
                i, session=f"s{i % 4}", scope=f"u{i % 3}", kind=("message", "memory")[i % 5 == 0]
            ),
            " ".join(rng.choices(words, k=3)),
            " ".join(rng.choices(words, k=2)),
        )
        for i in range(200)
    ]
    store.insert_records(rows)
    scope = Filters(kinds=["message"], scopes=["u1"], sessions=["s2"], exclude_ids=["r10"])
    for weight in (0.0, 0.2):
        inside = [
            (own.split(), (own + " " + context).split())
            for f, own, context in rows
            if f["kind"] == "message"
            and f["scope"] == "u1"
            and f["session"] == "s2"
            and f["id"] != "r10"
        ]
        held = {w: sum(w in (both if weight else own) for own, both in inside) for w in words}
        assert store.phrase_counts(LexicalQuery(words, scope, None, weight)) == (
            len(inside),
            {w: c for w, c in held.items() if c},
        )
