"""A subject left out after someone else's question about a third person ("How's Tom doing?"
- "Moved to Leeds last week") is not the one replying: read as theirs, it closed their real
home. Asked of the one replying ("Where do you live now?"), it still is (``FactService``'s
``_not_of_another``)."""

from __future__ import annotations

import pytest

from remem import Config, Memory
from remem.store.memory import InMemoryStore

T = 1_800_000_000.0


def facts_after(lines: list[tuple[str, str]]) -> set[tuple[str, str, str]]:
    config = Config.load(env={}, overrides={"embed.provider": "none", "indexing.mode": "sync"})
    with Memory(store=InMemoryStore(), config=config) as mem:
        mem.ingest_many(
            [
                {
                    "id": f"m{i}",
                    "session": "g",
                    "speaker": who,
                    "text": text,
                    "timestamp": T + 60 * i,
                }
                for i, (who, text) in enumerate(lines)
            ]
        )
        assert mem.wait_facts(60)
        return {(f.subject_name, f.attribute, f.value or "") for f in mem.store.facts()}


HOME = [("Bob", "I live in York, near the station.")]


@pytest.mark.parametrize(
    "question",
    ["How's Tom doing these days?", "Is he still with the band?", "他最近怎么样？"],
)
def test_after_a_question_about_someone_else_a_left_out_subject_is_nobody(question):
    found = facts_after([*HOME, ("Ann", question), ("Bob", "Moved to Leeds last week.")])
    assert ("Bob", "lives_in", "York") in found
    assert not {f for f in found if f[2] == "Leeds"}


def test_a_known_person_named_in_chinese_is_someone_else():
    lines = [
        ("汤姆", "大家好"),
        ("李娜", "我住在杭州"),
        ("王芳", "汤姆最近怎么样？"),
        ("李娜", "搬到上海了"),
    ]
    found = facts_after(lines)
    assert ("李娜", "lives_in", "杭州") in found
    assert not {f for f in found if f[2] == "上海"}


@pytest.mark.parametrize(
    ("question", "reply", "value"),
    [
        ("Where do you live now, Bob?", "Moved to Leeds last week.", "Leeds"),
        ("What's new with you?", "Moved to Leeds last week.", "Leeds"),
        ("你现在住哪？", "搬到上海了", "上海"),
        # the question is its last sentence: a capital opening it names no one (changed_facts
        # liam lost his Berlin line to "Happy birthday mate! Still in Berlin?")
        ("Happy birthday mate! Still in Berlin?", "Yeah, still in Berlin, Kreuzberg", "Berlin"),
    ],
)
def test_asked_of_the_one_replying_a_left_out_subject_is_theirs(question, reply, value):
    assert ("Bob", "lives_in", value) in facts_after([("Ann", question), ("Bob", reply)])


def test_without_a_question_before_it_a_left_out_subject_is_the_speakers():
    found = facts_after(
        [("Ann", "The weather is great today."), ("Bob", "Moved to Leeds last week.")]
    )
    assert ("Bob", "lives_in", "Leeds") in found
