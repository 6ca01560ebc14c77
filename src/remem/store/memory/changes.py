"""Changes to stored records in the in-memory store: text, validity, access statistics,
index status, and deletes."""

from __future__ import annotations

import json
import time
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from remem.store.memory.records import AFTER_ALL
from remem.store.memory.timeline import TimelineMixin
from remem.store.queries import TextUpdate
from remem.store.rows import check_value


class ChangesMixin(TimelineMixin):
    def _stamp(self, rowid: int, rev: int, now: float, **changes: Any) -> None:
        """Apply column changes to a row and stamp it as changed (a missing row: nothing)."""
        row = self._rows.get(rowid)
        if row is None:
            return
        row.values.update(changes)
        row.rev, row.updated_at = rev, now

    def update_text(self, change: TextUpdate) -> None:
        """See ``RecordStore.update_text``."""
        rowid = change.rowid
        with self._write():
            rev = self._bump_rev()
            columns = {"text": change.text, "visible_text": change.visible_text}
            self._stamp(rowid, rev, time.time(), **columns, content_hash=change.content_hash)
            if rowid in self._rows:
                self._lexical.set_tokens(rowid, change.tokens)

    def set_validity(self, rowid: int, valid_to: float | None, metadata: dict[str, Any]) -> None:
        """Close (or reopen, with None) a memory and replace its metadata, in one write."""
        text = json.dumps(metadata, ensure_ascii=False)
        with self._write():
            rev = self._bump_rev()
            self._stamp(rowid, rev, time.time(), valid_to=valid_to, metadata=text)

    def record_access(self, items: Sequence[tuple[int, int, float]]) -> None:
        """Add (rowid, count, last access time) to records' access statistics."""
        with self._write():
            for rowid, count, when in items:
                row = self._rows.get(rowid)
                if row is None:
                    continue
                values = row.values
                values["access_count"] += count
                values["last_access"] = max(values["last_access"] or 0, when)

    def mark_index_status(
        self, rowids: Sequence[int], status: str, error: str | None = None
    ) -> None:
        if not rowids:
            return
        check_value("index_status", status)
        with self._write():
            rev, now = self._bump_rev(), time.time()
            for rowid in rowids:
                self._stamp(rowid, rev, now, index_status=status, index_error=error)

    def delete(self, record_ids: Sequence[str]) -> int:
        """Delete records (and their vectors and lexical rows). Returns how many existed."""
        if not record_ids:
            return 0
        with self._write():
            rowids = [self._by_id[i] for i in dict.fromkeys(record_ids) if i in self._by_id]
            for rowid in rowids:
                self._drop_row(rowid)
            self._forget_facts_of(set(record_ids))
            if rowids:
                self._deletes += 1
        return len(rowids)

    def _drop_row(self, rowid: int) -> None:
        values = self._rows.pop(rowid).values
        del self._by_id[values["id"]]
        if values["session"] is not None:
            timeline = self._timelines[values["session"]]
            timeline.remove((values["created_at"], rowid))
            if not timeline:
                del self._timelines[values["session"]]
        self._lexical.remove(rowid)
        for seq in list(self._record_vectors.get(rowid, {}).values()):
            self._remove_vector(seq)
        self._latent.pop(rowid, None)
        self._awaiting_facts.discard(rowid)

    def delete_session_after(self, session: str, after: float) -> list[str]:
        """Delete a session's records created after ``after``; returns their ids."""
        with self._read():  # held across the delete: nothing lands in between
            timeline = self._timelines.get(session, [])
            later = timeline[bisect_right(timeline, (after, AFTER_ALL)) :]
            ids = [self._rows[rowid].values["id"] for _, rowid in later]
            self.delete(ids)
        return ids
