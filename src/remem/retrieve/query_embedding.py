"""The query's embedding, computed beside the keyword search.

Embedding a query (~20-40 ms with the bundled e5 on 2 cores) and the keyword search (FTS5, or a
query to PostgreSQL) both release the GIL, so the search starts the embedding on a worker
thread, runs its lexical channel meanwhile, and then waits for the vector: the shorter of the
two is hidden. Failures are described, not raised (the search degrades to keywords), except a
configuration error, which is the operator's to fix.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from remem.embed.base import Embedder
from remem.errors import ConfigError, ProviderUnavailableError, RememError

# Concurrent searches (REST workers, several bot threads) each get a thread; a model that
# serialises its calls (the bundled e5 holds a lock) makes the others wait there, as before.
WORKERS = 4


@dataclass(frozen=True, slots=True)
class QueryEmbedding:
    embedder: Embedder | None  # None: no model (configured off, or it could not load)
    vector: np.ndarray | None  # None: no vector (see failure)
    ms: float  # time spent embedding
    failure: str | None = None  # why there is no vector, for the result's warnings


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
        with self._lock:
            if self._closed:
                return None
            if self._workers is None:
                self._workers = ThreadPoolExecutor(WORKERS, thread_name_prefix="remem-query")
            # in the caller's context: its read deadline (embed/reads.py) holds in the worker
            return self._workers.submit(contextvars.copy_context().run, self.embed, query)

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
