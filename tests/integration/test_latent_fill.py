"""Latent terms with the real bundled model: an async ingest's records get them in the
background once their vectors are in, and a store written without them (an older version, or
latent terms off) gets them once its queue runs; `remem embed` stores them at once."""

from __future__ import annotations

import time

from helpers import sample_conversation
from remem import Config, Memory

SAMPLE = sample_conversation()


def _settled(mem: Memory, timeout: float = 120.0) -> int:
    """Wait for the vectors, then for the latent fill; the records still without terms."""
    assert mem.wait_indexed(timeout=timeout)
    fill = mem.indexer.latent.fill
    assert fill is not None and fill.wait_settled(timeout=timeout)
    return mem.indexer.latent.count_missing()


def test_an_async_ingest_gets_its_latent_terms_in_the_background(tmp_path, e5):
    with Memory(tmp_path / "a.db", Config.load(env={}), embedder=e5) as mem:
        mem.ingest_many(SAMPLE)
        assert _settled(mem) == 0
        backlog = mem.stats()["backlog"]["latent_terms"]
        assert backlog == {"filled": len(SAMPLE), "filling": False}


def test_a_store_without_latent_terms_gets_them_once_its_queue_runs(tmp_path, e5):
    off = Config.load(env={}, overrides={"indexing.mode": "sync", "search.latent_top": 0})
    with Memory(tmp_path / "old.db", off, embedder=e5) as mem:
        mem.ingest_many(SAMPLE)
        assert mem.store.count_missing_latent_terms(e5.latent_model_id) == len(SAMPLE)
    with Memory(tmp_path / "old.db", Config.load(env={}), embedder=e5) as mem:
        assert mem.indexer.latent.count_missing() == len(SAMPLE)
        mem.ingest(
            {"session": "s", "speaker": "A", "text": "One more line", "timestamp": time.time()}
        )
        assert _settled(mem) == 0


def test_wait_indexed_returns_once_the_latent_terms_are_stored_too(tmp_path, e5):
    """issue 47, item 4: wait_indexed waits for everything the indexer starts, so a caller
    that closes right after it leaves no fill writing to a closed store."""
    with Memory(tmp_path / "w.db", Config.load(env={}), embedder=e5) as mem:
        mem.ingest_many(SAMPLE)
        assert mem.wait_indexed(timeout=120)
        assert mem.indexer.latent.count_missing() == 0
        assert mem.stats()["backlog"]["latent_terms"]["filling"] is False
