"""Statements out of records, without an LLM: who says what about whose attribute.

``statements_of(record, context)`` is the one entry point: the indexing path, ``remem facts
rebuild`` and capture call it. Only assertions count (``remem.text.assertion``): a question,
uncertainty, a hypothetical, a quote or an example states nothing. The rules by language live
beside this module; this first set reads where someone lives, in English and Chinese, first
person only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from remem.facts.model import Statement, name_subject, speaker_subject
from remem.text.assertion import not_a_statement
from remem.text.normalize import to_simplified
from remem.types import Record


@dataclass(frozen=True, slots=True)
class ExtractionContext:
    """What the extractor knows beyond the record: the people of the store, by every name
    they go by (casefolded name or alias -> subject key), to resolve "Tom" or "汤姆" in a third
    person statement to the speaker who is Tom."""

    people: Mapping[str, str] = field(default_factory=dict)


_EN_LIVES = re.compile(
    r"\bI\s*(?:'m\s+living|\s+am\s+living|\s+live|\s+now\s+live|\s+moved|'ve\s+moved|"
    r"\s+have\s+moved|\s+just\s+moved)\s+(?:in|to)\s+(?P<value>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*)"
)
_ZH_LIVES = re.compile(
    r"我(?:现在|目前)?(?:住在|搬到了?|搬去了?)(?P<value>[\u4e00-\u9fff]{2,6}?)(?:了|啦|。|，|$)"
)


def subject_of_speaker(record: Record) -> tuple[str, str] | None:
    """(subject key, name) of whoever says "I" in this record, or None when unknown."""
    name = record.speaker_label or record.speaker_id
    if record.speaker_id:
        return speaker_subject(record.speaker_id), name or record.speaker_id
    if record.speaker_label:
        return name_subject(record.speaker_label), record.speaker_label
    return None


def statements_of(record: Record, context: ExtractionContext | None = None) -> list[Statement]:
    """What this record states, as statements (none when it asserts nothing)."""
    text = record.shown_text
    if not text.strip() or not_a_statement(text) is not None:
        return []
    speaker = subject_of_speaker(record)
    if speaker is None:
        return []
    when = record.event_time or record.created_at
    found: list[Statement] = []
    for pattern, folded in ((_EN_LIVES, text), (_ZH_LIVES, to_simplified(text))):
        for match in pattern.finditer(folded):
            found.append(
                Statement(
                    record_id=record.id,
                    scope=record.scope,
                    subject=speaker[0],
                    subject_name=speaker[1],
                    attribute="lives_in",
                    value=match.group("value").strip(),
                    said_at=record.created_at,
                    valid_from=when,
                )
            )
    return found
