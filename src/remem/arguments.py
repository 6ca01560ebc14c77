"""Checks of plain arguments at the Python API's edge (``Memory`` methods and ``Turn``).

The edge, as remem draws it: a documented parameter given a value of the wrong type or out of
range is bad input, reported as a :class:`remem.errors.ValidationError` that names the
parameter, the value and the fix (never a ``TypeError`` or an ``AttributeError`` from deep
inside). A wrong call signature (an unknown keyword, a missing argument) stays Python's own
``TypeError``: that is a programming error, not input.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from datetime import tzinfo
from typing import Any

from remem.config.stages import ZONE_FIX, known_zone
from remem.errors import ValidationError
from remem.schemas import ID_RE, NAME_RE, check_encodable, parse_time
from remem.types import Turn

_NAME_FIX = "give 1-500 characters without control characters (not only spaces)"


def text(field: str, value: Any, *, optional: bool = False) -> str | None:
    """Non-empty, valid Unicode text (None only when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(field, value, "give non-empty text")
    return check_encodable(field, value)


def name(field: str, value: Any, *, optional: bool = False) -> str | None:
    """A session, user, platform or model name: printable text without control characters."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip() or not NAME_RE.match(value):
        raise ValidationError(field, value, _NAME_FIX)
    return check_encodable(field, value)


def record_id(field: str, value: Any) -> str:
    """A record id: 1-200 characters without control characters."""
    if not isinstance(value, str) or not ID_RE.match(value):
        raise ValidationError(field, value, "give a record id (1-200 printable characters)")
    return check_encodable(field, value)


def flag(field: str, value: Any) -> bool:
    """True or False (not 0, 1 or "yes": a typo should not silently mean something)."""
    if not isinstance(value, bool):
        raise ValidationError(field, value, "use True or False")
    return value


# SQLite's largest integer: a bigger limit or offset cannot even be passed to it
MAX_INT = 2**63 - 1


def count(field: str, value: Any, *, minimum: int = 0, optional: bool = False) -> int | None:
    """A whole number from ``minimum`` to ``MAX_INT`` (None only when ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= MAX_INT:
        raise ValidationError(field, value, f"use a whole number from {minimum} to 2**63 - 1")
    return value


def seconds(field: str, value: Any, *, optional: bool = False) -> float | None:
    """A duration: a finite number of seconds >= 0 (None only when ``optional``)."""
    if value is None and optional:
        return None
    try:
        number = float(value) if isinstance(value, int | float) else math.nan
    except OverflowError:  # an int beyond float's range
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number) or number < 0:
        raise ValidationError(field, value, "use a number of seconds >= 0")
    return number


def moment(field: str, value: Any, zone: tzinfo) -> float:
    """A moment given as Unix seconds or an ISO-8601 date (without an offset: on ``zone``'s
    clock); "" and None are no moment."""
    try:
        when = parse_time(value, zone)
    except ValueError:
        when = None
    if when is None:
        raise ValidationError(field, value, "use Unix seconds or an ISO-8601 date")
    return when


def zone(field: str, value: Any) -> tzinfo | None:
    """A time zone given by its IANA name ("Asia/Shanghai"); None for None."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationError(field, value, ZONE_FIX)
    try:
        return known_zone(value)
    except ValueError:
        raise ValidationError(field, value, ZONE_FIX) from None


def unix_time(field: str, value: Any, *, optional: bool = False) -> float | None:
    """A moment as Unix seconds: a number from 1970 to the year 3000 (None only when
    ``optional``)."""
    if value is None and optional:
        return None
    try:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("not a number")
        return parse_time(value)
    except ValueError:
        raise ValidationError(field, value, "use Unix seconds (a number)") from None


def choices(field: str, value: Any, allowed: Collection[str]) -> tuple[str, ...]:
    """A list, tuple or set of names, each one of ``allowed``."""
    if not isinstance(value, list | tuple | set | frozenset) or not all(
        isinstance(n, str) and n in allowed for n in value
    ):
        raise ValidationError(field, value, f"give a list of names from {', '.join(allowed)}")
    return tuple(value)


def strings(field: str, value: Any) -> list[str]:
    """A list (or tuple) of non-empty strings that are valid Unicode."""
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v for v in value):
        raise ValidationError(field, value, "give a list of non-empty strings")
    return list(check_encodable(field, value))


def turn(value: Any) -> Turn:
    """A ``Turn`` whose every field has the documented type (the recall and capture hooks'
    one input)."""
    if not isinstance(value, Turn):
        raise ValidationError("turn", value, "pass a remem.types.Turn")
    for field in ("session", "platform", "group_id", "platform_type"):
        if getattr(value, field) != "":  # empty means "not given" downstream
            name(field, getattr(value, field), optional=True)
    for field in ("agent", "user_id"):  # what they may be is the scope resolver's call
        if not isinstance(getattr(value, field), str | None):
            raise ValidationError(field, getattr(value, field), "give an id (a string)")
        check_encodable(field, getattr(value, field))
    text("requested_mode", value.requested_mode, optional=True)
    if not isinstance(value.inputs, list) or not all(
        isinstance(i, str | dict) for i in value.inputs
    ):
        raise ValidationError("inputs", value.inputs, "give a list of record ids or message dicts")
    check_encodable("inputs", value.inputs)
    strings("current_ids", value.current_ids)
    if value.scopes is not None:
        strings("scopes", value.scopes)
    settings = value.settings
    if not isinstance(settings, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in settings.items()
    ):
        raise ValidationError("settings", settings, "give a dict of setting names to strings")
    check_encodable("settings", settings)
    unix_time("now", value.now, optional=True)
    zone("timezone", value.timezone)
    return value
