"""The facts fill's order of work (``ingest/facts_fill.py``): a writer's first write hands
the fill the backlog it found (what another process left) together with its own records,
and both wait for its writes to pause, however the fill's thread is scheduled."""

from __future__ import annotations

import time
from collections.abc import Sequence

from remem.ingest.facts_fill import FactsFill
from remem.schemas import content_hash
from remem.store.memory import InMemoryStore
from remem.types import Record

HOUR = 3_600.0


def write(store: InMemoryStore, text: str) -> int:
    """A message stored waiting for its facts, as a write leaves it; its rowid."""
    fields = {
        "id": f"r{store.count()}",
        "kind": "message",
        "text": text,
        "scope": "global",
        "created_at": 1.0 + store.count(),
        "content_hash": content_hash(text),
        "importance": 0.5,
    }
    (rowid,) = store.insert_records([(fields, "")], awaiting_facts=True)
    assert rowid is not None
    return rowid


def test_the_backlog_a_first_write_finds_waits_for_the_writes_to_pause():
    """Before, the walk was handed to the thread ahead of the writer's own records: a thread
    scheduled at once (a loaded machine) walked the backlog in the middle of the burst,
    reading another live writer's records (test_facts_after_ack's two writers, 3 runs in
    200). Here the thread is given the condition as soon as it starts."""
    store = InMemoryStore()
    left = write(store, "I live in Shenzhen now")  # another process's, still waiting
    read: list[int] = []

    def extract(records: Sequence[Record]) -> None:
        read.extend(r.rowid for r in records if r.rowid is not None)

    fill = FactsFill(store, extract, quiet_s=HOUR, max_wait_s=HOUR)
    start = fill._start

    def start_and_yield() -> None:  # the caller holds the condition: waiting releases it
        start()
        fill._cond.wait(0.5)

    fill._start = start_and_yield  # type: ignore[method-assign]
    mine = write(store, "I work at Acme now")
    fill.owe([mine])
    assert read == []  # the writes have not paused: nothing is read yet
    assert fill.settle(60)
    assert sorted(read) == [left, mine]
    assert store.count_awaiting_facts() == 0
    fill.stop()


def test_writes_that_never_pause_do_not_hold_the_backlog_walk_back():
    """Before, the walk waited for a moment with nothing owed: a writer whose next message
    always arrived while the last batch was being read (a busy bot) left another process's
    records unread for as long as it wrote. Now each batch taken before the writes paused
    (made due by ``max_wait_s``) is followed by a page of the walk."""
    store = InMemoryStore()
    left = write(store, "I live in Shenzhen now")  # another process's, still waiting
    read: list[int] = []
    writes = 40
    fill: FactsFill

    def extract(records: Sequence[Record]) -> None:
        nonlocal writes
        read.extend(r.rowid for r in records if r.rowid is not None)
        if writes and left not in read:  # the next message arrives while this batch is read
            writes -= 1
            fill.owe([write(store, f"message {writes}")])

    fill = FactsFill(store, extract, quiet_s=HOUR, max_wait_s=0.01)
    fill.owe([write(store, "I work at Acme now")])
    deadline = time.monotonic() + 60
    while writes and left not in read and time.monotonic() < deadline:
        time.sleep(0.01)  # not settle(): a reader waiting hurries the fill
    assert fill.settle(60)
    assert left in read
    assert writes > 30, f"the walk waited for {40 - writes} batches of a burst"
    assert store.count_awaiting_facts() == 0
    fill.stop()
