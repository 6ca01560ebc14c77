"""Filters as SQL for SQLite (``remem.store.filter_sql`` with SQLite's placeholders)."""

from __future__ import annotations

from typing import Any

from remem.store.filter_sql import SQLITE_FILTERS, filters_where
from remem.store.rows import STORED_FIELDS
from remem.types import Filters

RECORD_COLUMNS = ", ".join(("rowid", *STORED_FIELDS))


def in_marks(values: list[Any] | tuple[Any, ...]) -> str:
    """``?,?,?`` for an IN list of these values."""
    return ",".join("?" * len(values))


def filters_sql(
    filters: Filters | None, alias: str = "r", now: float | None = None
) -> tuple[str, list[Any]]:
    """A WHERE fragment (starting with ' AND', or empty) and its parameters."""
    return filters_where(filters, SQLITE_FILTERS, alias, now)
