"""Validation of everything that enters remem from outside (API calls, JSONL lines, CLI).

Pydantic does the checking; :func:`validate_record` turns its report into one
:class:`remem.errors.ValidationError` that names the field, the bad value and the fix.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import UTC, datetime, tzinfo
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic import ValidationError as PydanticValidationError

from remem.errors import ValidationError
from remem.types import KINDS, MESSAGE_KINDS, ROLES, Filters, RecordShape

# \Z, not $: "$" also matches before a trailing newline, and "agent:A\n" is not "agent:A".
SCOPE_RE = re.compile(
    r"^(global|(agent|user|project|session|custom):[^\s\x00-\x1f\x7f:][^\s\x00-\x1f\x7f]{0,199})\Z"
)
ID_MAX_CHARS = 200
ID_RE = re.compile(rf"^[^\x00-\x1f\x7f]{{1,{ID_MAX_CHARS}}}\Z")
# sessions, speakers, platforms, groups: any printable text without control characters
NAME_RE = re.compile(r"^[^\x00-\x1f\x7f]{1,500}\Z")
NAME_FIELDS = ("session", "platform", "group_id", "speaker_id", "origin_platform", "parent_session")
MAX_TEXT_CHARS = 1_000_000

_FIXES = {
    "id": "use 1-200 printable characters, or leave it out to get a generated id",
    "kind": f"use one of {', '.join(KINDS)}",
    "text": "give non-empty text (at most 1,000,000 characters)",
    "role": f"use one of {', '.join(ROLES)}",
    "scope": "use global, agent:<id>, user:<id>, project:<id>, session:<id> or custom:<name>",
    "importance": "use a number from 0 to 1",
    "created_at": "use Unix seconds or an ISO-8601 date such as 2026-05-01T12:00:00Z",
    "event_time": "use Unix seconds or an ISO-8601 date",
    "valid_from": "use Unix seconds or an ISO-8601 date",
    "valid_to": "use Unix seconds or an ISO-8601 date",
    "mentions": "use a list of speaker ids",
    "source_ids": "use a list of record ids",
    "metadata": "use a JSON object (JSON types only, finite numbers)",
    "k": "use a whole number from 1 to search.max_k",
    "message_kind": f"use one of {', '.join(MESSAGE_KINDS)}",
    **dict.fromkeys(NAME_FIELDS, "use 1-500 characters without control characters"),
}
# What each checked text field must match, and the fields whose values come from a list
# (a role may be left out); validate_record names the fix from _FIXES.
_PATTERNS: dict[str, re.Pattern[str]] = {
    "id": ID_RE,
    "scope": SCOPE_RE,
    **dict.fromkeys(NAME_FIELDS, NAME_RE),
}
_CHOICES = {"kind": KINDS, "role": ROLES, "message_kind": MESSAGE_KINDS}
_UNENCODABLE = "the text holds a lone surrogate (not valid Unicode); send valid UTF-8"
# PostgreSQL's text and jsonb cannot hold U+0000; every backend refuses it alike, so a store
# moves between backends whole and no write fails on one backend only.
_NUL = "the text holds a NUL character (U+0000), which remem does not store; remove it"


def unstorable(value: Any) -> str | None:
    """Why a string in value (nested in lists and dicts too) cannot be stored, or None:
    a lone surrogate that UTF-8 cannot encode (JSON's "\\ud800" escapes decode to one), or a
    NUL character."""
    if isinstance(value, str):
        if "\x00" in value:
            return _NUL
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return _UNENCODABLE
        return None
    if isinstance(value, dict):
        items = (x for kv in value.items() for x in kv)
        return next((r for r in map(unstorable, items) if r), None)
    if isinstance(value, list | tuple):
        return next((r for r in map(unstorable, value) if r), None)
    return None


def is_encodable(value: Any) -> bool:
    """True when every string in value can be stored (``unstorable``)."""
    return unstorable(value) is None


def check_encodable(field: str, value: Any) -> Any:
    """The value, or ValidationError naming the field when it holds text remem cannot store."""
    reason = unstorable(value)
    if reason:
        raise ValidationError(field, value, reason)
    return value


def content_hash(text: str) -> str:
    """The SHA-256 of a record's text: deduplication and import idempotency compare it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def parse_time(value: Any, zone: tzinfo = UTC) -> float | None:
    """Unix seconds from a number, a numeric string, an ISO-8601 string or a datetime; a time
    without a UTC offset ("2026-12-03", "2026-12-03T08:00") is read on ``zone``'s clock (the
    configured ``calendar.timezone``)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError("a boolean is not a time")
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an int beyond float's range
            raise ValueError("out of range") from None
    elif isinstance(value, datetime):
        number = (value if value.tzinfo else value.replace(tzinfo=zone)).timestamp()
    elif isinstance(value, str):
        text = value.strip()
        try:
            number = float(text)
        except ValueError:
            try:
                parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                raise ValueError("not a time") from None
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=zone)
            number = parsed.timestamp()
    else:
        raise ValueError("not a time")
    if not math.isfinite(number) or number < 0 or number > 32503680000:  # year 3000
        raise ValueError("out of range")
    return number


# ``RecordShape``'s fields first (here an id may be left out and the kind defaults to a
# message), then the ones below. The docstring is the JSON schema's description.
class RecordIn(BaseModel, RecordShape):
    """A message or memory as a caller hands it in."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)

    id: str | None = None
    kind: str = "message"
    mentions: list[str] = Field(default_factory=list)  # pydantic's factory, not the dataclass's
    source_ids: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    source: str | None = None
    visible_text: str | None = None
    session_type: str | None = None
    session_label: str | None = None
    message_kind: str = "chat"
    # Session facts carried by a message (kept per session, not per record): the platform the
    # session (a group or private room) belongs to, whichever entry point drove this turn,
    # and the parent of a sub-session.
    origin_platform: str | None = None
    parent_session: str | None = None

    @field_validator(*_PATTERNS)
    @classmethod
    def _pattern(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and not _PATTERNS[str(info.field_name)].match(value):
            raise ValueError(f"not a valid {info.field_name}")
        return value

    @field_validator(*_CHOICES)
    @classmethod
    def _choice(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and value not in _CHOICES[str(info.field_name)]:
            raise ValueError(f"not a valid {info.field_name}")
        return value

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        # The bench corpus and most chat exports say "timestamp" and "speaker"/"conversation".
        if isinstance(data, dict):
            data = dict(data)
            if "timestamp" in data and "created_at" not in data:
                data["created_at"] = data.pop("timestamp")
            if "speaker" in data and "speaker_label" not in data:
                data["speaker_label"] = data.pop("speaker")
            if "conversation" in data:
                data.setdefault("metadata", {})
                if isinstance(data["metadata"], dict):
                    data["metadata"] = {
                        **data["metadata"],
                        "conversation": data.pop("conversation"),
                    }
        return data

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        # stored as JSON and served as JSON: NaN, infinities and non-JSON types (sets, dates)
        # would be stored but break every later read of the record
        try:
            json.dumps(value, allow_nan=False)
        except (ValueError, TypeError, RecursionError):
            raise ValueError("not JSON") from None
        return value

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        if not value or not value.strip() or len(value) > MAX_TEXT_CHARS:
            raise ValueError("empty or too long")
        return value

    @field_validator("importance")
    @classmethod
    def _importance(cls, value: float) -> float:
        if not (0.0 <= value <= 1.0) or math.isnan(value):
            raise ValueError("out of range")
        return value

    @field_validator("created_at", "event_time", "valid_from", "valid_to", mode="before")
    @classmethod
    def _times(cls, value: Any, info: ValidationInfo) -> float | None:
        return parse_time(value, (info.context or {}).get("zone", UTC))


def validate_record(data: Any, *, zone: tzinfo = UTC, **defaults: Any) -> RecordIn:
    """Validate one incoming record; raise remem's ValidationError naming the first bad field.
    Times without an offset are read on ``zone``'s clock."""
    if isinstance(data, RecordIn):
        return data
    if not isinstance(data, dict):
        raise ValidationError("record", data, "pass a JSON object / dict with at least 'text'")
    merged = {**defaults, **{k: v for k, v in data.items()}}
    for key, value in merged.items():
        check_encodable(str(key), value)
    try:
        return RecordIn.model_validate(merged, context={"zone": zone})
    except PydanticValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else "record"
        if err["type"] == "extra_forbidden":
            known = ", ".join(RecordIn.model_fields)
            raise ValidationError(
                field, err.get("input"), f"unknown field; known: {known}"
            ) from None
        if err["type"] == "missing":
            raise ValidationError(field, None, f"{field} is required") from None
        value = merged.get(field, err.get("input"))
        raise ValidationError(field, value, _FIXES.get(field, err["msg"])) from None


def validate_scope(scope: str, field: str = "scope") -> str:
    if not isinstance(scope, str) or not SCOPE_RE.match(scope):
        raise ValidationError(field, scope, _FIXES["scope"])
    return scope


def make_filters(filters: Filters | dict[str, Any] | None, zone: tzinfo = UTC) -> Filters | None:
    """Filters from a Filters, a plain dict (API/CLI) or None; validates values. ``since`` and
    ``until`` without an offset ("2026-12-03") are read on ``zone``'s clock."""
    if filters is None or isinstance(filters, Filters):
        return filters
    if not isinstance(filters, dict):
        raise ValidationError("filters", filters, "pass a dict such as {'kind': 'message'}")
    data = dict(filters)
    out = Filters()

    def as_list(name: str, value: Any) -> list[str]:
        values = [value] if isinstance(value, str) else value
        if (
            not isinstance(values, list | tuple)
            or not values
            or not all(isinstance(v, str) and v for v in values)
        ):
            raise ValidationError(name, value, "give a non-empty string or list of strings")
        return list(check_encodable(name, values))

    def as_choices(name: str, value: Any, allowed: tuple[str, ...]) -> list[str]:
        values = as_list(name, value)
        bad = [v for v in values if v not in allowed]
        if bad:
            raise ValidationError(name, bad[0], f"use one of {', '.join(allowed)}")
        return values

    for key, value in data.items():
        if value is None:
            continue
        if key in ("kind", "kinds"):
            out.kinds = as_choices(key, value, KINDS)
        elif key in ("scope", "scopes"):
            out.scopes = [validate_scope(s, key) for s in as_list(key, value)]
        elif key in ("session", "sessions"):
            out.sessions = as_list(key, value)
        elif key in ("role", "roles"):
            out.roles = as_choices(key, value, ROLES)
        elif key in ("since", "until"):
            try:
                setattr(out, key, parse_time(value, zone))
            except ValueError:
                raise ValidationError(key, value, "use Unix seconds or an ISO-8601 date") from None
        elif key in ("platform", "category"):
            if not isinstance(value, str) or not value.strip() or not is_encodable(value):
                raise ValidationError(key, value, "give a non-empty string")
            setattr(out, key, value)
        elif key == "include_superseded":
            if not isinstance(value, bool):
                raise ValidationError(key, value, "use true or false")
            out.include_superseded = value
        elif key == "ids":
            out.ids = as_list(key, value)
        else:
            raise ValidationError(
                "filters",
                key,
                "unknown filter; use kind, scope, session, role, since, until, platform, "
                "category, ids",
            )
    if out.since is not None and out.until is not None and out.since > out.until:
        raise ValidationError("since", out.since, "since must not be later than until")
    return out
