"""The shape of ``Store.stats()``: what every backend counts, as typed dictionaries (they
are written out as JSON by ``remem stats --json`` and ``GET /v1/stats`` in this key order)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypedDict


class VectorCount(TypedDict):
    """Stored vectors of one model and dimension."""

    model_id: str
    dim: int
    count: int


class RecordGroups(TypedDict):
    """Record counts by one column's values, most first; a NULL is counted as "(none)"."""

    by_kind: dict[str, int]
    by_scope: dict[str, int]
    by_role: dict[str, int]
    by_category: dict[str, int]
    index_status: dict[str, int]


class StorageStats(TypedDict):
    """Where the data lives: bytes on disk (0 in memory) and the file, URL or ":memory:"."""

    file_bytes: int
    path: str


class StoreStats(RecordGroups, StorageStats):
    """A store's counts (``Store.stats()``)."""

    records: int
    vectors: list[VectorCount]
    index_errors: int  # records whose indexing failed (skipped ones left out)
    queue_dropped_total: int  # records any indexing queue dropped (left to the backfill)
    sessions: int
    facts: int
    schema_version: int


# Counted together in one scan of the records: no index leads with these columns (their
# values are few and no query looks records up by them), so each GROUP BY of its own would
# read every record again. kind and scope are read from their indexes, one column at a time.
SCANNED_TOGETHER = ("role", "category", "index_status")

GroupCounts = dict[str, dict[str, int]]  # column -> value ("(none)" for NULL) -> records


def record_groups(count_by: Callable[[tuple[str, ...]], GroupCounts]) -> RecordGroups:
    """The grouped counts, asked of ``count_by(columns)``: a backend's one GROUP BY over
    ``columns``, summed per column, each column's values most first."""
    together = count_by(SCANNED_TOGETHER)
    return {
        "by_kind": count_by(("kind",))["kind"],
        "by_scope": count_by(("scope",))["scope"],
        "by_role": together["role"],
        "by_category": together["category"],
        "index_status": together["index_status"],
    }


def sum_groups(columns: tuple[str, ...], rows: Iterable[Sequence[Any]]) -> GroupCounts:
    """Per column, the counts of rows of (value of each column ..., count), most first; a
    NULL value is counted as "(none)"."""
    totals: dict[str, Counter[str]] = {column: Counter() for column in columns}
    for row in rows:
        n = int(row[-1])
        for column, value in zip(columns, row, strict=False):
            totals[column]["(none)" if value is None else value] += n
    return {column: dict(counts.most_common()) for column, counts in totals.items()}
