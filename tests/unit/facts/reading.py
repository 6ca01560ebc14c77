"""Records said at a fixed moment, and the statements the extractor reads in them, as tuples."""

from __future__ import annotations

from datetime import UTC, datetime

from remem.facts.extract import ExtractionContext, statements_of
from remem.facts.model import Statement
from remem.types import Record

SAID = datetime(2026, 11, 20, 10, 0, tzinfo=UTC).timestamp()


def day(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def record(text: str, speaker: str = "Ann", at: float = SAID, **fields) -> Record:
    return Record(
        id=fields.pop("id", "r1"),
        kind=fields.pop("kind", "message"),
        text=text,
        role=fields.pop("role", "user"),
        speaker_label=speaker,
        created_at=at,
        **fields,
    )


def read(
    text: str, speaker: str = "Ann", context: ExtractionContext | None = None, **fields
) -> list[Statement]:
    return statements_of(record(text, speaker, **fields), context)


def facts(text: str, speaker: str = "Ann", **fields) -> set[tuple[str, str, str | None, str]]:
    """(subject name, attribute, value, polarity) of every statement read."""
    return {
        (s.subject_name, s.attribute, s.value, s.polarity) for s in read(text, speaker, **fields)
    }
