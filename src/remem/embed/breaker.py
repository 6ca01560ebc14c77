"""A circuit breaker around a remote embedder.

Without one, every search against a hung provider pays the whole retry budget before it falls
back to lexical results. After ``failure_threshold`` failed calls in a row the breaker opens:
calls fail at once with ``ProviderUnavailableError`` (searches answer lexically with a
warning, records stay pending) until ``cooldown_s`` has passed. Then one trial call is let
through (half-open): success closes the breaker, failure opens it for another cool-down.

An explicit backfill (``remem embed``, ``Memory.embed_pending``, the web UI's button) does not
trust the search path's breaker: it asks for a trial now (``probe_now``), so its first batch
asks the provider whatever the cool-down says; a success closes the breaker for everyone, a
failure opens it again and the rest of that run fails fast.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from remem.embed.base import Embedder
from remem.errors import ConfigError, EmbeddingError, ProviderUnavailableError

State = Literal["closed", "open", "half-open"]


class CircuitBreaker:
    def __init__(
        self,
        failure_threshold: int = 3,
        cooldown_s: float = 30.0,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if failure_threshold < 1:
            raise ValueError("failure_threshold must be at least 1")
        self.failure_threshold = failure_threshold
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_in_flight = False

    @property
    def state(self) -> State:
        with self._lock:
            return self._state()

    def _state(self) -> State:
        if self._opened_at is None:
            return "closed"
        if self._trial_in_flight or self._clock() - self._opened_at >= self.cooldown_s:
            return "half-open"
        return "open"

    def retry_in(self) -> float:
        """Seconds until the next trial call is allowed (0 when closed)."""
        with self._lock:
            return self._remaining()

    def _remaining(self) -> float:
        if self._opened_at is None:
            return 0.0
        return max(0.0, self._opened_at + self.cooldown_s - self._clock())

    def acquire(self) -> None:
        """Before a call: return to go ahead, or raise ProviderUnavailableError at once."""
        with self._lock:
            state = self._state()
            if state == "closed":
                return
            if state == "half-open" and not self._trial_in_flight:
                self._trial_in_flight = True  # this caller is the trial
                return
            wait = max(1, math.ceil(self._remaining()))  # a trial in flight: about now
        raise ProviderUnavailableError(
            f"embedding provider unavailable (circuit open for {wait}s after "
            f"{self.failure_threshold} failed calls)"
        )

    def probe_now(self) -> None:
        """Let the next call through as the trial (half-open), cool-down or not: for a caller
        that asked for the work explicitly and would rather learn that the provider is back
        than wait out a cool-down started by other callers' failures."""
        with self._lock:
            if self._opened_at is not None and not self._trial_in_flight:
                self._opened_at = self._clock() - self.cooldown_s

    def record_success(self) -> None:
        with self._lock:
            self._failures = 0
            self._opened_at = None
            self._trial_in_flight = False

    def record_failure(self) -> None:
        with self._lock:
            self._failures += 1
            if self._trial_in_flight or self._failures >= self.failure_threshold:
                self._opened_at = self._clock()
            self._trial_in_flight = False


class BreakerEmbedder:
    """An Embedder whose calls go through a CircuitBreaker. Configuration errors (an unknown
    model) are answers, not outages: they neither open nor hold the breaker."""

    def __init__(self, inner: Embedder, breaker: CircuitBreaker) -> None:
        self.inner = inner
        self.breaker = breaker
        # fixed when the inner embedder is made; its size may be learned later (``dim``)
        self.provider: str = inner.provider
        self.model: str = inner.model
        self.model_id: str = inner.model_id
        self.default_chunk_chars: int = inner.default_chunk_chars

    @property
    def dim(self) -> int:
        return self.inner.dim

    def probe_now(self) -> None:
        """The next call is a trial even while the breaker is open (``CircuitBreaker.probe_now``)."""
        self.breaker.probe_now()

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._guarded(self.inner.embed_queries, texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._guarded(self.inner.embed_passages, texts)

    def _guarded(
        self, call: Callable[[Sequence[str]], np.ndarray], texts: Sequence[str]
    ) -> np.ndarray:
        self.breaker.acquire()
        try:
            vectors = call(texts)
        except ConfigError:
            self.breaker.record_success()  # the provider answered; the setting is wrong
            raise
        except EmbeddingError:
            self.breaker.record_failure()
            raise
        except BaseException:
            self.breaker.record_failure()  # never leave a half-open trial hanging
            raise
        self.breaker.record_success()
        return vectors

    def close(self) -> None:
        closer = getattr(self.inner, "close", None)
        if callable(closer):
            closer()
