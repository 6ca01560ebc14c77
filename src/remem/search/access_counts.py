"""Access reinforcement: explicit recalls count, once per window, and are written in batches.

Only explicit recalls (an agent calling the recall tool, a user asking) touch a record; the
automatic recall before every LLM call never does, or everything frequently mentioned would
become unforgettable. Repeated recalls of one record within ``window_s`` of its last counted
access count once (an agent asking three times in one conversation is one use, not three);
the window starts at the record's stored ``last_access``, so it holds across processes.
Writes are batched: counted touches collect in memory and are committed at most once every
``debounce_s`` seconds (and on close), so a burst of recalls costs one transaction.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from remem.store.base import RecordStore
from remem.types import Record


class AccessRecorder:
    def __init__(self, store: RecordStore, debounce_s: float = 30.0, window_s: float = 0.0) -> None:
        self.store = store
        self.debounce_s = debounce_s
        self.window_s = window_s
        self._pending: dict[int, tuple[int, float]] = {}
        self._counted: dict[int, float] = {}  # rowid -> time of its last counted access
        self._lock = threading.Lock()
        self._last_flush = time.monotonic()

    def _counts(self, record: Record, when: float) -> bool:
        assert record.rowid is not None
        last = self._counted.get(record.rowid, record.last_access)
        return last is None or abs(when - last) >= self.window_s

    def touch(self, records: Sequence[Record], when: float) -> int:
        """Count an access of each record (those inside their window do not count); returns
        how many counted."""
        counted = 0
        with self._lock:
            for record in records:
                if record.rowid is None or not self._counts(record, when):
                    continue
                count, last = self._pending.get(record.rowid, (0, 0.0))
                self._pending[record.rowid] = (count + 1, max(last, when))
                self._counted[record.rowid] = when
                counted += 1
            due = time.monotonic() - self._last_flush >= self.debounce_s
        if due:
            self.flush()
        return counted

    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def flush(self) -> int:
        with self._lock:
            items = [(r, c, t) for r, (c, t) in self._pending.items()]
            self._pending.clear()
            self._last_flush = time.monotonic()
            # once written, the stored last_access carries the window: forget old entries
            newest = max(self._counted.values(), default=0.0)
            self._counted = {r: t for r, t in self._counted.items() if newest - t < self.window_s}
        if items:
            self.store.record_access(items)
        return len(items)
