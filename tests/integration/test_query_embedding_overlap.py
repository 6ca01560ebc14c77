"""The query is embedded on a worker thread while the keyword search runs, and every way the
embedding can fail still answers as before (keywords, a named warning; a configuration error
raised)."""

from __future__ import annotations

import threading
import time

import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.errors import ConfigError, EmbeddingError
from remem.search.query_embedding import QueryEmbeddings


class SaysWhenEmbedding(HashEmbedder):
    """Tells when it starts embedding a query."""

    def __init__(self) -> None:
        super().__init__()
        self.embedding = threading.Event()

    def embed_queries(self, texts):
        self.embedding.set()
        return super().embed_queries(texts)


def _keywords_wait_for_the_embedding(mem, embedder, then_s: float = 0.0) -> list[bool]:
    """Make the store's keyword search wait (up to 5 s) until the query's embedding has
    started, then ``then_s`` more; returns, per keyword search, whether it started."""
    embedder.embedding.clear()
    search = mem.store.lexical_search
    overlapped: list[bool] = []

    def lexical_search(*args, **kwargs):
        overlapped.append(embedder.embedding.wait(5))
        time.sleep(then_s)
        return search(*args, **kwargs)

    mem.store.lexical_search = lexical_search  # type: ignore[method-assign]
    return overlapped


def test_the_query_is_embedded_while_the_keyword_search_runs(tmp_path):
    # The keyword search waits (up to 5 s) for the embedding to start: a search that ran them
    # one after the other would start embedding only after the keyword search returned.
    embedder = SaysWhenEmbedding()
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "m.db", config, embedder=embedder) as mem:
        mem.add("Alice lives in Berlin and likes green tea")
        overlapped = _keywords_wait_for_the_embedding(mem, embedder)
        result = mem.search("where does Alice live", k=3)
    assert overlapped == [True]
    assert result.hits and "Berlin" in result.hits[0].record.text
    assert result.hits[0].explain.vector_rank == 1 and not result.degraded
    assert result.timings_ms["embed"] > 0


def test_a_failing_embedding_leaves_keywords_and_names_the_failure(tmp_path):
    # the failure happens on the worker thread; its warning reaches the caller's result
    embedder = HashEmbedder()
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "m.db", config, embedder=embedder) as mem:
        mem.add("Alice lives in Berlin and likes green tea")
        embedder.fail = True
        result = mem.search("Alice Berlin", k=3)
    assert result.degraded and result.hits
    assert any("query embedding failed" in w for w in result.warnings)


def test_embeddings_started_after_close_are_made_by_the_caller():
    embeddings = QueryEmbeddings(HashEmbedder, lambda e, q: e.embed_queries([q])[0])
    future = embeddings.start("hello")
    assert future is not None and future.result().vector is not None
    embeddings.close()
    assert embeddings.start("hello") is None
    assert embeddings.embed("hello").vector is not None


def test_a_model_that_cannot_load_is_described_and_a_configuration_error_raised():
    def unloadable():
        raise EmbeddingError("weights missing")

    got = QueryEmbeddings(unloadable, lambda e, q: q).embed("hi")
    assert got.embedder is None and got.vector is None
    assert got.failure == "embedding model unavailable (weights missing)"

    def misconfigured(embedder, query):
        raise ConfigError("embed.model", "nope", "use a known model")

    embeddings = QueryEmbeddings(HashEmbedder, misconfigured)
    future = embeddings.start("hi")
    assert future is not None
    with pytest.raises(ConfigError):
        future.result()
    embeddings.close()


def test_timings_count_only_the_wait_for_an_embedding_made_beside_the_keywords(tmp_path):
    # The embedding (0.2 s) ends while the keyword search (0.3 s) still runs: the vector step
    # waited for nothing, so its time is not the embedding's time subtracted from its own.
    class Slow(SaysWhenEmbedding):
        def embed_queries(self, texts):
            out = super().embed_queries(texts)
            time.sleep(0.2)
            return out

    embedder = Slow()
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "m.db", config, embedder=embedder) as mem:
        mem.add("Alice lives in Berlin and likes green tea")
        _keywords_wait_for_the_embedding(mem, embedder, then_s=0.3)
        timings = mem.search("where does Alice live", k=3).timings_ms
    assert timings["embed"] >= 200
    assert 0 <= timings["vector"] < 150
    assert timings["lexical"] >= 300


def test_the_vector_index_is_searched_while_the_keyword_search_runs(tmp_path):
    # With the query vector given there is nothing to embed: the index search itself runs on
    # the worker. The keyword search waits (up to 5 s) for it to start.
    embedder = HashEmbedder()
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "m.db", config, embedder=embedder) as mem:
        mem.add("Alice lives in Berlin and likes green tea")
        searching = threading.Event()
        index = mem.searcher.index_for(embedder)
        search = index.search

        def index_search(*args, **kwargs):
            searching.set()
            return search(*args, **kwargs)

        index.search = index_search  # type: ignore[method-assign]
        keyword_search = mem.store.lexical_search
        overlapped: list[bool] = []

        def lexical_search(*args, **kwargs):
            overlapped.append(searching.wait(5))
            return keyword_search(*args, **kwargs)

        mem.store.lexical_search = lexical_search  # type: ignore[method-assign]
        vector = embedder.embed_queries(["where does Alice live"])[0]
        result = mem.search("where does Alice live", k=3, query_vector=vector)
    assert overlapped == [True]
    assert result.hits[0].explain.vector_rank == 1 and not result.degraded
    assert result.timings_ms["embed"] == 0
