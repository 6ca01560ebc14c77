"""Closing the indexing queue is bounded: what is still queued when the drain's timeout runs
out stays pending in the store (for the backfill or `remem embed`) instead of being embedded
after the close by workers the close no longer waits for. Background embedding runs at a
lower priority (issue 47, item 2), so on a loaded machine a drain could otherwise take many
times its timeout."""

from __future__ import annotations

import threading

from remem.ingest.queue import IndexQueue


def test_what_is_left_after_the_drain_timeout_is_not_embedded_after_the_close():
    entered, release = threading.Event(), threading.Event()
    batches: list[list[int]] = []

    def embed(rowids):
        batches.append(list(rowids))
        entered.set()
        release.wait(30)  # the first batch is slow: the drain times out behind it
        return len(rowids), 0

    queue = IndexQueue(embed, concurrency=1, batch_size=2)
    queue.submit(list(range(1, 11)))  # five batches
    assert entered.wait(30)
    closing = threading.Thread(target=lambda: queue.close(drain=True, timeout=0.2))
    closing.start()
    closing.join(30)
    assert not closing.is_alive()  # after the 0.2 s, the batch in flight still running
    release.set()
    assert queue.wait_idle(30)
    assert batches == [[1, 2]]  # only the batch in flight; the rest stay pending
    assert queue.stats()["queued"] == 0


def test_a_drain_in_time_embeds_everything():
    batches: list[list[int]] = []
    queue = IndexQueue(lambda r: (batches.append(list(r)) or len(r), 0), batch_size=2)
    queue.submit(list(range(1, 7)))
    queue.close(drain=True, timeout=30)
    assert sorted(i for b in batches for i in b) == list(range(1, 7))
