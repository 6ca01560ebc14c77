"""The background backfill: nothing stays unsearchable.

Records can be left without a vector in three ways: the queue was full (a burst, a bulk
ingest bigger than ``indexing.max_queue``), the process died with records queued, or the
embedding provider failed. All three leave the record ``pending`` in the store, so one loop
covers them: scan the store for pending records without a vector of the model and hand them
to the queue *only as far as it has room*. A bulk ingest therefore runs at the model's pace
instead of overflowing the queue. The indexer's backfill scans newest first (``find_below``:
a long import's recent turns, the likeliest to be asked about, get the main model's vectors
first, as with `remem embed`); a pass still covers every record above the lowest one left
pending, top down.

While the provider fails, the loop backs off (exponentially, up to ``max_backoff_s``) and then
scans again. It sleeps when a whole pass found nothing new to hand over, until something is
deferred or fails again. Records that have a vector of another model only (a model switch in
progress) are left to `remem reembed`.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Sequence

from remem.errors import RememError
from remem.ingest.queue import IndexQueue
from remem.store.base import Store
from remem.store.queries import Backlog

log = logging.getLogger("remem.backfill")

# (after rowid, limit) -> (pending rowids without a vector, last rowid scanned or None)
FindPending = Callable[[int, int], tuple[list[int], int | None]]
# (floor, below or None for the top, limit) -> the same, newest first above ``floor``; the
# last rowid scanned is the lowest
FindPendingBelow = Callable[[int, int | None, int], tuple[list[int], int | None]]


class StoppableLoop:
    """A background loop on a thread of its own that waits on a condition and ends when
    ``_stopped`` is set (the backfill, the latent fill)."""

    _cond: threading.Condition
    _thread: threading.Thread
    _stopped: bool

    def stop(self, timeout: float | None = 5.0) -> None:
        """Mark it stopped, wake it, and wait for its thread (unless the loop itself asks, or
        it never started)."""
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._thread.ident is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)


def pending_without_vector(
    store: Store, model_id: str, after: int, limit: int
) -> tuple[list[int], int | None]:
    """A ``FindPending`` step: the pending records without a vector of ``model_id`` after
    rowid ``after`` (records with another model's vector only are a model switch, `remem
    reembed`'s job), and the last rowid looked at (None at the end of the store)."""
    found = store.records_missing_vectors(Backlog(model_id, limit, after_rowid=after))
    if not found:
        return [], None
    rowids = [r.rowid for r in found if r.rowid is not None and r.index_status == "pending"]
    return rowids, found[-1].rowid


def newest_first(store: Store, model_id: Callable[[], str | None]) -> FindPendingBelow:
    """The ``FindPendingBelow`` of ``store`` for the model ``model_id()`` names (none: nothing
    to embed with, the pass ends)."""

    def find(floor: int, below: int | None, limit: int) -> tuple[list[int], int | None]:
        model = model_id()
        return ([], None) if model is None else pending_below(store, model, floor, below, limit)

    return find


def pending_below(
    store: Store, model_id: str, floor: int, below: int | None, limit: int
) -> tuple[list[int], int | None]:
    """``pending_without_vector`` newest first, below rowid ``below`` (the top of the store
    when None) and above ``floor``."""
    found = store.records_missing_vectors(
        Backlog(model_id, limit=limit, before_rowid=sys.maxsize if below is None else below)
    )
    found = [r for r in found if r.rowid is not None and r.rowid > floor]
    if not found:
        return [], None
    rowids = [r.rowid for r in found if r.rowid is not None and r.index_status == "pending"]
    return rowids, found[-1].rowid


class Backfill(StoppableLoop):
    def __init__(
        self,
        queue: IndexQueue,
        find: FindPending | None,
        *,
        chunk: int = 256,
        base_backoff_s: float = 1.0,
        max_backoff_s: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
        scan_at_start: bool = True,
        on_clean_pass: Callable[[], None] | None = None,
        start: bool = True,
        check_every_s: float = 0.0,
        needs_pass: Callable[[], bool] | None = None,
        find_below: FindPendingBelow | None = None,
    ) -> None:
        self.queue = queue
        self._find = find
        self._find_below = find_below  # given: passes go newest first (``_one_pass_down``)
        self._on_clean_pass = on_clean_pass  # a whole pass found nothing pending
        # While idle, every ``check_every_s`` ask ``needs_pass`` (a cheap look at the store)
        # whether records were left pending without an event here: another process that
        # shares the store died with records queued.
        self._check_every_s = check_every_s if needs_pass is not None else 0.0
        self._needs_pass = needs_pass
        self.chunk = max(1, chunk)
        self.max_backoff_s = max_backoff_s
        self.base_backoff_s = min(base_backoff_s, max_backoff_s)
        self._clock = clock
        self._cond = threading.Condition()
        # A pass is owed at start (crash leftovers from an earlier run) unless the caller knows
        # nothing was left pending since the last clean pass.
        self._rescan = scan_at_start
        # Where the owed pass starts: just below the lowest record known to be left pending
        # (0 at start), so a pass does not rescan the indexed bulk of a large store.
        self._start = 0
        self._failures = 0  # batches in a row that embedded nothing
        self._retry_at = 0.0
        self._stopped = False
        self._active = False  # a pass is running
        self.fed = 0  # records handed to the queue by the backfill
        self._thread = threading.Thread(target=self._run, name="remem-backfill", daemon=True)
        if start:
            self._thread.start()

    def start(self) -> None:
        """Start the loop (for a backfill made with ``start=False``: whoever reports the
        queue's results to it must hold it first, or the first batches' failures are lost)."""
        if not self._thread.is_alive() and self._thread.ident is None:
            self._thread.start()

    # ------------------------------------------------------------------ signals
    def wake(self, rowids: Sequence[int] = (0,)) -> None:
        """These records were left pending (deferred or dropped by the queue, or failed):
        scan again, from the lowest of them."""
        with self._cond:
            self._owe_pass(min(rowids, default=0))
            self._cond.notify_all()

    def _owe_pass(self, lowest: int) -> None:
        start = max(0, lowest - 1)
        self._start = start if not self._rescan else min(self._start, start)
        self._rescan = True

    def record_result(self, batch: Sequence[int], embedded: int, failed: int) -> None:
        """A queue batch finished: a batch that embedded nothing backs the loop off; one that
        embedded something resets it. Either way the failed records are scanned again."""
        with self._cond:
            if failed:
                self._owe_pass(min(batch, default=0))
            if failed and not embedded:
                self._failures += 1
                delay = min(self.max_backoff_s, self.base_backoff_s * 2 ** (self._failures - 1))
                self._retry_at = self._clock() + delay
                if self._failures in (1, 5) or self._failures % 20 == 0:
                    log.warning(
                        "embedding failed %d time(s) in a row; pending records are retried "
                        "in %.0fs",
                        self._failures,
                        delay,
                    )
            elif embedded:
                self._failures = 0
                self._retry_at = 0.0
            self._cond.notify_all()

    @property
    def backing_off(self) -> bool:
        with self._cond:
            return self._retry_at > self._clock()

    def settled(self) -> bool:
        """Nothing left to hand over right now: no pass owed, or waiting out a back-off, or
        stopped (a pass owed then will never run)."""
        with self._cond:
            if self._stopped or self._retry_at > self._clock():
                return True
            return not self._active and not self._rescan

    def stats(self) -> dict[str, float | int | bool]:
        with self._cond:
            wait = max(0.0, self._retry_at - self._clock())
            return {
                "fed": self.fed,
                "failures_in_a_row": self._failures,
                "retry_in_s": round(wait, 1),
                "scanning": self._active or (self._rescan and not wait),
            }

    # ------------------------------------------------------------------ the loop
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._stopped and (not self._rescan or self._retry_at > self._clock()):
                    if self._rescan:
                        self._cond.wait(timeout=self._retry_at - self._clock())
                    elif not self._cond.wait(timeout=self._check_every_s or None):
                        self._cond.release()  # the check reads the store: not under the lock
                        try:
                            owed = self._check()
                        finally:
                            self._cond.acquire()
                        if owed:
                            self._owe_pass(0)
                if self._stopped:
                    return
                self._rescan = False
                self._active = True
                start = self._start
            try:
                clean = self._one_pass(start) and start == 0
                if clean and self._on_clean_pass is not None:
                    self._on_clean_pass()
            except RememError as exc:  # the store or the model cannot be reached: back off
                log.warning("backfill could not scan for pending records: %s", exc)
                self.record_result([start + 1], 0, 1)
            except Exception:  # a bug: say so, keep the process alive, try again later
                log.exception("backfill pass failed unexpectedly")
                self.record_result([start + 1], 0, 1)
            finally:
                with self._cond:
                    self._active = False
                    self._cond.notify_all()

    def _check(self) -> bool:
        assert self._needs_pass is not None
        try:
            return self._needs_pass()
        except RememError as exc:  # the store is unreachable now: look again next time
            log.debug("backfill check failed: %s", exc)
            return False

    def _one_pass(self, start: int) -> bool:
        """Scan for pending records, handing them to the queue as room appears: from rowid
        ``start`` up, or, given ``find_below``, newest first from the top of the store down
        to ``start``. True when the pass reached its end having found nothing."""
        down = self._find_below is not None
        cursor: int | None = None if down else start  # below it (down) or after it (up)
        found_any = False
        while not self._stopped:
            room = self.queue.wait_for_room(timeout=1.0)
            if room == 0:
                if self._stopped or self.backing_off:
                    return False
                continue
            seen_at = time.monotonic()  # records done after this are not handed over again
            rowids, last = self._page(
                start, cursor, self.chunk if room is None else min(room, self.chunk)
            )
            if last is None:
                return not found_any  # the end of this pass's range: the pass is complete
            found_any = found_any or bool(rowids)
            accepted, consumed = self.queue.offer(rowids, seen_at=seen_at)
            with self._cond:
                self.fed += accepted
            if consumed == len(rowids):
                cursor = last
            elif consumed:  # the queue filled up meanwhile: go on past the last one taken
                cursor = rowids[consumed - 1]
            if self.backing_off:
                # after the back-off: the rest of an upward pass; a downward one from the top
                self.wake([start + 1 if down or cursor is None else cursor + 1])
                return False
        return False

    def _page(self, start: int, cursor: int | None, limit: int) -> tuple[list[int], int | None]:
        """The next page of pending rowids past ``cursor``, and the last rowid it read (None:
        nothing left in the pass's range)."""
        if self._find_below is not None:
            return self._find_below(start, cursor, limit)
        assert self._find is not None and cursor is not None
        return self._find(cursor, limit)


def wait_settled(
    queue: IndexQueue,
    backfill: Backfill | None,
    timeout: float | None,
    *,
    then: Callable[[float | None], bool] | None = None,
) -> bool:
    """Block until ``queue`` has embedded everything handed to it and ``backfill`` (if any) has
    handed over every pending record it could, or is waiting out a failing provider; and then
    until ``then`` (given the time left) says the work that follows the queue is settled (the
    latent fill). False when ``timeout`` ran out first."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not queue.wait_idle(left):
            return False
        if backfill is None or backfill.settled():
            if then is not None:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not then(left):
                    return False
            if queue.wait_idle(0):  # nothing was fed meanwhile
                return True
            continue
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
