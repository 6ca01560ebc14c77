"""Filters as SQL: the one WHERE fragment every query of a SQL backend shares.

SQLite and PostgreSQL ask the same conditions and differ in two things, held by a
``FilterDialect``: the placeholder, and how a list is bound (SQLite: one placeholder per value,
``IN (?,?,?)``; PostgreSQL: the whole list as one array parameter, ``= ANY(%s::text[])``, so a
filter of any length is one bound value).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from remem.types import Filters


@dataclass(frozen=True)
class FilterDialect:
    mark: str  # the placeholder
    arrays: bool  # a list is one array parameter (PostgreSQL), else one mark per value
    # Whether a session (or id) filter must keep the planner off the kind and scope indexes.
    # SQLite plans without statistics (no ANALYZE): it took the (kind, created_at) index for
    # "kind = 'message' AND session = ?" and walked every message of the store, 91 ms at
    # 100k for a session of 1,000 records, against 0.6 ms through the session index. A
    # session or an id list is always at least as narrow as a kind or a scope, so those two
    # columns are then compared as ``+column`` (SQLite's way to say "no index for this
    # term"). PostgreSQL keeps statistics and plans by them.
    session_first: bool = False

    def member(self, expr: str, values: list[str], *, negate: bool = False) -> tuple[str, list]:
        """``expr`` (not) among ``values``, and the parameters to bind."""
        if self.arrays:
            return f"{'NOT ' if negate else ''}{expr} = ANY({self.mark}::text[])", [list(values)]
        marks = ",".join(self.mark * len(values))
        return f"{expr} {'NOT ' if negate else ''}IN ({marks})", list(values)


SQLITE_FILTERS = FilterDialect(mark="?", arrays=False, session_first=True)
POSTGRES_FILTERS = FilterDialect(mark="%s", arrays=True)


def filters_where(
    filters: Filters | None, d: FilterDialect, alias: str = "r", now: float | None = None
) -> tuple[str, list[Any]]:
    """A WHERE fragment (starting with ' AND', or empty) and its parameters."""
    if filters is None:
        return "", []
    parts: list[str] = []
    params: list[Any] = []

    narrow = d.session_first and (filters.sessions is not None or filters.ids is not None)

    def member(column: str, values: list[str], negate: bool = False) -> str:
        unindexed = narrow and column in ("kind", "scope")
        sql, bound = d.member(f"{'+' if unindexed else ''}{alias}.{column}", values, negate=negate)
        params.extend(bound)
        return sql

    for column, values in (
        ("kind", filters.kinds),
        ("scope", filters.scopes),
        ("session", filters.sessions),
        ("role", filters.roles),
    ):
        if values is not None:
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
