"""What a narrowed search counts as talked of: the words its filters' records hold."""

from __future__ import annotations

import pytest

from remem import Config, Memory
from remem.retrieve.query_terms import UNSEEN_MIN_RECORDS
from remem.retrieve.scoped_terms import held_tokens, in_scope, narrows
from remem.types import Filters

LEXICAL = {"indexing.mode": "sync", "embed.provider": "none"}


@pytest.fixture
def two_chats(tmp_path):
    """A hiking chat of UNSEEN_MIN_RECORDS lines about the hut, and a family chat of two
    lines, the last naming Kelvin at the hospital (医院)."""
    with Memory(tmp_path / "m.db", Config.load(env={}, overrides=LEXICAL)) as mem:
        mem.ingest_many(
            [
                {"id": f"h{i}", "session": "hike", "speaker": "Ann", "text": f"the hut, day {i}"}
                for i in range(UNSEEN_MIN_RECORDS)
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
    assert in_scope(two_chats.store, stats, family, None, at_least=UNSEEN_MIN_RECORDS) == (2, {})
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
