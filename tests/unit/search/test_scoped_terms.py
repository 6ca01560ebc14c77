"""What a narrowed search counts as talked of: the words its filters' records hold."""

from __future__ import annotations

import pytest

from remem import Config, Memory
from remem.search.query_terms import UNSEEN_MIN_RECORDS
from remem.search.scoped_terms import held_tokens, in_scope, narrows
from remem.types import Filters

LEXICAL = {"indexing.mode": "sync", "embed.provider": "none"}


@pytest.fixture
def two_chats(tmp_path):
    """A hiking chat of 120 lines about the hut, and a family chat of two lines, the last
    naming Kelvin at the hospital (医院)."""
    with Memory(tmp_path / "m.db", Config.load(env={}, overrides=LEXICAL)) as mem:
        mem.ingest_many(
            [
                {"id": f"h{i}", "session": "hike", "speaker": "Ann", "text": f"the hut, day {i}"}
                for i in range(120)
            ]
            + [
                {"id": "f1", "session": "family", "speaker": "Bo", "text": "the hut again"},
                {"id": "f2", "session": "family", "speaker": "Bo", "text": "Kelvin 今天去医院了"},
            ],
            wait=True,
        )
        yield mem


def _stats(mem, query):
    tokens = mem.searcher.tokenizer.query_tokens(query)
    return mem.store.term_stats(tokens)


def test_a_search_without_filters_counts_the_whole_store(two_chats):
    stats = _stats(two_chats, "Kelvin hut")
    assert set(stats[1]) == {"kelvin", "hut"}
    assert in_scope(two_chats.store, stats, None, None, at_least=UNSEEN_MIN_RECORDS) == stats
    assert not narrows(Filters()) and narrows(Filters(exclude_ids=["f1"]))


def test_words_only_another_chat_holds_are_unseen_to_a_narrowed_search(two_chats):
    stats = _stats(two_chats, "Kelvin hut")
    hike = Filters(sessions=["hike"])
    n, df = in_scope(two_chats.store, stats, hike, None, at_least=UNSEEN_MIN_RECORDS)
    assert n == UNSEEN_MIN_RECORDS  # counted no further than the rules ask
    assert df == {"hut": stats[1]["hut"]}  # the store's count, for a word the chat holds


def test_a_narrowed_search_of_few_records_asks_nothing_of_the_index(two_chats):
    stats = _stats(two_chats, "Kelvin hut")
    family = Filters(sessions=["family"])
    store = Counting(two_chats.store)
    assert in_scope(store, stats, family, None, at_least=UNSEEN_MIN_RECORDS) == (2, {})
    assert store.probes == []  # two records: the rules are off, no word is probed
    # the words themselves are there, as a probe of the index finds
    assert held_tokens(two_chats.store, ["kelvin", "hut", "zebra"], family, None) == {
        "kelvin",
        "hut",
    }


def test_the_turn_left_out_by_id_does_not_hold_its_own_words(two_chats):
    # the chat path archives the turn before it recalls, and leaves the turn out by id (no
    # later line holds its words in its context yet)
    everyone = Filters(exclude_ids=["f2"])
    assert held_tokens(two_chats.store, ["kelvin", "hut"], everyone, None) == {"hut"}


def test_a_translation_only_another_chat_holds_is_not_held(two_chats):
    translator = two_chats.searcher.translator
    asked = "Hospital 和 Kelvin 在哪？"
    assert translator.translate(asked, ["Kelvin"]).held_english == {"hospit"}
    hike = Filters(sessions=["hike"])
    assert translator.translate(asked, ["Kelvin"], hike, None).held_english == set()
    family = Filters(sessions=["family"])
    assert translator.translate(asked, ["Kelvin"], family, None).held_english == {"hospit"}


def test_a_narrowed_search_weighs_words_by_the_records_it_may_return(tmp_path):
    # chat a: Caroline in every line but one, the hut in one; chat b: the hut in every line.
    # Store-wide, "caroline" is the rare word; in chat a, "hut" is
    chat_a = [
        {"id": f"a{i}", "session": "a", "speaker": "Mel", "text": f"Caroline went out, day {i}"}
        for i in range(60)
    ] + [{"id": "booked", "session": "a", "speaker": "Mel", "text": "the hut is booked now"}]
    chat_b = [
        {"id": f"b{i}", "session": "b", "speaker": "Bo", "text": f"the hut is old, day {i}"}
        for i in range(600)
    ]
    config = Config.load(env={}, overrides=LEXICAL)
    asked = {"k": 3, "channels": ("lexical",)}
    with Memory(tmp_path / "shared.db", config) as shared:
        shared.ingest_many(chat_a + chat_b, wait=True)
        narrowed = shared.search("Caroline's hut", filters=Filters(sessions=["a"]), **asked)
        whole = shared.search("Caroline's hut", **asked)
    with Memory(tmp_path / "own.db", config) as own:
        own.ingest_many(chat_a, wait=True)
        alone = own.search("Caroline's hut", **asked)
    assert [h.record.id for h in narrowed.hits][:1] == ["booked"]
    assert [h.record.id for h in narrowed.hits] == [h.record.id for h in alone.hits]
    assert whole.hits and whole.hits[0].record.id != "booked"  # the store's counts: Caroline


def test_only_a_scope_under_half_the_store_counts_its_own_words(two_chats, monkeypatch):
    from remem.search import scoped_terms
    from remem.search.scoped_terms import scoped_stats, statistics_scope

    store, n = two_chats.store, two_chats.store.count()
    family, hike = Filters(sessions=["family"]), Filters(sessions=["hike"])
    assert statistics_scope(store, family, n) is family
    assert statistics_scope(store, hike, n) is None  # 120 of 122: the store's counts
    assert statistics_scope(store, None, n) is None
    stats = _stats(two_chats, "Kelvin hut")
    assert scoped_stats(store, ["kelvin", "hut"], family, None, 0.05, stats) == (
        2,
        {"kelvin": 1, "hut": 2},  # "hut" also in f2's context (the turn before it)
    )
    # a word held by very many records is given its share of the store, not walked
    monkeypatch.setattr(scoped_terms, "COUNT_BUDGET", 50)
    assert scoped_stats(store, ["kelvin", "hut"], family, None, 0.05, stats) == (
        2,
        {"kelvin": 1, "hut": round(stats[1]["hut"] * 2 / n)},
    )


class Counting:
    """A store that counts what a search asks of it."""

    def __init__(self, store):
        self.store, self.counts, self.probes = store, 0, []

    def count(self, *args, **kwargs):
        self.counts += 1
        return self.store.count(*args, **kwargs)

    def lexical_newest(self, query, limit):
        self.probes += query.tokens
        return self.store.lexical_newest(query, limit)


def test_filters_that_only_leave_records_out_keep_the_stores_counts_uncounted(two_chats):
    from remem.search.scoped_terms import statistics_scope

    store = Counting(two_chats.store)
    for only_out in (Filters(exclude_ids=["f2"]), Filters(exclude_roles=["assistant"])):
        assert statistics_scope(store, only_out, 122) is None
    assert store.counts == 0


def test_a_word_held_by_very_many_records_is_held_unasked(two_chats, monkeypatch):
    from remem.search import scoped_terms

    monkeypatch.setattr(scoped_terms, "PROBE_MAX", 50)
    store = Counting(two_chats.store)
    stats = _stats(two_chats, "Kelvin hut")
    hike = Filters(sessions=["hike"])
    n, df = in_scope(store, stats, hike, None, at_least=UNSEEN_MIN_RECORDS, wanted=["kelvin"])
    assert (n, df) == (UNSEEN_MIN_RECORDS, {})  # only the question's own words are asked
    assert store.probes == ["kelvin"]
    assert held_tokens(store, ["hut", "kelvin"], hike, None, stats[1]) == {"hut"}
    assert store.probes == ["kelvin", "kelvin"]  # "hut" (122 records) was not probed


def test_a_search_without_its_keyword_channel_weighs_words_as_the_channel_would(two_chats):
    from remem.search.query_terms import query_weights, weigh_query
    from remem.search.scoped_terms import scoped_stats
    from unit.search.contexts import stage_context

    def ctx(filters):
        return stage_context(
            query="Kelvin hut",
            now=0.0,
            k=5,
            config=two_chats.config,
            store=two_chats.store,
            filters=filters,
            tokenizer=two_chats.searcher.tokenizer,
        )

    family = Filters(sessions=["family"])
    tokens = ["kelvin", "hut"]
    stats = two_chats.store.term_stats(tokens)
    scoped = scoped_stats(two_chats.store, tokens, family, 0.0, 0.05, stats)
    channel, store_wide = ctx(family), ctx(family)
    weigh_query(channel, tokens, {}, stats, scoped)  # what the keyword channel does
    weigh_query(store_wide, tokens, {}, stats)
    assert query_weights(ctx(family)) == channel.understood.weights
    assert channel.understood.weights != store_wide.understood.weights  # 2 records: general weights
