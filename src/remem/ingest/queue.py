"""The indexing queue: embedding happens after the commit, off the caller's thread.

``ingest`` commits the message (it is durable and lexically searchable at once) and hands its
rowid to this queue; worker threads embed in batches and write the vectors. Search never waits
for the queue. The queue is bounded: when it is full the *oldest* pending item is dropped
(newest messages get their vectors first), counted and warned about; the record stays
``pending`` in the store, where the background backfill (``ingest/backfill.py``) finds
it and hands it back through ``offer`` as room appears. Nothing here is the only copy of
anything.

Settings: ``indexing.concurrency`` workers (0 or negative = one per pending batch, unbounded),
``indexing.max_queue`` items (0 or negative = unbounded).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

log = logging.getLogger("remem.queue")

# How long a finished record is remembered for ``offer(seen_at=...)``: longer than a
# backfill's scan of one chunk can take.
FINISHED_MEMORY_S = 120.0

# (rowids) -> (embedded, failed); must never raise for per-record failures
EmbedBatch = Callable[[Sequence[int]], tuple[int, int]]


class IndexQueue:
    def __init__(
        self,
        embed_batch: EmbedBatch,
        *,
        concurrency: int = 10,
        max_queue: int = 500,
        batch_size: int = 32,
        on_drop: Callable[[list[int]], None] | None = None,
        on_result: Callable[[list[int], int, int], None] | None = None,
    ) -> None:
        self._embed_batch = embed_batch
        self._on_drop = on_drop
        self._on_result = on_result  # (batch, embedded, failed) after every batch
        self.concurrency = concurrency if concurrency > 0 else None
        self.max_queue = max_queue if max_queue > 0 else None
        self.batch_size = max(1, batch_size)
        self._pending: deque[int] = deque()
        self._queued: set[int] = set()
        # Records being embedded right now: a record is never in two batches at once, so a
        # rewrite queued during an in-flight embedding is embedded after it, in order.
        self._in_flight: set[int] = set()
        # When recent records finished embedding (monotonic time, oldest first): an offer made
        # from a scan older than that skips them (the backfill saw them pending, and they were
        # done by the time it offered them: embedding them again would be wasted work).
        self._finished: dict[int, float] = {}
        self._cond = threading.Condition()
        self._workers: list[threading.Thread] = []
        self._busy = 0
        self._closed = False
        self.dropped = 0
        self.failed = 0
        self.embedded = 0

    # ------------------------------------------------------------------ producer side
    def submit(self, rowids: Sequence[int]) -> None:
        """Queue records for embedding; never blocks. Full queue: the oldest item is dropped."""
        dropped: list[int] = []
        with self._cond:
            if self._closed:
                raise RuntimeError("the indexing queue is closed")
            for rowid in rowids:
                if rowid in self._queued:
                    continue
                if self.max_queue is not None and len(self._pending) >= self.max_queue:
                    old = self._pending.popleft()
                    self._queued.discard(old)
                    dropped.append(old)
                    self.dropped += 1
                    if self.dropped == 1 or self.dropped % 100 == 0:
                        log.warning(
                            "indexing queue full (%d): the oldest pending items wait in the "
                            "store for the background backfill; raise indexing.max_queue or "
                            "indexing.concurrency if this is not a one-off burst (%d so far)",
                            self.max_queue,
                            self.dropped,
                        )
                self._pending.append(rowid)
                self._queued.add(rowid)
            self._ensure_workers()
            self._cond.notify_all()
        if dropped and self._on_drop is not None:
            self._on_drop(dropped)

    def room(self) -> int | None:
        """How many more items fit without dropping any (None: unbounded)."""
        with self._cond:
            return self._room()

    def _room(self) -> int | None:
        return None if self.max_queue is None else max(0, self.max_queue - len(self._pending))

    def offer(self, rowids: Sequence[int], seen_at: float | None = None) -> tuple[int, int]:
        """Queue records in order as far as there is room, never dropping anything; records
        already queued or being embedded are passed over, and so are records that finished
        embedding at or after ``seen_at`` (``time.monotonic()`` when the caller found them
        pending). Returns (queued, consumed): how many were queued, and how many of
        ``rowids`` were dealt with before the room ran out (the rest were not looked at)."""
        accepted = consumed = 0
        with self._cond:
            if self._closed:
                return 0, 0
            for rowid in rowids:
                room = self._room()
                if room is not None and room <= 0:
                    break
                consumed += 1
                if rowid in self._queued or rowid in self._in_flight:
                    continue
                if seen_at is not None and self._finished.get(rowid, -1.0) >= seen_at:
                    continue
                self._pending.append(rowid)
                self._queued.add(rowid)
                accepted += 1
            if accepted:
                self._ensure_workers()
                self._cond.notify_all()
        return accepted, consumed

    def wait_for_room(self, timeout: float) -> int | None:
        """Block until the queue has room (or ``timeout``); returns the room (None:
        unbounded, 0: still full or closed)."""
        with self._cond:
            self._cond.wait_for(lambda: self._closed or self._room() != 0, timeout)
            return 0 if self._closed else self._room()

    def _ensure_workers(self) -> None:
        alive = [w for w in self._workers if w.is_alive()]
        self._workers = alive
        wanted = -(-len(self._pending) // self.batch_size)  # batches waiting
        limit = self.concurrency if self.concurrency is not None else wanted
        while len(self._workers) < min(limit, max(wanted, 1)):
            worker = threading.Thread(target=self._run, name="remem-index", daemon=True)
            self._workers.append(worker)
            worker.start()

    # ------------------------------------------------------------------ worker side
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._ready() and not self._closed:
                    # idle workers exit after a while; submit() starts new ones
                    if not self._cond.wait(timeout=5.0) and not self._pending:
                        self._workers = [
                            w for w in self._workers if w is not threading.current_thread()
                        ]
                        return
                if not self._ready():
                    if self._closed and not self._pending:
                        return  # closed and drained
                    self._cond.wait(timeout=0.05)
                    continue
                batch = self._take_batch()
                self._busy += 1
            try:
                ok, bad = self._embed_batch(batch)
            except Exception:  # a bug, not a provider failure: keep the worker alive
                log.exception("indexing batch failed unexpectedly; records stay pending")
                ok, bad = 0, len(batch)
            if self._on_result is not None:
                # before the batch counts as done, so "idle" already includes its outcome
                try:
                    self._on_result(batch, ok, bad)
                except Exception:  # never lose the worker over a listener
                    log.exception("indexing queue listener failed")
            with self._cond:
                self._busy -= 1
                self._in_flight.difference_update(batch)
                if not bad:
                    self._note_finished(batch)
                self.embedded += ok
                self.failed += bad
                self._cond.notify_all()

    def _note_finished(self, batch: list[int]) -> None:
        now = time.monotonic()
        for rowid in batch:
            self._finished.pop(rowid, None)  # re-inserted at the end: the dict stays in order
            self._finished[rowid] = now
        # an offer comes from a scan seconds old at most: older entries are of no use
        while self._finished:
            oldest = next(iter(self._finished))
            if self._finished[oldest] >= now - FINISHED_MEMORY_S:
                break
            del self._finished[oldest]

    def _ready(self) -> bool:
        return any(r not in self._in_flight for r in self._pending)

    def _take_batch(self) -> list[int]:
        """Up to batch_size queued records that are not in flight, oldest first."""
        batch: list[int] = []
        keep: deque[int] = deque()
        while self._pending and len(batch) < self.batch_size:
            rowid = self._pending.popleft()
            if rowid in self._in_flight:
                keep.append(rowid)
            else:
                batch.append(rowid)
                self._queued.discard(rowid)
                self._in_flight.add(rowid)
        self._pending.extendleft(reversed(keep))
        return batch

    # ------------------------------------------------------------------ control
    def pending(self) -> int:
        with self._cond:
            return len(self._pending)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until nothing is queued or in flight (tests, benchmarks, shutdown)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending and self._busy == 0, timeout)

    def stats(self) -> dict[str, int]:
        with self._cond:
            return {
                "queued": len(self._pending),
                "in_flight_batches": self._busy,
                "embedded": self.embedded,
                "failed": self.failed,
                "dropped": self.dropped,
                "workers": len([w for w in self._workers if w.is_alive()]),
            }

    def close(self, *, drain: bool = True, timeout: float | None = 30.0) -> None:
        """Stop accepting work; with ``drain`` finish what is queued, all within ``timeout``.
        What is still queued then is left (pending in the store, for the backfill or `remem
        embed`): background embedding runs at a lower priority, and on a loaded machine it
        could take far longer than ``timeout`` to finish. A batch still in flight at the
        deadline is not waited for (its records stay pending if it cannot write them)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        drained = self.wait_idle(timeout) if drain else False
        with self._cond:
            self._closed = True
            if not drained:
                self._pending.clear()
                self._queued.clear()
            self._cond.notify_all()
        for worker in list(self._workers):
            worker.join(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
