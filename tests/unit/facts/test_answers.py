"""A bare answer to another person's question is a statement of the one who answers
("Where do you live?" - "Kreuzberg, near the park"), in English and Chinese; a reply that is
not a bare value, a question about someone else or a thing, or one's own question is not."""

from __future__ import annotations

import dataclasses

import pytest

from remem.facts.extract import statements_of_conversation
from remem.facts.model import name_subject
from unit.facts.conftest import MakeMemory
from unit.facts.reading import SAID, record


def answered(question: str, reply: str, asker: str = "Ann", answerer: str = "Bo") -> set:
    lines = [
        record(question, asker, at=SAID, id="q"),
        record(reply, answerer, at=SAID + 60, id="a"),
    ]
    return {
        (s.subject, s.attribute, s.value)
        for s in statements_of_conversation(lines)
        if s.record_id == "a"
    }


@pytest.mark.parametrize(
    ("question", "reply", "attribute", "value"),
    [
        ("Where do you live these days?", "Camden, right by the canal", "lives_in", "Camden"),
        (
            "Which company are you at now?",
            "Northwind Traders. Been there a month",
            "works_at",
            "Northwind Traders",
        ),
        ("Where do you study?", "Trinity College, second year", "studies_at", "Trinity College"),
        ("你现在住哪？", "朝阳区，离公司近", "lives_in", "朝阳区"),
        ("住哪边？", "浦东新区，地铁很方便", "lives_in", "浦东新区"),
        ("你在哪家公司上班？", "云帆网络，做策划", "works_at", "云帆网络"),
        ("妳住哪裡？", "信義區，離捷運站很近", "lives_in", "信義區"),
    ],
)
def test_a_bare_answer_states_the_answerers_fact(question, reply, attribute, value):
    found = answered(question, reply)
    assert (name_subject("Bo"), attribute, value) in found
    assert [f for f in found if f[1] == attribute] == [(name_subject("Bo"), attribute, value)]


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("Where do you live these days?", "Not sure yet, still looking"),  # no value
        ("Where do you live these days?", "Yes, Camden"),  # a reply word first
        ("Where does he live now?", "Camden, right by the canal"),  # someone else
        ("Where is Tom living?", "Camden, I think"),  # a named person's, not the answerer's
        ("Where is the design doc?", "Confluence, under Projects"),  # a thing
        ("Where in Berlin?", "Kreuzberg, close to the park"),  # a part of a place said
        ("成都哪个区？", "高新区，离软件园近"),
        ("Did you like the film?", "Camden Odeon, loved it"),  # asks no family
        ("Where do you live?", "Camden?"),  # the reply asks back
        ("你住哪？", "还行吧，挺好"),  # not a place
        ("你住哪？", "在朋友家先凑合"),  # a clause, not a value
        ("他住哪？", "朝阳区，离公司近"),  # someone else
        ("文档在哪里？", "飞书知识库，叫会员体系"),  # a thing
    ],
)
def test_anything_else_states_nothing(question, reply):
    assert answered(question, reply) == set()


def test_ones_own_question_answered_states_nothing():
    assert answered("Where do you live now?", "Camden, by the canal", answerer="Ann") == set()


def test_the_indexing_path_reads_the_answer_from_the_session(make_memory: MakeMemory):
    mem = make_memory()
    mem.ingest(
        {
            "text": "Where do you live now?",
            "speaker": "Lin",
            "session": "s",
            "timestamp": "2026-11-20T10:00:00+00:00",
        }
    )
    mem.ingest(
        {
            "text": "Jing'an, near the Changping Road metro",
            "speaker": "Tom",
            "session": "s",
            "timestamp": "2026-11-20T10:01:00+00:00",
        }
    )
    assert [(f.attribute, f.value) for f in mem.facts("Tom")] == [("lives_in", "Jing'an")]
    assert mem.rebuild_facts().facts == 1
    assert [(f.attribute, f.value) for f in mem.facts("Tom")] == [("lives_in", "Jing'an")]


def test_an_answer_during_a_dated_move_starts_with_the_move(make_memory: MakeMemory):
    # "Jing'an", said before the move date, is where Tom lives from December 1st: it must not
    # close Shenzhen early, nor be closed by the move
    lines = [
        ("Tom", "I live in Shenzhen now", "2026-11-02T10:00:00+00:00"),
        ("Tom", "I'm moving to Shanghai on December 1st", "2026-11-10T10:00:00+00:00"),
        ("Lin", "Where will you live?", "2026-11-18T10:00:00+00:00"),
        ("Tom", "Jing'an, near the Changping Road metro", "2026-11-18T10:01:00+00:00"),
    ]
    mem = make_memory()
    for speaker, text, when in lines:
        mem.ingest({"text": text, "speaker": speaker, "session": "s", "timestamp": when})
    walked = statements_of_conversation(
        [dataclasses.replace(r, created_at=r.created_at) for r in mem.store.iter_records()]
    )
    history = {
        (f.value, f.valid_to is None)
        for f in mem.facts("Tom", history=True)
        if f.attribute == "lives_in"
    }
    assert ("Shenzhen", False) in history and ("Jing'an", True) in history
    assert [f.value for f in mem.facts("Tom", at="2026-11-25", attribute="lives_in")] == [
        "Shenzhen"
    ]
    jingan = next(s for s in walked if s.value == "Jing'an")
    shanghai = next(s for s in walked if s.value == "Shanghai" and s.attribute == "lives_in")
    assert jingan.valid_from == shanghai.valid_from


@pytest.mark.parametrize(
    ("question", "reply", "attribute", "value"),
    [
        ("What's your Instagram?", "Mine is @nora_k", "contact.instagram", "@nora_k"),
        ("What's your Instagram?", "It's @nora_k", "contact.instagram", "@nora_k"),
        (
            "Adding everyone to the Telegram channel, handles please",
            "Mine is @nora_k",
            "contact.telegram",
            "@nora_k",
        ),
        ("What's your number?", "It's 07700 900 123", "contact.phone", "07700 900 123"),
        ("你的微信号是多少？", "是 nora_k88", "contact.wechat", "nora_k88"),
        ("你現在住哪？", "還在成都", "lives_in", "成都"),
        ("你现在住哪边？", "是朝阳区", "lives_in", "朝阳区"),
    ],
)
def test_an_elliptical_answer_states_the_answerers_fact(question, reply, attribute, value):
    assert (name_subject("Bo"), attribute, value) in answered(question, reply)


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("What's your Instagram?", "It's private"),  # not a handle
        ("What's Tom's Instagram?", "It's @tom_x"),  # Tom's, not the answerer's
        ("What's your number?", "Mine is broken, sorry"),
    ],
)
def test_an_elliptical_reply_that_is_no_value_of_the_answerer_states_nothing(question, reply):
    assert not {f for f in answered(question, reply) if f[1].startswith("contact")}


def test_an_answer_in_another_session_answers_nothing():
    lines = [
        record("Where do you live these days?", "Ann", at=SAID, id="q", session="s1"),
        record("Camden, right by the canal", "Bo", at=SAID + 60, id="a", session="s2"),
    ]
    assert [s for s in statements_of_conversation(lines) if s.record_id == "a"] == []
