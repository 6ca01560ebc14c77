"""What a new curated memory states, read by the fact layer's rules, for supersession.

A memory replaces the current one of the same speaker and subject in its scope
(``CuratedMemories.remember``). Which subject: what ``remem.facts.extract.statements_of`` reads
in it, so curated memories follow the same rules as the facts (issue 48): a single-valued
attribute ("where I live", "where I work") said with another value supersedes; a negation ("I
don't live in Berlin any more", "我不在那家公司上班了") closes the memory of that value (of any
value when it names none) without a new value of its own; an attribute whose values coexist
(likes, pets) never closes another value by asserting one. A text the extractor reads nothing
in falls back to ``text.triggers.subject_key``; a non-statement (``text.assertion``) is never
asked (the caller checks).
"""

from __future__ import annotations

from dataclasses import dataclass

from remem.facts.extract import statements_of
from remem.facts.model import Statement, speaker_subject, spec_of, value_key
from remem.text.triggers import subject_key
from remem.types import Record

# The supersession keys memories were stored under before the fact rules: a fact attribute
# keeps its older key, so a new memory still replaces one stored before.
LEGACY_KEYS = {"lives_in": "location", "works_at": "employer", "diet": "diet"}


@dataclass(frozen=True, slots=True)
class Said:
    """The supersession reading of one memory."""

    subject: str | None  # the metadata key a replaced memory shares; None: replaces nothing
    value: str | None = None  # the value it states (a negation: the value it denies)
    negation: bool = False


def read(text: str, *, role: str | None, speaker_id: str | None, scope: str, now: float) -> Said:
    record = Record(
        id="new-memory",
        kind="memory",
        text=text,
        role=role,
        scope=scope,
        speaker_id=speaker_id or "speaker",  # "I" is whoever says it: the key is per speaker
        created_at=now,
    )
    found = statements_of(record)
    if not found:
        return Said(subject_key(text))
    first: Statement = found[0]
    if first.subject == speaker_subject(record.speaker_id or ""):
        # the key memories stored before the fact rules carry, when capture's trigger gives
        # one ("favourite:水果"), so a new value still closes an old memory of the same subject
        key = subject_key(text) or LEGACY_KEYS.get(first.attribute, first.attribute)
    else:
        # someone else's fact ("Tom lives in Shanghai now", "my sister lives in Paris"):
        # keyed by whose it is, so it replaces only what was said of them, never the
        # speaker's own "I moved to Lisbon"
        key = f"{first.attribute}@{first.subject}"
    if first.polarity == "negate":
        return Said(key, first.value, negation=True)
    if not spec_of(first.attribute).single:
        return Said(None, first.value)  # values coexist: a new one closes nothing
    return Said(key, first.value)


def denied(said: Said, older: list[Record]) -> list[Record]:
    """Of the current memories sharing a negation's subject, those it closes: the ones stating
    the value it denies (all of them when it names none)."""
    if not said.negation or said.value is None:
        return older
    wanted = value_key(said.value)
    return [
        r
        for r in older
        if value_key(str(r.metadata.get("fact_value") or "")) == wanted
        or wanted in value_key(r.text)
    ]
