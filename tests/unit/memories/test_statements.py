"""Which current memories a new one closes, by the fact rules (remem.memories.statements)."""

from __future__ import annotations

from remem.memories.statements import LEGACY_KEYS, Said, denied, read
from remem.types import Record


def memory(text: str, value: str | None = None) -> Record:
    meta = {"subject": "location", **({"fact_value": value} if value else {})}
    return Record(id=text, kind="memory", text=text, role="user", metadata=meta)


def test_a_new_value_of_where_i_live_shares_the_older_key() -> None:
    said = read("I'm living in Porto", role="user", speaker_id="ann", scope="user:ann", now=1.0)
    assert said == Said("location", "Porto")
    assert LEGACY_KEYS["lives_in"] == "location"


def test_text_the_rules_read_nothing_in_falls_back_to_the_trigger_key() -> None:
    # Japanese: the fact rules read English and Chinese; capture's trigger files it as a job
    said = read("私はトヨタで働いています", role="user", speaker_id="ann", scope="s", now=1.0)
    assert said.subject == "employer" and said.value is None


def test_a_negation_closes_only_the_value_it_denies() -> None:
    berlin, paris = memory("I live in Berlin.", "Berlin"), memory("I moved to Paris")
    said = Said("location", "Berlin", negation=True)
    assert denied(said, [berlin, paris]) == [berlin]
    assert denied(Said("location", None, negation=True), [berlin, paris]) == [berlin, paris]


def test_an_assertion_closes_what_shares_its_key() -> None:
    older = [memory("I live in Berlin.", "Berlin")]
    assert denied(Said("location", "Paris"), older) == older
