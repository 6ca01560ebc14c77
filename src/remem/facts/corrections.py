"""Hand corrections of facts: stored as curated memories, read back as manual statements.

A correction ("Tom lives in Shanghai", "Tom no longer works at Globex") is a curated memory
written through ``remem.memories.CuratedMemories``, so it has a history, can be undone and is
audited like any memory edit. Its metadata (``CORRECTION_KEY``) names the subject, the
attribute and the value or the closing; ``statement_of`` turns such a record into a
``Statement`` of origin "manual" and confidence 1.0, which the fold lets win over everything
said before it.
"""

from __future__ import annotations

from typing import Any

from remem.errors import ValidationError
from remem.facts.model import Statement, spec_of
from remem.types import Record

CORRECTION_KEY = "fact_correction"


def check_attribute(attribute: str) -> str:
    """The attribute, or a ValidationError naming the families that exist."""
    from remem.facts.model import ATTRIBUTES

    try:
        spec_of(attribute)
    except KeyError:
        known = ", ".join(
            f"{name}.<kind>" if spec.kinds else name for name, spec in ATTRIBUTES.items()
        )
        raise ValidationError("attribute", attribute, f"use one of {known}") from None
    return attribute


def correction_text(subject_name: str, attribute: str, value: str | None, close: bool) -> str:
    """What the correction memory says, for people reading the memory list."""
    if close:
        what = f"{attribute} {value!r}" if value else f"every {attribute}"
        return f"Fact correction: {subject_name}: {what} no longer holds."
    return f"Fact correction: {subject_name}: {attribute} is {value}."


def correction_metadata(
    subject: str,
    subject_name: str,
    attribute: str,
    value: str | None,
    *,
    close: bool,
    note: str | None,
) -> dict[str, Any]:
    """The metadata of a correction memory (``CORRECTION_KEY``)."""
    if not close and not (value and value.strip()):
        raise ValidationError("value", value, "give the value to set, or close the fact instead")
    body: dict[str, Any] = {
        "subject": subject,
        "subject_name": subject_name,
        "attribute": check_attribute(attribute),
        "value": value.strip() if value else None,
        "close": close,
    }
    if note:
        body["note"] = note
    return {CORRECTION_KEY: body}


def is_correction(record: Record) -> bool:
    return isinstance(record.metadata.get(CORRECTION_KEY), dict)


def statement_of(record: Record) -> Statement | None:
    """The manual statement a correction memory makes (None for any other record, or one
    whose correction metadata is malformed)."""
    body = record.metadata.get(CORRECTION_KEY)
    if not isinstance(body, dict):
        return None
    subject, attribute = body.get("subject"), body.get("attribute")
    value = body.get("value")
    if not isinstance(subject, str) or not isinstance(attribute, str):
        return None
    if value is not None and not isinstance(value, str):
        return None
    close = bool(body.get("close"))
    if not close and not value:
        return None
    name = body.get("subject_name")
    when = record.valid_from if record.valid_from is not None else record.created_at
    return Statement(
        record_id=record.id,
        scope=record.scope,
        subject=subject,
        subject_name=name if isinstance(name, str) and name else subject,
        attribute=attribute,
        value=value,
        said_at=record.created_at,
        valid_from=when,
        polarity="negate" if close else "assert",
        confidence=1.0,
        origin="manual",
    )
