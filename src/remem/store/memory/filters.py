"""Filters as a predicate over a stored row, with SQL's meaning of NULL: a missing value
is never equal to, nor among, the values a filter names."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from remem.types import Filters

Row = dict[str, Any]
Check = Callable[[Row], bool]


def _among(column: str, allowed: Iterable[Any]) -> Check:
    values = set(allowed)
    return lambda row: row[column] is not None and row[column] in values


def _equal(column: str, wanted: Any) -> Check:
    return lambda row: row[column] == wanted


def _platform(filters: Filters, sessions_with_platform: Callable[[str], set[str]]) -> Check:
    platform = filters.platform
    if not filters.platform_by_session:
        return _equal("platform", platform)
    # recorded on the platform, or in a session whose origin (root's) platform it is
    sessions = sessions_with_platform(platform) if platform is not None else set()
    return lambda row: row["platform"] == platform or row["session"] in sessions


def _checks(
    filters: Filters, now: float | None, sessions_with_platform: Callable[[str], set[str]]
) -> list[Check]:
    checks = [_among(column, allowed) for column, allowed in filters.listed_columns()]
    if filters.ids is not None:
        checks.append(_among("id", filters.ids))
    if filters.exclude_roles:
        excluded = set(filters.exclude_roles)  # records without a role are kept
        checks.append(lambda row: row["role"] is None or row["role"] not in excluded)
    if filters.exclude_ids:
        excluded_ids = set(filters.exclude_ids)
        checks.append(lambda row: row["id"] not in excluded_ids)
    since, until = filters.since, filters.until
    if since is not None:
        checks.append(lambda row: row["created_at"] >= since)
    if until is not None:
        checks.append(lambda row: row["created_at"] <= until)
    if filters.platform is not None:
        checks.append(_platform(filters, sessions_with_platform))
    if filters.category is not None:
        checks.append(_equal("category", filters.category))
    if filters.include_superseded is False:
        cutoff = time.time() if now is None else now
        checks.append(lambda row: row["valid_to"] is None or row["valid_to"] > cutoff)
    return checks


def record_predicate(
    filters: Filters | None,
    now: float | None,
    sessions_with_platform: Callable[[str], set[str]],
) -> Check:
    """True for a row (``STORED_FIELDS`` columns) that passes the filters. ``now`` is the
    time superseded memories are judged at (default: the current time);
    ``sessions_with_platform`` answers ``platform_by_session``."""
    if filters is None:
        return lambda _row: True
    checks = _checks(filters, now, sessions_with_platform)
    return lambda row: all(check(row) for check in checks)
