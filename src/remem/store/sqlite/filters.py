"""Filters as SQL for SQLite (``remem.store.filter_sql`` in SQLite's dialect)."""

from __future__ import annotations

from typing import Any

from remem.store.filter_sql import filters_where
from remem.store.sql_dialect import SQLITE
from remem.types import Filters

RECORD_COLUMNS = SQLITE.columns


def in_marks(values: list[Any] | tuple[Any, ...]) -> str:
    """``?,?,?`` for an IN list of these values."""
    return ",".join("?" * len(values))


def filters_sql(
    filters: Filters | None, alias: str = "r", now: float | None = None
) -> tuple[str, list[Any]]:
    """A WHERE fragment (starting with ' AND', or empty) and its parameters."""
    return filters_where(filters, SQLITE, alias, now)
