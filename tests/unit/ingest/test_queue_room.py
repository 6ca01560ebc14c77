"""The queue's non-dropping side (what the backfill and bulk submits use) and the backfill
loop over a real queue, with a list standing in for the store."""

from __future__ import annotations

import threading
import time

from remem.ingest.backfill import Backfill
from remem.ingest.queue import IndexQueue


class Gate:
    """An embed_batch that records rowids and blocks until opened."""

    def __init__(self, fail: bool = False) -> None:
        self.open = threading.Event()
        self.seen: list[int] = []
        self.fail = fail

    def __call__(self, rowids):
        assert self.open.wait(10)
        self.seen.extend(rowids)
        return (0, len(rowids)) if self.fail else (len(rowids), 0)


def test_offer_fills_only_the_room_and_skips_what_is_queued_or_in_flight():
    gate = Gate()
    q = IndexQueue(gate, concurrency=1, max_queue=5, batch_size=2)
    assert q.room() == 5
    assert q.offer([1, 2]) == (2, 2)
    time.sleep(0.1)  # the worker takes [1, 2] and blocks: in flight, not queued
    assert q.room() == 5
    assert q.offer([1, 2, 3, 4, 5, 6, 7, 8]) == (5, 7)  # 1, 2 in flight: 3..7 fit
    assert q.room() == 0 and q.wait_for_room(timeout=0.05) == 0
    assert q.offer([9]) == (0, 0) and q.dropped == 0  # never drops
    gate.open.set()
    assert q.wait_for_room(timeout=5) > 0
    assert q.wait_idle(5)
    assert sorted(gate.seen) == [1, 2, 3, 4, 5, 6, 7]
    q.close()
    assert q.offer([10]) == (0, 0) and q.wait_for_room(timeout=0) == 0


def test_unbounded_queue_has_no_room_limit():
    q = IndexQueue(lambda rowids: (len(rowids), 0), max_queue=0)
    assert q.room() is None and q.wait_for_room(timeout=0) is None
    q.close()


class PendingRows:
    """Rowids pending in a 'store': ``find`` answers like Indexer._find_pending."""

    def __init__(self, rowids) -> None:
        self.pending = set(rowids)
        self.lock = threading.Lock()

    def find(self, after: int, limit: int):
        with self.lock:
            found = sorted(r for r in self.pending if r > after)[:limit]
        return (found, found[-1]) if found else ([], None)

    def embed(self, rowids):
        with self.lock:
            self.pending.difference_update(rowids)
        return len(rowids), 0


def test_backfill_feeds_a_backlog_through_a_small_queue():
    rows = PendingRows(range(1, 501))
    q = IndexQueue(rows.embed, concurrency=2, max_queue=7, batch_size=3)
    fill = Backfill(q, rows.find, chunk=4)
    deadline = time.monotonic() + 20
    while (rows.pending or not fill.settled()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not rows.pending and fill.fed == 500 and q.dropped == 0
    fill.stop()
    q.close()


def test_backfill_backs_off_while_batches_fail_and_recovers():
    rows = PendingRows(range(1, 21))
    failing = threading.Event()
    failing.set()
    attempts: list[int] = []

    def embed(rowids):
        attempts.append(len(rowids))
        return (0, len(rowids)) if failing.is_set() else rows.embed(rowids)

    fills: list[Backfill] = []  # wired as the Indexer does: the queue reports to the backfill
    q = IndexQueue(
        embed,
        concurrency=1,
        max_queue=10,
        batch_size=5,
        on_result=lambda batch, ok, bad: fills[0].record_result(batch, ok, bad),
    )
    fills.append(Backfill(q, rows.find, base_backoff_s=0.2, max_backoff_s=0.4, start=False))
    fills[0].start()  # held first, as the Indexer does: the first failures reach it
    time.sleep(1.2)
    assert fills[0].stats()["failures_in_a_row"] >= 2
    assert 4 <= len(attempts) <= 60  # retried every 0.2-0.4 s, not in a tight loop
    failing.clear()
    deadline = time.monotonic() + 10
    while rows.pending and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not rows.pending and fills[0].stats()["failures_in_a_row"] == 0
    fills[0].stop()
    q.close()


def test_a_backfill_made_unstarted_hands_nothing_over_until_started():
    rows = PendingRows(range(1, 4))
    q = IndexQueue(rows.embed, concurrency=1, max_queue=10, batch_size=5)
    fill = Backfill(q, rows.find, start=False)
    time.sleep(0.2)
    assert fill.fed == 0 and rows.pending == {1, 2, 3}
    fill.start()
    deadline = time.monotonic() + 5
    while rows.pending and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not rows.pending and fill.fed == 3
    fill.stop()
    q.close()


def test_an_offer_skips_records_that_finished_after_they_were_seen_pending():
    """The backfill found these pending, then the queue finished them before the offer: they
    are not embedded twice. A record finished before the scan (pending again: rewritten, or
    its vector lost) is handed over."""
    seen: list[int] = []
    q = IndexQueue(lambda rowids: (seen.extend(rowids) or len(rowids), 0), max_queue=10)
    q.offer([1, 2])
    assert q.wait_idle(5)
    scan_started = time.monotonic()
    q.submit([3])
    assert q.wait_idle(5) and seen == [1, 2, 3]
    assert q.offer([1, 2, 3, 4], seen_at=scan_started) == (3, 4)  # 3 finished after the scan
    assert q.wait_idle(5)
    assert sorted(seen[3:]) == [1, 2, 4]
    q.close()


def test_a_failed_batch_is_not_remembered_as_finished():
    q = IndexQueue(lambda rowids: (0, len(rowids)), max_queue=10)
    seen_at = time.monotonic()
    q.submit([7])
    assert q.wait_idle(5)
    assert q.offer([7], seen_at=seen_at) == (1, 1)
    q.close()


def test_an_idle_backfill_finds_records_another_process_left_pending():
    """Nothing here announced them (another process died with them queued): the periodic
    check sees the store changed and a pass picks them up; while it sees no change, no pass
    runs."""
    rows = PendingRows([])
    q = IndexQueue(rows.embed, concurrency=1, max_queue=10, batch_size=5)
    changed = threading.Event()
    checks: list[bool] = []

    def needs_pass() -> bool:
        checks.append(changed.is_set())
        return changed.is_set()

    fill = Backfill(q, rows.find, scan_at_start=False, check_every_s=0.05, needs_pass=needs_pass)
    time.sleep(0.3)
    assert checks and not any(checks) and fill.fed == 0
    with rows.lock:
        rows.pending.update({41, 42, 43})
    time.sleep(0.2)
    assert rows.pending == {41, 42, 43}  # no change seen: no scan
    changed.set()
    deadline = time.monotonic() + 5
    while rows.pending and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not rows.pending and fill.fed == 3
    fill.stop()
    q.close()
