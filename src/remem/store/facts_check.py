"""What every backend checks of a fact before storing it, and the order facts are listed in.

One function for all three backends (``FactStore``): a fact any of them would refuse, or
store differently (a NaN time SQLite keeps as NULL, a NUL character PostgreSQL refuses, a
string where a tuple of ids belongs), is refused by all of them alike, with the field named.
"""

from __future__ import annotations

import math
from typing import Any

from remem.errors import ValidationError
from remem.schemas import unstorable
from remem.types import FACT_ORIGINS, Fact

_KEYS = ("id", "scope", "subject", "attribute", "value")


def check_fact(fact: Fact) -> None:
    """Refuse a fact no backend could store faithfully, naming the field."""
    for name in _KEYS:
        value = getattr(fact, name)
        if not isinstance(value, str) or not value:
            raise ValidationError(f"fact.{name}", value, "give a non-empty string")
    if not isinstance(fact.subject_name, str):
        raise ValidationError("fact.subject_name", fact.subject_name, "give a string")
    for name in ("said_at", "valid_from"):
        _check_time(name, getattr(fact, name))
    if fact.valid_to is not None:
        _check_time("valid_to", fact.valid_to)
    _check_ids(fact.source_ids)
    if fact.closed_by is not None and (not isinstance(fact.closed_by, str) or not fact.closed_by):
        raise ValidationError("fact.closed_by", fact.closed_by, "give a record id or None")
    for name in (*_KEYS, "subject_name", "closed_by"):
        reason = unstorable(getattr(fact, name))
        if reason:
            raise ValidationError(f"fact.{name}", getattr(fact, name), reason)
    if fact.origin not in FACT_ORIGINS:
        raise ValidationError("fact.origin", fact.origin, f"use one of {', '.join(FACT_ORIGINS)}")
    if fact.valid_to is not None and fact.valid_to < fact.valid_from:
        raise ValidationError(
            "fact.valid_to", fact.valid_to, f"must not be before valid_from ({fact.valid_from})"
        )
    if not _is_number(fact.confidence) or not 0.0 <= fact.confidence <= 1.0:
        raise ValidationError("fact.confidence", fact.confidence, "give a number in [0, 1]")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_time(name: str, value: Any) -> None:
    if not _is_number(value) or not math.isfinite(value):
        raise ValidationError(f"fact.{name}", value, "give a finite time in Unix seconds")


def _check_ids(ids: Any) -> None:
    # a bare string is iterable too: tuple("r1") would cite records "r" and "1"
    if not isinstance(ids, tuple | list):
        raise ValidationError("fact.source_ids", ids, "give a tuple of record ids")
    for record_id in ids:
        if not isinstance(record_id, str) or not record_id:
            raise ValidationError("fact.source_ids", ids, "every id must be a non-empty string")
        reason = unstorable(record_id)
        if reason:
            raise ValidationError("fact.source_ids", ids, reason)


def fact_order(fact: Fact) -> tuple[float, float, str]:
    """How ``FactStore.facts`` lists facts: oldest valid_from first, then said_at, then id."""
    return (fact.valid_from, fact.said_at, fact.id)
