"""Access reinforcement: explicit recalls count, and the counts are written in batches.

Only explicit recalls (an agent calling the recall tool, a user asking) touch a record; the
automatic recall before every LLM call never does, or everything frequently mentioned would
become unforgettable. Writes are debounced: touches collect in memory and are committed at most
once every ``debounce_s`` seconds (and on close), so a burst of recalls costs one transaction.
"""

from __future__ import annotations

import threading
import time

from remem.store.base import RecordStore


class AccessRecorder:
    def __init__(self, store: RecordStore, debounce_s: float = 30.0) -> None:
        self.store = store
        self.debounce_s = debounce_s
        self._pending: dict[int, tuple[int, float]] = {}
        self._lock = threading.Lock()
        self._last_flush = time.monotonic()

    def touch(self, rowids: list[int], when: float) -> None:
        with self._lock:
            for rowid in rowids:
                count, last = self._pending.get(rowid, (0, 0.0))
                self._pending[rowid] = (count + 1, max(last, when))
            due = time.monotonic() - self._last_flush >= self.debounce_s
        if due:
            self.flush()

    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def flush(self) -> int:
        with self._lock:
            items = [(r, c, t) for r, (c, t) in self._pending.items()]
            self._pending.clear()
            self._last_flush = time.monotonic()
        if items:
            self.store.record_access(items)
        return len(items)
