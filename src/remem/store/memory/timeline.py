"""Reads along one session's timeline: a message at a time, the turns before one, and the
neighbours of hits. A session's records are kept sorted by (created_at, rowid)."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from typing import Any

from remem.store.memory.records import AFTER_ALL, RecordsMixin
from remem.store.queries import SessionWindow
from remem.types import Record

HIDDEN_FROM_CONTEXT = ("control", "directive")


class TimelineMixin(RecordsMixin):
    def find_message(self, session: str, created_at: float) -> Record | None:
        """The message of a session at exactly this time (the newest if several)."""
        with self._read():
            timeline = self._timelines.get(session, [])
            end = bisect_right(timeline, (created_at, AFTER_ALL))
            if end == 0 or timeline[end - 1][0] != created_at:
                return None
            return self._record(timeline[end - 1][1])

    def previous_texts(self, session: str, before: float, limit: int) -> list[Record]:
        """The last ``limit`` records of a session created before ``before``, oldest first."""
        with self._read():
            timeline = self._timelines.get(session, [])
            found = self._walk(
                timeline,
                range(bisect_left(timeline, (before,)) - 1, -1, -1),
                limit,
                lambda v: v["index_status"] != "skipped",
            )
            return found[::-1]

    def neighbours(
        self, records: Sequence[Record], window: SessionWindow
    ) -> dict[int, list[Record]]:
        """See ``Store.neighbours`` (store/base.py), which says what the window holds."""
        with self._read():
            passes = self._predicate(window.filters, window.now)

            def keep(v: dict[str, Any]) -> bool:
                if window.context:
                    hidden = v["message_kind"] in HIDDEN_FROM_CONTEXT
                else:
                    hidden = v["index_status"] == "skipped"
                return not hidden and passes(v)

            out: dict[int, list[Record]] = {}
            for rec in records:
                if not rec.session or rec.rowid is None:
                    continue
                timeline = self._timelines.get(rec.session, [])
                anchor = (rec.created_at, rec.rowid)
                start, end = bisect_left(timeline, anchor), bisect_right(timeline, anchor)
                earlier = self._walk(timeline, range(start - 1, -1, -1), window.before, keep)
                later = self._walk(timeline, range(end, len(timeline)), window.after, keep)
                out[rec.rowid] = earlier + later
            return out

    def _walk(
        self,
        timeline: list[tuple[float, int]],
        positions: range,
        limit: int,
        keep: Callable[[dict[str, Any]], bool],
    ) -> list[Record]:
        """Up to ``limit`` records at these timeline positions (in that order) that keep."""
        found: list[Record] = []
        if limit <= 0:
            return found
        for position in positions:
            rowid = timeline[position][1]
            if keep(self._rows[rowid].values):
                found.append(self._record(rowid))
                if len(found) == limit:
                    break
        return found
