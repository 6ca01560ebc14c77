"""The query's embedding, and a worker thread to run the vector channel beside the keyword
search.

Embedding a query (~20-40 ms with the bundled e5 on 2 cores), the vector index search (faiss,
numpy) and the keyword search (FTS5, or a query to PostgreSQL) all release the GIL, so the
search runs its vector channel (the embedding, then the index search) on a worker thread and
its lexical channel meanwhile, then waits for the vector hits: the shorter of the two is
hidden. Failures are described, not raised (the search degrades to keywords), except a
configuration error, which is the operator's to fix.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from remem.embed.base import Embedder
from remem.embed.fast_model import FAST_MODEL_ID
from remem.errors import ConfigError, ProviderUnavailableError, RememError
from remem.index.select import SearchIndex
from remem.store.base import Store
from remem.types import SearchResult

# Concurrent searches (REST workers, several bot threads) each get a thread; a model that
# serialises its calls (the bundled e5 holds a lock) makes the others wait there, as before.
WORKERS = 4

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class QueryEmbedding:
    embedder: Embedder | None  # None: no model (configured off, or it could not load)
    vector: np.ndarray | None  # None: no vector (see failure)
    ms: float  # time spent embedding
    failure: str | None = None  # why there is no vector, for the result's warnings


@dataclass(slots=True)
class VectorFound:
    """What a search's vector channel found, and what it has to say about it."""

    hits: list[tuple[int, float]] = field(default_factory=list)
    index: SearchIndex | None = None
    query_vector: np.ndarray | None = None
    embed_ms: float = 0.0  # embedding the query
    search_ms: float = 0.0  # the rest: the index search, the fast lane, the model checks
    said: SearchResult | None = None  # its warnings, notes and whether it degraded

    def report_to(self, result: SearchResult) -> None:
        if self.said is None:
            return
        result.degraded = result.degraded or self.said.degraded
        result.warnings += [w for w in self.said.warnings if w not in result.warnings]
        result.notes += self.said.notes


class QueryEmbeddings:
    """Embeds queries now (``embed``) or on a worker thread (``start``)."""

    def __init__(
        self,
        embedder_factory: Callable[[], Embedder | None],
        embed_query: Callable[[Embedder, str], np.ndarray],
    ) -> None:
        self._factory = embedder_factory
        self._embed_query = embed_query
        self._lock = threading.Lock()
        self._workers: ThreadPoolExecutor | None = None
        self._closed = False

    def given(self, vector: np.ndarray) -> QueryEmbedding:
        """A vector the caller computed, with the model it must be compared under."""
        embedder, failure = self._model()
        return QueryEmbedding(embedder, vector if embedder else None, 0.0, failure)

    def embed(self, query: str) -> QueryEmbedding:
        embedder, failure = self._model()
        if embedder is None:
            return QueryEmbedding(None, None, 0.0, failure)
        start = time.perf_counter()
        try:
            vector = self._embed_query(embedder, query)
        except ConfigError:
            raise  # a wrong embed.model is the operator's to fix, not a degraded answer
        except ProviderUnavailableError as exc:  # the circuit breaker is open
            return QueryEmbedding(embedder, None, _since(start), str(exc))
        except RememError as exc:
            return QueryEmbedding(embedder, None, _since(start), f"query embedding failed ({exc})")
        return QueryEmbedding(embedder, vector, _since(start))

    def start(self, query: str) -> Future[QueryEmbedding] | None:
        """``embed(query)`` on a worker thread; None once closed (the caller embeds itself)."""
        return self.submit(self.embed, query)

    def submit(self, fn: Callable[..., R], *args: Any) -> Future[R] | None:
        """``fn(*args)`` on a worker thread, in the caller's context (its read deadline,
        ``embed/reads.py``, holds there); None once closed (the caller runs it itself)."""
        with self._lock:
            if self._closed:
                return None
            if self._workers is None:
                self._workers = ThreadPoolExecutor(WORKERS, thread_name_prefix="remem-query")
            run = contextvars.copy_context().run
            return self._workers.submit(run, fn, *args)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers, self._workers = self._workers, None
        if workers is not None:
            workers.shutdown(wait=True)

    def _model(self) -> tuple[Embedder | None, str | None]:
        try:
            return self._factory(), None
        except RememError as exc:
            return None, f"embedding model unavailable ({exc})"


def _since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def vectors_of_other_models(store: Store, model_id: str, indexed: int) -> str | None:
    """What to tell the operator when records have vectors of other models only (never
    compared with the query's): how many are found by their words alone, and the fix; None
    when every record has the query model's vector or no other model's."""
    missing = store.count() - indexed
    others = [
        (m, n)
        for m, _d, n in store.vector_stats()
        if m not in (model_id, FAST_MODEL_ID)  # the fast lane's: searched beside the main one
    ]
    if missing <= 0 or not others:
        return None
    names = ", ".join(f"{m} ({n})" for m, n in others)
    return (
        f"{missing} records have no {model_id} vector (other models: {names}); they are "
        "found by lexical search only until `remem embed` (or `remem reembed --model M` to "
        "switch models)"
    )
