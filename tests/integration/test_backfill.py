"""Nothing left unsearchable: the background backfill embeds what the queue could not take
(bursts, bulk ingests), what a crashed process left and what a failing provider left, with no
manual step; `stats` shows the backlog and its rate."""

from __future__ import annotations

import json
import time

from test_cli import run

from helpers import HashEmbedder
from remem import Config, Memory


def async_config(**overrides):
    return Config.load(
        env={},
        overrides={
            "indexing.mode": "async",
            "indexing.max_queue": 40,
            "indexing.batch_size": 8,
            "indexing.concurrency": 2,
            **overrides,
        },
    )


def statuses(mem: Memory) -> dict[str, int]:
    return mem.store.stats()["index_status"]


def test_a_bulk_ingest_bigger_than_the_queue_ends_fully_indexed(db_path):
    emb = HashEmbedder()
    with Memory(db_path, async_config(), embedder=emb) as mem:
        mem.ingest_many([{"text": f"burst message {i}", "session": "s"} for i in range(1000)])
        assert mem.stats()["queue"]["queued"] <= 40  # fed at the model's pace, never overfull
        assert mem.wait_indexed(60)
        assert statuses(mem) == {"indexed": 1000}
        queue = mem.stats()["queue"]
        assert queue["dropped"] == 0 and queue["embedded"] == 1000  # each embedded once
        assert mem.stats()["backlog"]["backfill"]["fed"] >= 960
        assert mem.stats()["backlog"]["pending"] == 0


def test_single_messages_overflowing_the_queue_are_picked_up(db_path):
    emb = HashEmbedder()
    config = async_config(**{"indexing.max_queue": 3, "indexing.concurrency": 1})
    with Memory(db_path, config, embedder=emb) as mem:
        for i in range(300):
            mem.ingest({"text": f"chat line {i}"})
        assert mem.wait_indexed(60)
        assert statuses(mem) == {"indexed": 300}
        assert mem.store.vector_count(emb.model_id) == 300


def test_records_a_crashed_process_left_pending_are_embedded_by_the_next(db_path):
    emb = HashEmbedder()
    with Memory(db_path, async_config(), embedder=emb) as mem:
        mem.ingest_many([{"text": f"left behind {i}"} for i in range(100)], embed=False)
    with Memory(db_path, async_config(), embedder=emb) as mem:
        mem.ingest({"text": "a new message starts the indexing queue"})
        assert mem.wait_indexed(60)
        assert statuses(mem) == {"indexed": 101}


def test_provider_down_then_back_needs_no_manual_embed(db_path):
    emb = HashEmbedder()
    emb.fail = True
    config = async_config(**{"indexing.backfill_max_backoff_s": 0.3})
    with Memory(db_path, config, embedder=emb) as mem:
        mem.ingest_many([{"text": f"while the provider is down {i}"} for i in range(60)])
        assert mem.wait_indexed(30)  # waiting out the back-off counts as settled
        assert statuses(mem) == {"pending": 60}
        backlog = mem.stats()["backlog"]
        assert backlog["pending"] == 60 and backlog["backfill"]["failures_in_a_row"] >= 1
        calls = emb.calls
        time.sleep(1.0)
        assert 0 < emb.calls - calls < 100  # retried, but backing off, not spinning
        emb.fail = False
        deadline = time.monotonic() + 30
        while statuses(mem) != {"indexed": 60} and time.monotonic() < deadline:
            time.sleep(0.05)
        assert statuses(mem) == {"indexed": 60}
        assert mem.stats()["backlog"]["backfill"]["failures_in_a_row"] == 0


def test_stats_show_the_backlog_rate_to_another_process(db_path, monkeypatch):
    import remem.ingest.indexing as indexing

    monkeypatch.setattr(indexing, "RATE_WINDOW_S", 0.0)  # every batch writes the rate
    with Memory(db_path, async_config(), embedder=HashEmbedder()) as mem:
        mem.ingest_many([{"text": f"rated {i}"} for i in range(200)])
        assert mem.wait_indexed(60)
    config = Config.load(env={}, overrides={"embed.provider": "none"})
    with Memory(db_path, config) as reader:  # as `remem stats` would open it
        backlog = reader.stats()["backlog"]
        assert backlog["pending"] == 0 and backlog["per_second"] > 0
        assert backlog["eta_s"] is None and "backfill" not in backlog
        reader.ingest_many([{"text": f"later {i}"} for i in range(3)], embed=False)
    shown = run(["stats"], db_path, lexical=True).stdout
    assert "backlog" in shown and "3 pending" in shown
    assert (
        json.loads(run(["stats", "--json"], db_path, lexical=True).stdout)["backlog"]["pending"]
        == 3
    )


def test_backfill_can_be_switched_off(db_path):
    emb = HashEmbedder()
    config = async_config(**{"indexing.backfill": False, "indexing.max_queue": 10})
    with Memory(db_path, config, embedder=emb) as mem:
        mem.ingest_many([{"text": f"no backfill {i}"} for i in range(100)])
        assert mem.wait_indexed(30)
        assert mem.stats()["queue"]["dropped"] == 90  # the old behaviour: the oldest dropped
        assert statuses(mem) == {"indexed": 10, "pending": 90}


def test_the_backfill_embeds_a_left_over_backlog_newest_first(db_path):
    # A long import (or a crash) leaves a backlog; a server's backfill gives the newest
    # records their vectors first, as `remem embed` does (issue 47): the recent turns are
    # the likeliest to be asked about.
    emb = HashEmbedder()
    config = async_config(**{"indexing.max_queue": 8, "indexing.concurrency": 1})
    with Memory(db_path, config, embedder=HashEmbedder()) as mem:
        mem.ingest_many([{"text": f"backlog turn {i}"} for i in range(100)], embed=False)
    with Memory(db_path, config, embedder=emb) as mem:
        mem.ingest({"text": "a new message starts the indexing queue and its backfill"})
        assert mem.wait_indexed(60)
        assert statuses(mem) == {"indexed": 101}
    order = [int(text.rsplit(" ", 1)[1]) for text in emb.seen if text.startswith("backlog")]
    assert sorted(order) == list(range(100))  # each once
    assert min(order[:16]) >= 76  # the first two batches: among the newest 24
    assert order.index(0) > order.index(50) > order.index(99)  # top down
