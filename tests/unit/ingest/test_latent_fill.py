"""Latent terms stored beside the vectors: all at once (``fill_latent_terms``), in the
background only while the queues are idle (``LatentFill``), and past a chunk that keeps
failing."""

from __future__ import annotations

import threading

import pytest

from helpers import memory_store_with
from remem.config import Config
from remem.errors import EmbeddingError
from remem.ingest.latent_fill import LatentFill, LatentTerms, fill_latent_terms
from remem.schemas import content_hash
from remem.store.queries import TextUpdate

MODEL = "test:latent"


class Terms:
    """A text's "terms": its bytes, so what was stored shows which text it came from."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.read: list[str] = []
        self.fail_on = fail_on

    def __call__(self, texts):
        if self.fail_on is not None and self.fail_on in texts:
            raise EmbeddingError(f"cannot read {self.fail_on!r}")
        self.read += list(texts)
        return [t.encode() for t in texts]


def test_fill_latent_terms_stores_every_missing_record_once_with_progress():
    store, rowids = memory_store_with("a", "b", "c")
    store.mark_index_status([rowids[2]], "skipped")  # never searched: never read
    terms, seen = Terms(), []
    assert fill_latent_terms(store, MODEL, terms, batch=1, progress=seen.append) == 2
    assert store.latent_terms_of(MODEL, rowids) == {rowids[0]: b"a", rowids[1]: b"b"}
    assert seen == [1, 1] and terms.read == ["a", "b"]
    assert fill_latent_terms(store, MODEL, terms) == 0  # nothing left: nothing read
    assert terms.read == ["a", "b"]


def test_the_background_fill_waits_for_the_queues_then_fills():
    store, rowids = memory_store_with("a", "b", "c")
    busy = threading.Event()
    busy.set()
    fill = LatentFill(store, MODEL, Terms(), busy.is_set, chunk=2)
    try:
        assert not fill.wait_settled(timeout=0.6)  # busy: nothing computed yet
        assert store.count_missing_latent_terms(MODEL) == 3
        busy.clear()
        assert fill.wait_settled(timeout=10)
        assert store.count_missing_latent_terms(MODEL) == 0
        assert fill.stats() == {"filled": 3, "filling": False}
        store.update_text(TextUpdate(rowids[1], "b2", content_hash("b2"), ""))
        fill.wake([rowids[1]])
        assert fill.wait_settled(timeout=10)
        assert store.latent_terms_of(MODEL, [rowids[1]]) == {rowids[1]: b"b2"}
    finally:
        fill.stop()


def test_a_chunk_that_keeps_failing_is_passed_over(monkeypatch):
    monkeypatch.setattr("remem.ingest.latent_fill.BACKOFF_S", (0.01, 0.01))
    store, rowids = memory_store_with("a", "bad", "c")
    fill = LatentFill(store, MODEL, Terms(fail_on="bad"), lambda: False, chunk=1)
    try:
        for _ in range(100):
            if store.latent_terms_of(MODEL, [rowids[2]]):
                break
            threading.Event().wait(0.05)
        assert store.latent_terms_of(MODEL, rowids) == {rowids[0]: b"a", rowids[2]: b"c"}
    finally:
        fill.stop()


class FakeE5:
    model_id = "local:multilingual-e5-small"

    def latent_terms(self, texts, *, query=False):
        return [t.encode() for t in texts]


@pytest.mark.parametrize(("top", "expected"), [(10, True), (0, False)])
def test_latent_terms_are_kept_only_when_the_relevance_stage_reads_them(top, expected):
    store, rowids = memory_store_with("a")
    config = Config.load(env={}, overrides={"search.latent_top": top})
    terms = LatentTerms(store, config, lambda: FakeE5.model_id, FakeE5)
    assert (terms.model_id() is not None) is expected
    terms.store_now(list(store.get_by_rowids(rowids).values()))
    assert terms.count_missing() == 0
    assert terms.fill_all() == 0
    stored = store.latent_terms_of("local:multilingual-e5-small/latent-top128", rowids)
    assert bool(stored) is expected


def test_a_model_without_a_sparse_head_keeps_none():
    store, _ = memory_store_with("a")
    terms = LatentTerms(store, Config(), lambda: "openai:text-embedding-3-small", lambda: None)
    assert terms.model_id() is None and terms.fill_all() == 0 and terms.count_missing() == 0
    terms.start_fill(lambda: False)
    assert terms.fill is None


def test_the_fill_survives_an_unexpected_error_and_goes_on(monkeypatch):
    monkeypatch.setattr("remem.ingest.latent_fill.BACKOFF_S", (0.01, 0.01))
    store, rowids = memory_store_with("a", "b")
    calls = []

    def flaky(texts):
        calls.append(list(texts))
        if len(calls) == 1:
            raise ValueError("a bug, not a RememError")
        return [t.encode() for t in texts]

    fill = LatentFill(store, MODEL, flaky, lambda: False, chunk=2)
    try:
        for _ in range(100):
            if store.count_missing_latent_terms(MODEL) == 0:
                break
            threading.Event().wait(0.05)
        assert store.latent_terms_of(MODEL, rowids) == {rowids[0]: b"a", rowids[1]: b"b"}
        assert fill._thread.is_alive()
    finally:
        fill.stop()
