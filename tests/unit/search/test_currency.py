"""The currency stage over a real in-memory store and the fold's facts (no model)."""

from __future__ import annotations

import dataclasses

from helpers import memory_store_with
from remem.config import Config
from remem.facts.extract import statements_of
from remem.facts.fold import fold
from remem.search.candidates import Candidate
from remem.search.currency import currency
from remem.store.queries import FactQuery
from remem.types import Fact, Filters
from unit.search.contexts import stage_context

LINES = (
    "I live in Shenzhen now",  # r0, the closed value
    "I moved to Shanghai",  # r1, the current value
    "Shenzhen dim sum was the best",  # r2, no fact
)


def store_with_facts():
    store, rowids = memory_store_with(*LINES)
    records = [store.get(f"r{i}") for i in range(len(LINES))]
    records = [dataclasses.replace(r, speaker_id="tom", speaker_label="Tom") for r in records]
    store.put_facts(fold(s for r in records for s in statements_of(r)))
    return store, rowids


def ranked(store, rowids, scores: dict[int, float], query: str, **ctx_fields) -> list[str]:
    cands = []
    for i, score in scores.items():
        c = Candidate(rowid=rowids[i], record=store.get(f"r{i}"))
        c.set("relevance", score)
        cands.append(c)
    ctx = stage_context(query=query, now=100.0, k=10, config=Config(), store=store, **ctx_fields)
    out = currency(cands, ctx)
    return [c.record.id for c in sorted(out, key=lambda c: -c.score)]


def test_a_question_about_now_ranks_the_current_value_above_the_stale_one() -> None:
    store, rowids = store_with_facts()
    scores = {0: 0.9, 2: 0.8, 1: 0.5}
    assert ranked(store, rowids, scores, "Where does Tom live now?") == ["r1", "r0", "r2"]
    assert ranked(store, rowids, scores, "Where does Tom live?")[0] == "r1"  # no time word


def test_a_question_about_the_past_ranks_the_earlier_value_first() -> None:
    store, rowids = store_with_facts()
    scores = {1: 0.9, 0: 0.5, 2: 0.4}
    assert ranked(store, rowids, scores, "Where did Tom live before?")[:2] == ["r0", "r1"]


def test_the_current_value_is_brought_in_within_the_filters() -> None:
    store, rowids = store_with_facts()
    assert ranked(store, rowids, {0: 0.9, 2: 0.8}, "Where does Tom live now?")[0] == "r1"
    named = Filters(ids=["r0", "r2"])  # a search of named records stays among them
    assert "r1" not in ranked(store, rowids, {0: 0.9, 2: 0.8}, "Where now?", filters=named)


def test_a_stale_candidate_is_marked_with_what_replaced_it() -> None:
    store, rowids = store_with_facts()
    stale = Candidate(rowid=rowids[0], record=store.get("r0"), score=0.9)
    ctx = stage_context(query="where now", now=100.0, k=10, config=Config(), store=store)
    currency([stale], ctx)
    assert stale.earlier is not None and stale.earlier[1] == "Shanghai"
    assert stale.notes[0].startswith("earlier; since 1970-01-01: Shanghai")


def test_nothing_changes_without_facts() -> None:
    store, rowids = memory_store_with(*LINES)
    assert ranked(store, rowids, {0: 0.9, 1: 0.5}, "Where does Tom live now?") == ["r0", "r1"]


def test_the_asked_chains_current_value_leads_even_above_a_line_stating_no_fact() -> None:
    # "Tom, still a fan of the Shenzhen team?" outscores both: before the question was read,
    # the move only went above the stale line, and stayed second
    store, rowids = store_with_facts()
    scores = {2: 0.95, 0: 0.9, 1: 0.5}
    assert ranked(store, rowids, scores, "Where does Tom live now?")[0] == "r1"
    assert ranked(store, rowids, scores, "汤姆现在住在哪个城市？")[0] in ("r1", "r2")


def test_a_question_about_another_attribute_gets_no_lead() -> None:
    store, rowids = store_with_facts()
    scores = {2: 0.95, 0: 0.9, 1: 0.5}
    assert ranked(store, rowids, scores, "What is Tom's favourite food?")[0] == "r2"
    assert ranked(store, rowids, scores, "Where does Ann live now?")[0] == "r2"  # not Tom


def test_before_the_new_value_asks_for_the_old_one() -> None:
    store, rowids = store_with_facts()
    scores = {2: 0.95, 1: 0.9, 0: 0.5}
    assert ranked(store, rowids, scores, "Where did Tom live before Shanghai?")[0] == "r0"


def test_the_lead_can_be_switched_off() -> None:
    store, rowids = store_with_facts()
    config = Config()
    config.scoring.currency_ask = False
    cands = []
    for i, score in {2: 0.95, 0: 0.9, 1: 0.5}.items():
        c = Candidate(rowid=rowids[i], record=store.get(f"r{i}"))
        c.set("relevance", score)
        cands.append(c)
    ctx = stage_context(
        query="Where does Tom live now?", now=100.0, k=10, config=config, store=store
    )
    out = sorted(currency(cands, ctx), key=lambda c: -c.score)
    assert [c.record.id for c in out] == ["r2", "r1", "r0"]


def test_the_value_before_a_refined_one_is_the_old_value() -> None:
    # "I moved to Taipei, Da'an district" then "Da'an is great, I live in Da'an": the fold
    # closes the first wording, but the value before the move is Taichung
    lines = ("I live in Taichung", "I moved to Taipei Daan", "I live in Daan now", "Daan is nice")
    store, rowids = memory_store_with(*lines)
    records = [
        dataclasses.replace(store.get(f"r{i}"), speaker_id="lin", speaker_label="Lin", created_at=i)
        for i in range(len(lines))
    ]
    store.put_facts(fold(s for r in records for s in statements_of(r)))
    scores = {3: 0.95, 1: 0.9, 2: 0.8, 0: 0.5}
    assert ranked(store, rowids, scores, "Where did Lin live before Taipei?")[0] == "r0"


def test_still_with_a_closed_value_named_leads_with_the_line_that_ended_it() -> None:
    lines = (
        "I have a hamster called Peanut",
        "Sad news, Peanut died on Friday",
        "I have a cat called Miso",
        "Peanut loved carrots",
    )
    store, rowids = memory_store_with(*lines)
    records = [
        dataclasses.replace(store.get(f"r{i}"), speaker_id="kenji", speaker_label="Kenji")
        for i in range(len(lines))
    ]
    records = [dataclasses.replace(r, created_at=float(i)) for i, r in enumerate(records)]
    store.put_facts(fold(s for r in records for s in statements_of(r)))
    scores = {3: 0.95, 0: 0.9, 2: 0.6, 1: 0.5}
    assert ranked(store, rowids, scores, "Does Kenji still have Peanut?")[0] == "r1"
    assert ranked(store, rowids, scores, "What pet does Kenji have now?")[0] == "r2"


def test_still_with_a_replaced_value_leads_with_what_replaced_it() -> None:
    # Shenzhen ended by a negation (r1), then Shanghai (r2): "still in Shenzhen?" is answered
    # by where Tom lives now, not by the line that only ended Shenzhen
    lines = ("I live in Shenzhen", "I left Shenzhen", "I live in Shanghai now", "Shenzhen was fun")
    store, rowids = memory_store_with(*lines)
    tom = {"scope": "global", "subject": "name:tom", "subject_name": "Tom"}
    store.put_facts(
        [
            Fact(
                id="f0",
                attribute="lives_in",
                value="Shenzhen",
                said_at=0.0,
                valid_from=0.0,
                valid_to=1.0,
                source_ids=("r0",),
                closed_by="r1",
                **tom,
            ),
            Fact(
                id="f1",
                attribute="lives_in",
                value="Shanghai",
                said_at=2.0,
                valid_from=2.0,
                source_ids=("r2",),
                **tom,
            ),
        ]
    )
    scores = {3: 0.95, 0: 0.9, 1: 0.6, 2: 0.5}
    assert ranked(store, rowids, scores, "Does Tom still live in Shenzhen?")[0] == "r2"


def partners(name: str, old: str, new: str, lines: tuple[str, ...]):
    """A store of four lines whose facts say ``name`` was with ``old`` (r0, ended by r1),
    then with ``new`` (r2); r3 says nothing of either."""
    store, rowids = memory_store_with(*lines)
    who = {"scope": "global", "subject": f"name:{name.casefold()}", "subject_name": name}
    ended = {"valid_to": 1.0, "closed_by": "r1"}
    store.put_facts(
        [
            Fact(
                id="f0",
                attribute="partner",
                value=old,
                said_at=0.0,
                valid_from=0.0,
                source_ids=("r0",),
                **ended,
                **who,
            ),
            Fact(
                id="f1",
                attribute="partner",
                value=new,
                said_at=2.0,
                valid_from=2.0,
                source_ids=("r2",),
                **who,
            ),
        ]
    )
    return store, rowids


def test_a_question_with_no_time_word_about_a_replaced_value_leads_with_its_ending() -> None:
    # "Why did Liu and Xiaoya break up?" asks about the value that ended, not about the one
    # that replaced it; "still ... ?" (the present) is answered by the replacement
    en = (
        "I'm with Xiaoya, three years now",
        "Xiaoya and I broke up",
        "I'm dating Linlin now",
        "Linlin and I plan to marry next year",
    )
    store, rowids = partners("Liu", "Xiaoya", "Linlin", en)
    scores = {3: 0.95, 2: 0.9, 0: 0.6, 1: 0.5}
    assert ranked(store, rowids, scores, "Why did Liu and Xiaoya break up?")[0] == "r1"
    assert ranked(store, rowids, scores, "Is Liu still with Xiaoya?")[0] == "r2"
    zh = ("跟小雅在一起三年了", "我跟小雅分手了", "林琳，我女朋友", "我跟林琳打算明年结婚")
    store, rowids = partners("刘洋", "小雅", "林琳", zh)
    assert ranked(store, rowids, scores, "刘洋和小雅为什么分手？")[0] == "r1"
    assert ranked(store, rowids, scores, "刘洋现在还和小雅在一起吗？")[0] == "r2"


def sports_store(speaker: str, lines: tuple[str, ...]):
    store, rowids = memory_store_with(*lines)
    records = [
        dataclasses.replace(store.get(f"r{i}"), speaker_label=speaker, created_at=float(i))
        for i in range(len(lines))
    ]
    store.put_facts(fold(s for r in records for s in statements_of(r)))
    assert len({f.value for f in store.facts(FactQuery(attribute="likes"))}) == 2  # none closed
    return store, rowids


def test_a_question_about_the_past_of_a_chain_nothing_closed_leads_with_the_first_value() -> None:
    # two sports liked side by side, none given up: "before" asks for the one said first
    scores = {2: 0.95, 1: 0.9, 3: 0.6, 0: 0.5}
    en = (
        "I love badminton",
        "I love tennis too",
        "Tennis lessons are going well",
        "Sunday badminton",
    )
    store, rowids = sports_store("Kai", en)
    assert ranked(store, rowids, scores, "What sport did Kai play before?")[0] == "r0"
    assert ranked(store, rowids, scores, "What sport does Kai play?")[0] == "r2"  # no time word
    zh = ("我每周日打羽毛球", "我改打网球了", "网球课上得不错", "周日又去打羽毛球")
    store, rowids = sports_store("郑凯", zh)
    assert ranked(store, rowids, scores, "郑凯以前打什么球？")[0] == "r0"


def test_a_plan_said_again_with_another_date_answers_with_the_last_said() -> None:
    lines = (
        "My knee surgery is booked for March 18 at St Mary's",
        "The hospital called, surgery postponed to April 22",
        "The knee has been bad all week",
    )
    store, rowids = memory_store_with(*lines)
    records = [
        dataclasses.replace(store.get(f"r{i}"), speaker_label="Dad", created_at=float(i))
        for i in range(len(lines))
    ]
    store.put_facts(fold(s for r in records for s in statements_of(r)))
    assert len(store.facts(FactQuery(attribute="plan"))) == 2
    scores = {0: 0.95, 2: 0.9, 1: 0.6}
    assert ranked(store, rowids, scores, "When is Dad's knee surgery now?")[0] == "r1"
    assert ranked(store, rowids, scores, "When is Dad's surgery?")[0] == "r1"
    assert ranked(store, rowids, scores, "When was Dad's surgery originally booked?")[0] == "r0"


def test_the_line_that_ended_a_value_is_not_marked_as_no_longer_true() -> None:
    # "I moved out of Berlin" is the only source of the Berlin fact it closes: it states what
    # is true now, so it is neither demoted nor labelled "earlier; no longer true" (make demo's
    # Alice showed it so); a line that said "I live in Berlin" before it still is
    lines = ("I live in Berlin", "Also I moved out of Berlin.", "Berlin has great bakeries")
    for said in (lines[1:], lines):
        store, rowids = memory_store_with(*said)
        records = [
            dataclasses.replace(store.get(f"r{i}"), speaker_id="alice", speaker_label="Alice")
            for i in range(len(said))
        ]
        records = [dataclasses.replace(r, created_at=float(i)) for i, r in enumerate(records)]
        store.put_facts(fold(s for r in records for s in statements_of(r)))
        cands = [
            Candidate(rowid=rowids[i], record=store.get(f"r{i}"), score=0.9)
            for i in range(len(said))
        ]
        ctx = stage_context(
            query="Where does Alice live now?", now=100.0, k=10, config=Config(), store=store
        )
        currency(cands, ctx)
        marked = {c.record.id: c.earlier for c in cands}
        moved_out = "r0" if len(said) == 2 else "r1"
        assert marked[moved_out] is None, said
        if len(said) == 3:
            assert marked["r0"] is not None  # "I live in Berlin" is no longer true
