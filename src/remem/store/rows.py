"""The one mapping between a ``Record`` and a stored row, shared by every backend.

The stored columns are the ``Record`` dataclass's fields (less the ones a store computes), in
the same order, so the record shape is written down once: in ``remem.types.Record``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from remem.errors import ValidationError
from remem.types import INDEX_STATUSES, KINDS, MESSAGE_KINDS, Record

# model_id belongs to a vector, not a record row; rowid is the store's own key.
STORED_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(Record) if f.name not in ("rowid", "model_id")
)
# access_count and last_access start at the store's defaults and only grow by record_access.
INSERT_FIELDS: tuple[str, ...] = tuple(
    name for name in STORED_FIELDS if name not in ("access_count", "last_access")
)
JSON_FIELDS: dict[str, type] = {"mentions": list, "source_ids": list, "metadata": dict}
_EMPTY_JSON = {name: json.dumps(empty()) for name, empty in JSON_FIELDS.items()}
# The columns an in-memory vector index keeps to apply filters without asking the store.
INDEX_META_FIELDS: tuple[str, ...] = (
    "rowid",
    "kind",
    "scope",
    "session",
    "role",
    "created_at",
    "platform",
    "category",
    "valid_to",
)


def _json(text: str, empty: type) -> Any:
    # Most records carry no mentions, sources or metadata: skip the parser for those.
    return empty() if text in ("[]", "{}") else json.loads(text)


# Positional construction (a search maps ~120 candidate rows; keywords cost 2x): where the
# JSON columns sit in a row's STORED_FIELDS, and where the unstored model_id goes.
_JSON_AT = tuple((STORED_FIELDS.index(name), empty) for name, empty in JSON_FIELDS.items())
_RECORD_ORDER = tuple(f.name for f in fields(Record))
_MODEL_ID_AT = _RECORD_ORDER.index("model_id")
assert _RECORD_ORDER[-1] == "rowid", "row_to_record passes rowid last"


def row_to_record(row: Sequence[Any]) -> Record:
    """A record from ``(rowid, *STORED_FIELDS)`` as a SQL row holds it (JSON as text)."""
    if len(row) != len(STORED_FIELDS) + 1:
        raise ValueError(f"a record row has {len(STORED_FIELDS) + 1} columns, not {len(row)}")
    values = list(row[1:])
    for at, empty in _JSON_AT:
        values[at] = _json(values[at], empty)
    values.insert(_MODEL_ID_AT, None)
    values.append(row[0])
    return Record(*values)


def inserted_record(fields: dict[str, Any], rowid: int) -> Record:
    """The record a store holds after inserting these prepared fields as ``rowid``: what a
    read-back would return (the columns a store sets itself start at their defaults), built
    without the read. A write that had to read back each record it just wrote paid one more
    statement per write (a round trip to a PostgreSQL server)."""
    values = [
        column_value(fields, name) if name in _INSERTED else _DEFAULTS[name]
        for name in STORED_FIELDS
    ]
    return row_to_record((rowid, *values))


_INSERTED = frozenset(INSERT_FIELDS)
_DEFAULTS: dict[str, Any] = {"access_count": 0, "last_access": None}
assert set(STORED_FIELDS) - _INSERTED == set(_DEFAULTS), "a stored column without a default"


# Columns with a closed set of values. Validation at the edges (schemas) checks them first;
# the store checks again so that a caller that skips it gets an error naming the field,
# not a backend's constraint message (or, in a backend without constraints, a bad row).
ENUM_COLUMNS: dict[str, tuple[str, ...]] = {
    "kind": KINDS,
    "index_status": INDEX_STATUSES,
    "message_kind": MESSAGE_KINDS,
}


def check_enums(fields: dict[str, Any]) -> None:
    """Raise ``ValidationError`` naming the first enumerated column with a value outside its
    set (a missing status column takes its default)."""
    for column in ENUM_COLUMNS:
        check_value(column, column_value(fields, column))


def check_value(column: str, value: Any) -> None:
    """Raise ``ValidationError`` if ``value`` is not one of the enumerated ``column``'s values."""
    allowed = ENUM_COLUMNS[column]
    if value not in allowed:
        raise ValidationError(column, value, f"use one of {', '.join(allowed)}")


def column_value(fields: dict[str, Any], column: str) -> Any:
    """What a backend stores in ``column`` for a record's prepared fields (JSON as text,
    defaults for the status columns)."""
    value = fields.get(column)
    if column in JSON_FIELDS:
        if not value:  # most records: no mentions, sources or metadata (no encoder call)
            return _EMPTY_JSON[column]
        return json.dumps(JSON_FIELDS[column](value), ensure_ascii=False)
    if column == "index_status":
        return value or "pending"
    if column == "message_kind":
        return value or "chat"
    return value
