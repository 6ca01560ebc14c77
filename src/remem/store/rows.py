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


def row_to_record(row: Sequence[Any]) -> Record:
    """A record from ``(rowid, *STORED_FIELDS)`` as a SQL row holds it (JSON as text)."""
    values = dict(zip(STORED_FIELDS, row[1:], strict=True))
    for name, empty in JSON_FIELDS.items():
        values[name] = _json(values[name], empty)
    return Record(rowid=row[0], **values)


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
        empty = JSON_FIELDS[column]
        return json.dumps(empty(value or empty()), ensure_ascii=False)
    if column == "index_status":
        return value or "pending"
    if column == "message_kind":
        return value or "chat"
    return value
