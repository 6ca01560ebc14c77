"""Filters as SQL: the one WHERE fragment every query of a SQL backend shares.

SQLite and PostgreSQL ask the same conditions and differ in two things, held by their
``SQLDialect``: the placeholder, and how a list is bound (SQLite: one placeholder per value,
``IN (?,?,?)``; PostgreSQL: the whole list as one array parameter, ``= ANY(%s::text[])``, so a
filter of any length is one bound value).
"""

from __future__ import annotations

import time
from typing import Any

from remem.store.sql_dialect import SQLDialect
from remem.types import Filters


def filters_where(
    filters: Filters | None,
    d: SQLDialect,
    alias: str = "r",
    now: float | None = None,
    *,
    keyed: bool = False,
) -> tuple[str, list[Any]]:
    """A WHERE fragment (starting with ' AND', or empty) and its parameters.

    ``keyed``: the statement already finds its rows by key (a rowid list, one session's
    window), and the filters only check those rows: on a dialect that plans without
    statistics (``session_first``) no filter column may then lead the plan. SQLite took the
    (kind, created_at) index for ``rowid IN (...) AND kind = 'message'`` and for a session
    window's ``session = ? AND kind = 'message'``, walking the store's messages for a few
    rows: 0.2 s to 0.7 s a statement at 100k, most of a whole-store search's tail."""
    if filters is None:
        return "", []
    parts: list[str] = []
    params: list[Any] = []

    unindexed_columns: tuple[str, ...] = ()
    if d.session_first and keyed:
        unindexed_columns = ("kind", "scope", "session")
    elif d.session_first and (filters.sessions is not None or filters.ids is not None):
        unindexed_columns = ("kind", "scope")

    def member(column: str, values: list[str], negate: bool = False) -> str:
        unindexed = column in unindexed_columns
        sql, bound = d.member(f"{'+' if unindexed else ''}{alias}.{column}", values, negate=negate)
        params.extend(bound)
        return sql

    for column, values in filters.listed_columns():
        parts.append(member(column, values))
    if filters.exclude_roles:
        parts.append(
            f"({alias}.role IS NULL OR {member('role', filters.exclude_roles, negate=True)})"
        )
    if filters.exclude_ids:
        parts.append(member("id", filters.exclude_ids, negate=True))
    if filters.ids is not None:
        parts.append(member("id", filters.ids))
    m = d.mark
    if filters.since is not None:
        parts.append(f"{alias}.created_at >= {m}")
        params.append(filters.since)
    if filters.until is not None:
        parts.append(f"{alias}.created_at <= {m}")
        params.append(filters.until)
    if filters.platform is not None:
        if filters.platform_by_session:
            # recorded on the platform, or in a session whose origin (root's) platform it is
            parts.append(
                f"({alias}.platform = {m} OR {alias}.session IN "
                f"(SELECT id FROM sessions WHERE platform = {m}))"
            )
            params += [filters.platform, filters.platform]
        else:
            parts.append(f"{alias}.platform = {m}")
            params.append(filters.platform)
    if filters.category is not None:
        parts.append(f"{alias}.category = {m}")
        params.append(filters.category)
    if filters.include_superseded is False:
        parts.append(f"({alias}.valid_to IS NULL OR {alias}.valid_to > {m})")
        params.append(time.time() if now is None else now)
    if not parts:
        return "", []
    return " AND " + " AND ".join(parts), params
