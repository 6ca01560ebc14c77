"""Filters as SQL for PostgreSQL (``remem.store.filter_sql``: lists go as one array
parameter, ``= ANY(%s)``, so a filter of any length is one bound value)."""

from __future__ import annotations

from typing import Any

from remem.store.filter_sql import filters_where
from remem.store.sql_dialect import POSTGRES
from remem.types import Filters

RECORD_COLUMNS = POSTGRES.columns


def filters_sql(
    filters: Filters | None, alias: str = "r", now: float | None = None
) -> tuple[str, list[Any]]:
    """A WHERE fragment (starting with ' AND', or empty) and its parameters."""
    return filters_where(filters, POSTGRES, alias, now)
