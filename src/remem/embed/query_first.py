"""One local model shared by searches and indexing, with searches first.

A bundled model runs one call at a time (its C engine keeps scratch buffers per model). Before,
a search's query waited behind whatever batch the indexer had handed over: behind 24 long
messages that was 4.4 s with USE and 66 s with e5 on a loaded 2-core machine. Now passages are
embedded in slices (a few texts, a few thousand characters), and a slice starts only while no
query waits: a query waits for at most the slice in flight.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

# A slice: at most this many texts and (beyond its first text) this many characters. The
# defaults suit e5 (idle: ~52 short or ~1.8 long turns a second): 8 short turns ~0.15 s, one
# 300-word turn ~0.55 s. A faster model takes bigger slices (batching is what makes it fast).
SLICE_TEXTS = 8
SLICE_CHARS = 2000

T = TypeVar("T")


def slices(
    texts: Sequence[str], most_texts: int = SLICE_TEXTS, most_chars: int = SLICE_CHARS
) -> list[Sequence[str]]:
    """``texts`` cut into consecutive slices within ``most_texts`` and ``most_chars``."""
    out: list[Sequence[str]] = []
    start, chars = 0, 0
    for i, text in enumerate(texts):
        if i > start and (i - start >= most_texts or chars + len(text) > most_chars):
            out.append(texts[start:i])
            start, chars = i, 0
        chars += len(text)
    if start < len(texts):
        out.append(texts[start:])
    return out


class QueryFirst:
    """Runs a model's calls one at a time; a query goes before any passage slice not yet
    started."""

    def __init__(self, slice_texts: int = SLICE_TEXTS, slice_chars: int = SLICE_CHARS) -> None:
        self._slice = (slice_texts, slice_chars)
        self._turn = threading.Condition(threading.Lock())  # held while the model runs
        # counted under a lock of its own: a query says it waits without waiting for the
        # slice in flight, so the next slice cannot win the race for the model
        self._count = threading.Lock()
        self._queries_waiting = 0

    def query(self, run: Callable[[Sequence[str]], T], texts: Sequence[str]) -> T:
        with self._count:
            self._queries_waiting += 1
        try:
            with self._turn:
                return run(texts)
        finally:
            with self._count:
                self._queries_waiting -= 1
            with self._turn:
                self._turn.notify_all()

    def passages(
        self, run: Callable[[Sequence[str]], np.ndarray], texts: Sequence[str], dim: int
    ) -> np.ndarray:
        parts = self.in_slices(run, texts)
        if not parts:
            return np.zeros((0, dim), np.float32)
        return np.concatenate([np.asarray(p, np.float32).reshape(-1, dim) for p in parts])

    def in_slices(self, run: Callable[[Sequence[str]], T], texts: Sequence[str]) -> list[T]:
        """``run`` over ``texts`` slice by slice, each slice after any waiting query."""
        parts = []
        for part in slices(texts, *self._slice):
            with self._turn:
                while self._queries_waiting:
                    self._turn.wait()
                parts.append(run(part))
        return parts
