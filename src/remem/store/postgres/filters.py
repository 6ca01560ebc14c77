"""Filters as SQL for PostgreSQL: one WHERE fragment every query shares.

The same conditions as ``remem.store.sqlite.filters``; lists go as one array parameter
(``= ANY(%s)``), so a filter of any length is one bound value.
"""

from __future__ import annotations

import time
from typing import Any

from remem.store.rows import STORED_FIELDS
from remem.types import Filters

RECORD_COLUMNS = ", ".join(f"r.{name}" for name in ("rowid", *STORED_FIELDS))


def filters_sql(
    filters: Filters | None, alias: str = "r", now: float | None = None
) -> tuple[str, list[Any]]:
    """A WHERE fragment (starting with ' AND', or empty) and its parameters."""
    if filters is None:
        return "", []
    parts: list[str] = []
    params: list[Any] = []

    def _in(column: str, values: list[str]) -> None:
        parts.append(f"{alias}.{column} = ANY(%s::text[])")
        params.append(list(values))

    if filters.kinds is not None:
        _in("kind", filters.kinds)
    if filters.scopes is not None:
        _in("scope", filters.scopes)
    if filters.sessions is not None:
        _in("session", filters.sessions)
    if filters.roles is not None:
        _in("role", filters.roles)
    if filters.exclude_roles:
        parts.append(f"({alias}.role IS NULL OR NOT {alias}.role = ANY(%s::text[]))")
        params.append(list(filters.exclude_roles))
    if filters.exclude_ids:
        parts.append(f"NOT {alias}.id = ANY(%s::text[])")
        params.append(list(filters.exclude_ids))
    if filters.ids is not None:
        _in("id", filters.ids)
    if filters.since is not None:
        parts.append(f"{alias}.created_at >= %s")
        params.append(filters.since)
    if filters.until is not None:
        parts.append(f"{alias}.created_at <= %s")
        params.append(filters.until)
    if filters.platform is not None:
        if filters.platform_by_session:
            # recorded on the platform, or in a session whose origin (root's) platform it is
            parts.append(
                f"({alias}.platform = %s OR {alias}.session IN "
                "(SELECT id FROM sessions WHERE platform = %s))"
            )
            params += [filters.platform, filters.platform]
        else:
            parts.append(f"{alias}.platform = %s")
            params.append(filters.platform)
    if filters.category is not None:
        parts.append(f"{alias}.category = %s")
        params.append(filters.category)
    if not filters.include_superseded:
        parts.append(f"({alias}.valid_to IS NULL OR {alias}.valid_to > %s)")
        params.append(time.time() if now is None else now)
    if not parts:
        return "", []
    return " AND " + " AND ".join(parts), params
