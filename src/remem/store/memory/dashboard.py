"""The in-memory store's dashboard reads (``DashboardStore``), computed over its rows under
the store's lock, answering exactly as the SQL backends do."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from remem.store.dashboard import (
    ALL_NEWEST,
    BREAKDOWN_COLUMNS,
    QUARTER,
    DistinctColumn,
    RecordBreakdown,
    SessionSummary,
    StoreSize,
    pattern_regex,
)
from remem.store.memory.records import RecordsMixin
from remem.store.memory.state import first
from remem.store.queries import NewestIds
from remem.types import Filters


def _regex(pattern: str) -> re.Pattern[str]:
    """A portable text pattern (``PATTERN_PARTS``) as a Python regular expression (searched
    for: ``pattern_regex`` anchors it as the SQL backends match the whole text)."""
    return re.compile(pattern_regex(pattern, re.escape, end=r"\Z"), re.S)  # "$" allows a "\n"


DISTINCT_COLUMNS: tuple[DistinctColumn, ...] = ("scope", "category", "speaker_label")


def _greatest(values: list[Any]) -> Any:
    """SQL's ``max``: the greatest value that is not None (None when there is none)."""
    present = [v for v in values if v is not None]
    return max(present) if present else None


class DashboardMixin(RecordsMixin):
    def _passing(self, filters: Filters | None) -> list[tuple[int, dict[str, Any]]]:
        passes = self._predicate(filters)
        return [(rowid, row.values) for rowid, row in self._rows.items() if passes(row.values)]

    def breakdown(self, filters: Filters | None = None) -> RecordBreakdown:
        with self._read():
            rows = self._passing(filters)
            models = Counter(
                model for rowid, _ in rows for model in self._record_vectors.get(rowid, {})
            )
        return RecordBreakdown(
            by_column={
                column: dict(Counter(values[column] for _, values in rows))
                for column in BREAKDOWN_COLUMNS
            },
            vectors_by_model=dict(models),
            per_quarter=dict(
                Counter((int(values["created_at"] / QUARTER), values["kind"]) for _, values in rows)
            ),
            sessions=len({v["session"] for _, v in rows if v["session"] is not None}),
        )

    def session_summaries(
        self, filters: Filters | None = None, *, limit: int = 200
    ) -> list[SessionSummary]:
        with self._read():
            by_session: dict[str, list[dict[str, Any]]] = {}
            for _, values in self._passing(filters):
                if values["session"] is not None:
                    by_session.setdefault(values["session"], []).append(values)
        summaries = []
        for session, rows in by_session.items():
            times = [v["created_at"] for v in rows]
            summaries.append(
                SessionSummary(
                    session,
                    _greatest([v["platform"] for v in rows]),
                    _greatest([v["group_id"] for v in rows]),
                    _greatest([v["group_name"] for v in rows]),
                    len(rows),
                    min(times),
                    max(times),
                )
            )
        summaries.sort(key=lambda s: s.session)
        summaries.sort(key=lambda s: s.last, reverse=True)  # stable: ties stay by session
        return summaries[:limit]

    def distinct_values(self, column: DistinctColumn, filters: Filters | None = None) -> list[str]:
        if column not in DISTINCT_COLUMNS:
            raise ValueError(f"distinct_values: column {column!r}; use one of {DISTINCT_COLUMNS}")
        with self._read():
            values = {v[column] for _, v in self._passing(filters)}
        return sorted(v for v in values if v is not None)

    def speaker_lines_matching(
        self, patterns: Sequence[str], filters: Filters | None = None, *, limit: int = 10_000
    ) -> list[tuple[str, str]]:
        compiled = [_regex(p) for p in patterns]
        with self._read():
            rows = sorted(self._passing(filters), key=lambda row: row[0], reverse=True)
        found = [
            (values["speaker_label"], values["text"])
            for _, values in rows
            if values["speaker_label"] is not None
            and any(c.search(values["text"]) for c in compiled)
        ]
        return found[:limit]

    def newest_ids(self, query: NewestIds = ALL_NEWEST) -> list[str]:
        ended_by = query.ended_by

        def ended(values: dict[str, Any]) -> bool:
            valid_to = values["valid_to"]
            return ended_by is None or (valid_to is not None and valid_to <= ended_by)

        with self._read():
            passes = self._predicate(query.filters)
            rowids = self._sorted_rowids(lambda v: passes(v) and ended(v), newest_first=True)
            return [self._rows[r].values["id"] for r in first(rowids, query.limit, query.offset)]

    def storage_size(self) -> StoreSize:
        return StoreSize(0, "memory", ":memory:")
