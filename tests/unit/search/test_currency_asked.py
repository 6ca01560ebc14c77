"""The currency stage's lead for what a question asks (issue 48): how a value ended, the value
at the start, the plans of a question naming nobody, a district under the city; English and
Chinese, over a real in-memory store and the extractor's own facts (no model)."""

from __future__ import annotations

import dataclasses

from helpers import memory_store_with
from remem.config import Config
from remem.facts.extract import statements_of
from remem.facts.fold import fold
from remem.search.candidates import Candidate
from remem.search.currency import currency
from unit.search.contexts import stage_context


def said_by(speaker: str, *lines: str):
    """A store of ``speaker``'s lines (r0, r1 ...; a second apart) and the facts they state."""
    store, rowids = memory_store_with(*lines)
    records = [
        dataclasses.replace(store.get(f"r{i}"), speaker_label=speaker, created_at=float(i))
        for i in range(len(lines))
    ]
    store.put_facts(fold(s for r in records for s in statements_of(r)))
    return store, rowids


def first(store, rowids, scores: dict[int, float], query: str) -> str:
    cands = []
    for i, score in scores.items():
        c = Candidate(rowid=rowids[i], record=store.get(f"r{i}"))
        c.set("relevance", score)
        cands.append(c)
    ctx = stage_context(query=query, now=100.0, k=10, config=Config(), store=store)
    return max(currency(cands, ctx), key=lambda c: c.score).record.id


def test_a_question_about_how_a_value_ended_leads_with_the_line_that_ended_it() -> None:
    # "What happened to Kenji's hamster?" asks about Peanut's death, not about the cat after
    en = (
        "I have a hamster called Peanut",
        "Sad news, Peanut died on Friday",
        "I adopted a cat called Miso",
        "Miso sleeps all day",
    )
    store, rowids = said_by("Kenji", *en)
    scores = {2: 0.95, 0: 0.9, 3: 0.7, 1: 0.5}
    assert first(store, rowids, scores, "What happened to Kenji's hamster?") == "r1"
    zh = (
        "我开那辆朗逸去，后座能放狗笼",
        "朗逸卖了，卖了三万二",
        "我买了一辆比亚迪",
        "比亚迪很省电",
    )
    store, rowids = said_by("陈静", *zh)
    assert first(store, rowids, scores, "陈静的旧车卖了多少钱？") == "r1"


def test_before_a_value_ended_asks_for_the_value_not_its_ending() -> None:
    lines = ("I have a hamster called Peanut", "Sad news, Peanut died on Friday", "Miso is my cat")
    store, rowids = said_by("Kenji", *lines)
    scores = {1: 0.95, 2: 0.9, 0: 0.5}
    assert first(store, rowids, scores, "What pet did Kenji have before Peanut died?") == "r0"


def test_a_question_about_the_start_leads_with_the_first_value() -> None:
    # the value before the current one is "senior designer"; "when she joined" asks the first
    en = ("I'm a junior designer here", "I'm a senior designer now", "I'm the design lead now")
    store, rowids = said_by("Lucy", *en)
    scores = {1: 0.95, 2: 0.9, 0: 0.5}
    assert first(store, rowids, scores, "What was Lucy's job when she joined?") == "r0"
    assert first(store, rowids, scores, "What was Lucy's previous job?") == "r1"
    zh = ("我是初级设计师", "我升职为高级设计师了", "我现在是设计主管")
    store, rowids = said_by("林晓", *zh)
    assert first(store, rowids, scores, "林晓刚入职的时候是什么职位？") == "r0"


def test_a_question_naming_nobody_about_a_plan_leads_with_the_plan_it_names() -> None:
    lines = (
        "Also, the club trip to Lisbon is booked for March 12 to 16!",
        "Bad news: the airline cancelled our flights, so the Lisbon trip moves to May 7 to 11",
        "Reminder: book club on Thursday",
    )
    store, rowids = said_by("Grace", *lines)
    scores = {0: 0.95, 2: 0.9, 1: 0.5}
    assert first(store, rowids, scores, "When is the book club's Lisbon trip now?") == "r1"
    scores = {1: 0.95, 2: 0.9, 0: 0.5}
    assert first(store, rowids, scores, "When was the Lisbon trip originally planned?") == "r0"


def test_a_plan_naming_nobody_is_not_brought_in() -> None:
    lines = ("Also, the club trip to Lisbon is booked for March 12 to 16!", "Book club Thursday")
    store, rowids = said_by("Grace", *lines)
    assert first(store, rowids, {1: 0.9}, "When is the Lisbon trip?") == "r1"


def test_where_someone_lived_before_a_move_is_the_city_not_the_new_district() -> None:
    lines = (
        "I live in Shenzhen now",
        "Got a small flat in Nanshan",
        "I'm moving to Shanghai next week",
        "I live in Jing'an",
        "First week in Shanghai done",
    )
    store, rowids = memory_store_with(*lines)
    day = 86_400.0
    records = [
        dataclasses.replace(store.get(f"r{i}"), speaker_label="Tom", created_at=t * day)
        for i, t in enumerate((0, 0, 30, 30, 40))
    ]
    store.put_facts(fold(s for r in records for s in statements_of(r)))
    scores = {3: 0.95, 2: 0.9, 4: 0.8, 1: 0.6, 0: 0.5}
    assert first(store, rowids, scores, "Where did Tom live before he moved?") == "r0"
    assert first(store, rowids, scores, "Is Tom still in Shenzhen?") in {"r2", "r3", "r4"}


def test_a_home_held_with_its_district_answers_with_the_city_unless_the_city_is_named() -> None:
    lines = (
        "我在杭州走不开，住在滨江",
        "定了，公司调我去成都工作室，7 月 15 号搬过去",
        "我住在高新区",
        "成都的火锅太好吃了",
    )
    store, rowids = memory_store_with(*lines)
    day = 86_400.0
    records = [
        dataclasses.replace(store.get(f"r{i}"), speaker_label="李明", created_at=t * day)
        for i, t in enumerate((0, 60, 60, 100))
    ]
    store.put_facts(fold(s for r in records for s in statements_of(r)))
    scores = {0: 0.95, 2: 0.9, 3: 0.8, 1: 0.5}
    assert first(store, rowids, scores, "李明还在杭州吗？") == "r1"
    assert first(store, rowids, {0: 0.95, 1: 0.9, 3: 0.8, 2: 0.5}, "李明住在成都哪个区？") == "r2"
