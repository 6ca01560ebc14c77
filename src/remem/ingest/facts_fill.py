"""Fact extraction after the acknowledgement (issue 47): the facts backlog, worked off in batches.

Reading the facts out of a message (``remem.facts``: some eighty rules tried per sentence)
cost about as much CPU as the rest of an acknowledged write together. So a write only marks
its records as waiting for their facts (``insert_records(awaiting_facts=True)``, in the
write's own transaction: durable with the record), and this fill reads them afterwards on a
thread of its own, in batches:

- the records this process wrote (``owe``), once its writes pause for ``facts.quiet_ms`` or
  the oldest has waited ``facts.max_wait_s``: a burst is not slowed by extraction, and no
  fact lags a write by much more than that;
- at start, the records any process left waiting (a process killed between a write and
  its extraction): the backlog as it stood when the fill started (``recover``), like the
  missing vectors the backfill finds, walked after this process's own records (when a
  write started the walk: once its writes pause, as they are; writes that never pause still
  let it go on, a page after each batch of their own taken before they paused);
- a reader of facts in this process (``settle``: ``Memory.facts``, a search's currency
  stage) hurries it and waits, so a fact said a moment ago is read.

A batch is extracted, then unmarked: a crash between the two extracts it again, which is
harmless (``FactService.update`` re-folds the chains it touches from the records).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial

from remem.errors import RememError
from remem.store.base import FactStore, Store
from remem.store.queries import FactBacklog
from remem.types import Record

log = logging.getLogger("remem")

Extract = Callable[[Sequence[Record]], None]
BATCH = 256  # records per extraction (one update, one unmark)


def _one_at_a_time(extract: Extract, records: Sequence[Record]) -> None:
    for record in records:
        extract([record])


class FactsFill:
    """Extracts the facts of written records off the writer's path (module docstring)."""

    def __init__(
        self,
        store: Store,
        extract: Extract,
        *,
        quiet_s: float,
        max_wait_s: float,
        extract_each: Extract | None = None,
    ) -> None:
        """``extract``: the facts of the records given, together; ``extract_each``: of each
        record in turn, in order (by default ``extract`` of one record at a time)."""
        if not isinstance(store, FactStore):
            raise TypeError(f"{type(store).__name__} keeps no facts: it has no facts backlog")
        self.store: FactStore = store
        self.extract = extract
        self.extract_each = extract_each or partial(_one_at_a_time, extract)
        self.quiet_s = quiet_s
        self.max_wait_s = max_wait_s
        self._cond = threading.Condition()
        self._owed: dict[int, None] = {}  # rowids this process wrote, in the order written
        self._first_at = 0.0  # when the oldest owed record was written (monotonic)
        self._last_at = 0.0  # when the newest one was
        self._recover_upto: int | None = None  # the backlog at start, still to walk
        self._recover_after = 0
        self._recovered = False  # the walk was started (once per process)
        self._walk_due = False  # a batch was due before a pause: the walk's page comes next
        self._hurry = 0  # readers waiting: extract now
        self._busy = False  # a batch is being extracted
        self._stopped = False
        self._thread: threading.Thread | None = None
        self.extracted = 0  # records this fill extracted (stats, tests)

    # ------------------------------------------------------------------ feeding
    def owe(self, rowids: Sequence[int]) -> None:
        """Records just written awaiting their facts (marked in the store). The first time,
        the backlog other processes left is walked too (``recover``)."""
        if not rowids:
            return
        # the walk stops below this process's own records: they wait for their pause
        walk_upto = self._claim_walk(below=min(rowids))
        with self._cond:
            now = time.monotonic()
            self._last_at = now
            was_empty = not self._owed
            self._owed.update(dict.fromkeys(rowids))
            # the walk is handed to the thread with the records owed, under one hold of the
            # condition: handed first, a thread scheduled at once walked the backlog (other
            # live writers' records too) in the middle of the burst, and only sometimes
            if walk_upto is not None:
                self._recover_upto, self._recover_after = walk_upto, 0
            if was_empty:
                self._first_at = now
            if was_empty or walk_upto is not None:  # else the thread is timing the pause
                self._start()  # already: not woken per write
                self._cond.notify_all()

    def recover(self, below: int | None = None) -> None:
        """Walk the backlog as it stands now (what a killed process left; ``below``: only
        rowids under it), in the background; once per process (later records are owed by
        the processes writing them)."""
        walk_upto = self._claim_walk(below)
        if walk_upto is None:
            return
        with self._cond:
            self._recover_upto, self._recover_after = walk_upto, 0
            self._start()
            self._cond.notify_all()

    def _claim_walk(self, below: int | None) -> int | None:
        """The newest rowid (under ``below``) of the backlog to walk, the first time this
        process asks; None when it was claimed before or nothing waits."""
        with self._cond:
            if self._recovered:
                return None
            self._recovered = True
        upto = None if below is None else below - 1
        newest = self.store.records_awaiting_facts(
            FactBacklog(limit=1, upto_rowid=upto, newest_first=True)
        )
        return newest[0].rowid if newest else None

    def extract_now(self, records: Sequence[Record]) -> None:
        """Extract these records' facts on the caller's thread (a user's action that reads
        them at once: a curated memory's capture) and unmark them."""
        if not records:
            return
        rowids = [r.rowid for r in records if r.rowid is not None]
        with self._cond:
            for rowid in rowids:
                self._owed.pop(rowid, None)
        self.extract(records)
        self._unmark(rowids)

    # ------------------------------------------------------------------ waiting
    def busy(self) -> bool:
        """Whether anything is owed, walked or being extracted now."""
        with self._cond:
            return self._outstanding()

    def read_owed(self, timeout: float | None = None) -> bool:
        """Read every fact owed, now, and wait for them: the records this process wrote and
        what a killed process left in the backlog (``recover``); False when ``timeout`` ran
        out first. What ``Memory.wait_facts`` and every surface showing facts wait on."""
        self.recover()
        return self.settle(timeout)

    def settle(self, timeout: float | None = None) -> bool:
        """Extract what is owed now and wait for it; False when ``timeout`` ran out first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            if not self._outstanding():
                return True
            self._hurry += 1
            self._cond.notify_all()
            try:
                while self._outstanding() and not self._stopped:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        return False
                    self._cond.wait(left)
                return not self._outstanding()
            finally:
                self._hurry -= 1

    def stop(self, *, finish: bool = True, timeout: float = 30.0) -> None:
        """Stop the thread; with ``finish`` extract what is owed first (at most ``timeout``).
        What is left stays marked in the store for the next process."""
        if finish:
            self.settle(timeout)
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def _outstanding(self) -> bool:
        return bool(self._owed) or self._recover_upto is not None or self._busy

    # ------------------------------------------------------------------ the thread
    def _start(self) -> None:
        """Start the thread (the caller holds the condition)."""
        if self._thread is None and not self._stopped:
            self._thread = threading.Thread(target=self._run, name="remem-facts", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                work = self._next_work()
                if work is None:
                    return
                self._busy = True
            try:
                self._do(work)
            except Exception as exc:  # derived data: left marked, the next process retries
                log.warning("facts not extracted for a batch (left in the backlog): %s", exc)
                if isinstance(work, FactBacklog):
                    with self._cond:
                        self._recover_upto = None  # the walk ends: the next process walks
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _next_work(self) -> list[int] | FactBacklog | None:
        """The next batch (owed rowids, or a page of the backlog walk); None: stopped. Holds
        the condition; waits for work and, unless hurried, for the writes to pause."""
        while not self._stopped:
            if self._walk_due and self._recover_upto is not None:
                # writes that never pause would hold the walk back for as long as they go on
                self._walk_due = False
                return FactBacklog(BATCH, self._recover_after, self._recover_upto)
            if self._owed:
                now = time.monotonic()
                paused_at = self._last_at + self.quiet_s
                left = min(paused_at, self._first_at + self.max_wait_s) - now
                if left > 0 and not self._hurry:
                    self._cond.wait(left)
                    continue
                self._walk_due = paused_at > now  # taken before the writes paused
                batch = list(self._owed)[:BATCH]
                for rowid in batch:
                    del self._owed[rowid]
                self._first_at = time.monotonic()  # the rest waited from now on
                return batch
            if self._recover_upto is not None:
                return FactBacklog(BATCH, self._recover_after, self._recover_upto)
            self._cond.wait()
        return None

    def _do(self, work: list[int] | FactBacklog) -> None:
        if isinstance(work, FactBacklog):
            records = self.store.records_awaiting_facts(work)
            with self._cond:
                if records and records[-1].rowid is not None:
                    self._recover_after = records[-1].rowid
                else:
                    self._recover_upto = None  # walked to its end
                for record in records:  # read here: not again as owed
                    self._owed.pop(record.rowid or 0, None)
            if not records:
                return
        else:
            # those still marked: one deleted meanwhile took its mark with it, one a rebuild
            # read meanwhile (an import's) was unmarked by it, and neither is read again
            # by rowid, not by range: other writer processes' records lie between this one's
            # (with 8 writers a range read 8 records for each one extracted)
            mine = FactBacklog(len(work), min(work) - 1, max(work), rowids=tuple(work))
            records = self.store.records_awaiting_facts(mine)
        # one record at a time, in the order written, as when each was read in its write: a
        # record's reading may use the facts of those before it (a bare answer after a dated
        # move starts at the move); a batch read at once costs no less (the rules are the cost)
        self.extract_each(records)
        self._unmark([r.rowid for r in records if r.rowid is not None])
        self.extracted += len(records)

    def _unmark(self, rowids: Sequence[int]) -> None:
        try:
            self.store.facts_extracted(rowids)
        except RememError as exc:  # extracted again by the next process: harmless
            log.debug("could not unmark %d records of the facts backlog: %s", len(rowids), exc)
