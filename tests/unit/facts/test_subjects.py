"""Whose fact: the speaker, a user a memory was captured for, names and their aliases, and
"he" / "她" resolved only when one person was just named (issue 48)."""

from __future__ import annotations

from remem.facts.extract import ExtractionContext, statements_of, statements_of_conversation
from remem.facts.model import name_subject, speaker_subject
from remem.facts.subjects import people_of
from remem.types import Record
from unit.facts.reading import SAID, record


def _people() -> list[Record]:
    return [
        Record(id="a", kind="message", text="hi", speaker_id="u-tom", speaker_label="Tom"),
        Record(id="b", kind="message", text="你好", speaker_id="u-li", speaker_label="李明"),
        Record(id="c", kind="message", text="我是 Tina", speaker_id="u-zt", speaker_label="周婷"),
    ]


def test_people_of_knows_labels_aliases_transliterations_and_introductions():
    people = people_of(_people())
    assert people["tom"] == people["汤姆"] == speaker_subject("u-tom")
    assert people["李明"] == people["liming"] == speaker_subject("u-li")
    assert people["tina"] == speaker_subject("u-zt")


def test_a_name_resolves_to_the_speaker_it_names_in_either_script():
    context = ExtractionContext(people=people_of(_people()))
    for text in ("汤姆在腾讯上班。", "Tom works at Tencent."):
        found = statements_of(record(text, "Jo"), context)
        assert [s.subject for s in found] == [speaker_subject("u-tom")], text


def test_an_unknown_name_is_a_name_subject():
    found = statements_of(record("Kenji has a tabby called Miso.", "Ruth"))
    assert [s.subject for s in found] == [name_subject("Kenji")]


def test_a_memory_captured_for_a_user_is_that_users_fact():
    memory = Record(
        id="m1",
        kind="memory",
        text="I live in Paris.",
        role="user",
        speaker_id="ann",
        created_at=SAID,
        scope="agent:remy",
    )
    [statement] = statements_of(memory)
    assert statement.subject == speaker_subject("ann") and statement.scope == "agent:remy"


def _chat(*lines: tuple[str, str]) -> list[Record]:
    return [
        Record(id=f"r{i}", kind="message", text=text, speaker_label=who, created_at=SAID + i)
        for i, (who, text) in enumerate(lines)
    ]


def test_he_is_the_one_person_just_named():
    records = _chat(("Jo", "汤姆最近怎么样"), ("Mei", "他搬去上海了"))
    context = ExtractionContext(people=people_of(_chat(("Tom", "hi"), ("Jo", "hi"), ("Mei", "hi"))))
    found = statements_of_conversation(records, context)
    assert [(s.subject, s.value) for s in found] == [(name_subject("Tom"), "上海")]


def test_he_after_two_people_were_named_gives_nothing():
    records = _chat(("Jo", "Tom and Sam came by yesterday"), ("Mei", "He moved to Shanghai."))
    context = ExtractionContext(people={"tom": name_subject("tom"), "sam": name_subject("sam")})
    assert statements_of_conversation(records, context) == []


def test_he_never_is_the_speaker():
    records = _chat(("Jo", "Mia is here"), ("Mia", "He moved to Shanghai."))
    context = ExtractionContext(people={"mia": name_subject("mia")})
    assert statements_of_conversation(records, context) == []


def test_a_record_without_a_speaker_still_states_third_person_facts():
    """A curated memory added with no speaker ("Bob lives in Oslo.") is about Bob; its "I"
    and "my sister" belong to nobody and state nothing."""
    from remem.facts.extract import statements_of
    from remem.types import Record

    def said(text: str) -> list[tuple[str, str, str | None]]:
        rec = Record(id="m", kind="memory", text=text, created_at=1_700_000_000.0)
        return [(s.subject, s.attribute, s.value) for s in statements_of(rec)]

    assert said("Bob lives in Oslo.") == [("name:bob", "lives_in", "Oslo")]
    assert said("汤姆在腾讯上班。") == [("name:汤姆", "works_at", "腾讯")]
    assert said("I live in Oslo.") == []
    assert said("My sister lives in Oslo.") == []
