"""The shape of ``Store.stats()``: what every backend counts, as typed dictionaries (they
are written out as JSON by ``remem stats --json`` and ``GET /v1/stats`` in this key order)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict


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


def record_groups(count_by: Callable[[str], dict[str, int]]) -> RecordGroups:
    """The grouped counts, each asked of ``count_by(column)`` (a backend's GROUP BY)."""
    return {
        "by_kind": count_by("kind"),
        "by_scope": count_by("scope"),
        "by_role": count_by("role"),
        "by_category": count_by("category"),
        "index_status": count_by("index_status"),
    }
