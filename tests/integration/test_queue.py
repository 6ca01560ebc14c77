"""The background indexing queue: ingest never waits for embedding, the queue is bounded and
drops the oldest work (which stays pending for the backfill), failures are counted."""

from __future__ import annotations

import threading
import time

import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.ingest.queue import IndexQueue


class GatedEmbedder(HashEmbedder):
    """Blocks every embedding call until the test opens the gate."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.active = 0
        self.max_active = 0
        self._lock = threading.Lock()

    def embed_passages(self, texts):
        with self._lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        try:
            assert self.gate.wait(20), "gate never opened"
            return super().embed_passages(texts)
        finally:
            with self._lock:
                self.active -= 1


def async_config(**overrides):
    return Config.load(env={}, overrides={"indexing.mode": "async", **overrides})


def test_ingest_returns_before_embedding_and_search_does_not_wait(db_path):
    emb = GatedEmbedder()
    # Without the backfill: its start-up scan can read "a" as pending just before the queue
    # finishes it and hand it over again (embedded twice, harmless; counted here exactly).
    with Memory(db_path, async_config(**{"indexing.backfill": False}), embedder=emb) as mem:
        start = time.perf_counter()
        rec = mem.ingest({"id": "a", "text": "the otter juggles pebbles"})
        assert time.perf_counter() - start < 1.0
        assert rec.index_status == "pending"
        emb.gate.set()  # queries embed too; let them through
        hits = mem.search("otter", k=3)  # lexical finds it while its vector is pending
        assert [h.record.id for h in hits] == ["a"]
        assert mem.wait_indexed(10)
        assert mem.get("a").index_status == "indexed"
        assert mem.search("otter", k=1).hits[0].explain.vector_rank == 1
        assert mem.stats()["queue"]["embedded"] == 1


def test_full_queue_drops_the_oldest_and_the_backfill_recovers(db_path, caplog):
    emb = GatedEmbedder()
    config = async_config(
        **{"indexing.concurrency": 1, "indexing.max_queue": 3, "indexing.batch_size": 1}
    )
    with Memory(db_path, config, embedder=emb) as mem:
        for i in range(8):
            mem.ingest({"id": f"m{i}", "text": f"message {i}"})
        stats = mem.stats()["queue"]
        assert stats["dropped"] >= 4 and stats["queued"] <= 3
        assert any("queue full" in r.message for r in caplog.records)
        assert mem.stats()["queue_dropped_total"] == stats["dropped"]  # kept in the file
        emb.gate.set()
        assert mem.wait_indexed(10)  # the dropped ones too: the backfill handed them back
        assert all(r.index_status == "indexed" for r in mem.list(limit=None))
        assert mem.store.count_missing_vectors(emb.model_id) == 0


def test_concurrency_limit(db_path):
    emb = GatedEmbedder()
    # counts the queue's own work: the backfill's start-up scan can still hand over a record
    # the queue is finishing (embedded twice, harmless; see test_backfill.py), as in the
    # failure-count test below
    config = async_config(
        **{"indexing.concurrency": 3, "indexing.batch_size": 1, "indexing.backfill": False}
    )
    with Memory(db_path, config, embedder=emb) as mem:
        mem.ingest_many([{"text": f"note {i}"} for i in range(10)])
        time.sleep(0.3)
        assert emb.max_active == 3
        emb.gate.set()
        assert mem.wait_indexed(10)
        assert mem.stats()["queue"]["embedded"] == 10


def test_failures_are_counted_and_left_pending(db_path):
    emb = HashEmbedder()
    emb.fail = True
    # the backfill would retry the pending record after its back-off and count a second
    # failure now and then (its retries are tested in test_backfill.py): this counts the queue's
    with Memory(db_path, async_config(**{"indexing.backfill": False}), embedder=emb) as mem:
        mem.ingest({"id": "x", "text": "will not embed"})
        assert mem.wait_indexed(10)
        assert mem.stats()["queue"]["failed"] == 1
        assert mem.get("x").index_status == "pending"
        assert mem.stats()["index_errors"] == 1


def test_close_drains_the_queue(db_path, config):
    emb = HashEmbedder()
    mem = Memory(db_path, async_config(), embedder=emb)
    mem.ingest_many([{"text": f"note {i}"} for i in range(20)])
    mem.close()
    with Memory(db_path, config, embedder=emb) as again:
        assert again.stats()["index_status"] == {"indexed": 20}


def test_records_deleted_while_queued_are_skipped(db_path):
    emb = GatedEmbedder()
    with Memory(db_path, async_config(), embedder=emb) as mem:
        mem.ingest({"id": "gone", "text": "short lived"})
        mem.delete("gone")
        emb.gate.set()
        assert mem.wait_indexed(10)
        assert mem.store.vector_count(emb.model_id) == 0


def test_unlimited_settings_and_closed_queue():
    seen = []
    q = IndexQueue(
        lambda rowids: (seen.extend(rowids), (len(rowids), 0))[1],
        concurrency=0,
        max_queue=0,
        batch_size=2,
    )
    q.submit(list(range(100)))
    assert q.wait_idle(10)
    assert sorted(seen) == list(range(100)) and q.dropped == 0
    q.close()
    with pytest.raises(RuntimeError, match="closed"):
        q.submit([1])
