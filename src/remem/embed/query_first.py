"""One local model used by searches and by background indexing, with searches first.

A search's query never waits for background embedding (issue 47, item 2):

- Queries run on an engine of their own (``query_engine`` below: a second e5 handle over the
  same memory-mapped weights, ~25 MB; USE's backend object shared read-only), under a lock
  only queries take. Before, both shared one engine and a query waited for the slice in
  flight; with background threads at a lower OS priority (``indexing.background_nice``) that
  slice could take seconds on a loaded machine (priority inversion): p95 got worse.
- Background passages still go through the model in slices (a few texts, a few thousand
  characters), on one thread per model (``BackgroundRunner``) at a lower OS priority
  (``indexing.background_nice``), and a slice starts only while no search of this process
  is embedding (``SEARCHES``, shared by every model: an e5 query does not compete with a
  USE slice either; the rest of a search is not waited for). A search thus shares the CPU with at most the slice in flight, at the
  lower priority; the threads that hand slices over (and write to the store) keep theirs.
- So that a steady stream of searches cannot starve indexing, a slice that has waited
  ``YIELD_MAX_S`` starts anyway (at its lower priority).
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

from remem.embed.priority import lower_this_thread

# A slice: at most this many texts and (beyond its first text) this many characters. The
# defaults suit e5 (idle: ~52 short or ~1.8 long turns a second): 8 short turns ~0.15 s, one
# 300-word turn ~0.55 s. A faster model takes bigger slices (batching is what makes it fast).
SLICE_TEXTS = 8
SLICE_CHARS = 2000
# The longest a background slice waits for searches to finish before it starts anyway: chats
# search now and then, a loop of searches must not stop indexing altogether.
YIELD_MAX_S = 2.0

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


class Searches:
    """How many searches of this process are embedding their question right now; background
    slices wait for none."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._active = 0
        self.yielded = 0  # background slices that waited for a search (for tests and stats)

    @property
    def active(self) -> int:
        return self._active

    @contextmanager
    def running(self) -> Iterator[None]:
        """Mark a search as running (it never waits here)."""
        with self._cond:
            self._active += 1
        try:
            yield
        finally:
            with self._cond:
                self._active -= 1
                if not self._active:
                    self._cond.notify_all()

    def wait_clear(self) -> bool:
        """Until no search runs, for at most ``YIELD_MAX_S``; True when it did not wait."""
        with self._cond:
            if not self._active:
                return True
            self.yielded += 1
            deadline = time.monotonic() + YIELD_MAX_S
            while self._active and (left := deadline - time.monotonic()) > 0:
                self._cond.wait(left)
            return False


SEARCHES = Searches()  # one per process: the CPU is shared by every model


def lower_background(embedder: object, nice: int) -> None:
    """Run ``embedder``'s background slices at least ``nice`` lower from their next slice on
    (``indexing.background_nice``; the largest asked wins: a thread cannot raise it back).
    An embedder without background slices (a remote one) is left as it is."""
    turns = getattr(embedder, "_turns", None)
    if isinstance(turns, QueryFirst):
        turns.background.lower_by(nice)


class BackgroundRunner:
    """The one thread that runs a model's background slices, one at a time, at a lower OS
    priority (``priority.py``; by ``lower_background``: ``indexing.background_nice``, asked
    by the indexer that drives the model).
    It holds no lock a search takes: the callers (queue workers that also write to the store)
    keep their priority and wait here for the result. Before each slice it waits for the
    searches embedding (``Searches.wait_clear``)."""

    def __init__(self, name: str, searches: Searches) -> None:
        self._name = name
        self._searches = searches
        self.nice = 0  # how much lower the slices run (lower_by)
        self._applied = 0  # by the thread running now
        self.running = False  # a slice is in the model now (for tests)
        self._forget()
        os.register_at_fork(after_in_child=self._forget)  # a child starts its own thread

    def _forget(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[tuple[Callable[[Any], Any], Any, Future[Any]]] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None
        self._applied = 0

    def lower_by(self, nice: int) -> None:
        self.nice = max(self.nice, nice)

    def run(self, fn: Callable[[Any], T], part: Any) -> T:
        done: Future[T] = Future()
        with self._lock:
            if self._thread is None:
                # a daemon: a slice in flight never holds up the interpreter's exit
                self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
                self._thread.start()
            self._jobs.put((fn, part, done))
        return done.result()

    def _serve(self) -> None:
        while True:
            fn, part, done = self._jobs.get()
            if (nice := self.nice) > self._applied:
                lower_this_thread(nice - self._applied)
                self._applied = nice
            self._searches.wait_clear()
            if not done.set_running_or_notify_cancel():
                continue
            self.running = True
            try:
                done.set_result(fn(part))
            except BaseException as exc:  # the caller raises it
                done.set_exception(exc)
            finally:
                self.running = False


class QueryFirst:
    """Runs a model's queries and its background passages apart: a query takes only the
    query engine's lock; passage slices run on the model's background thread
    (``BackgroundRunner``), each once no search is embedding."""

    def __init__(
        self,
        slice_texts: int = SLICE_TEXTS,
        slice_chars: int = SLICE_CHARS,
        searches: Searches = SEARCHES,
        name: str = "remem-background-model",
    ) -> None:
        self._slice = (slice_texts, slice_chars)
        self._searches = searches
        self._query_lock = threading.Lock()  # the query engine: taken by queries only
        self.background = BackgroundRunner(name, searches)

    def query(self, run: Callable[[Sequence[str]], T], texts: Sequence[str]) -> T:
        """``run`` (on the query engine) now: never behind a passage slice."""
        with self._searches.running(), self._query_lock:
            return run(texts)

    def passages(
        self, run: Callable[[Sequence[str]], np.ndarray], texts: Sequence[str], dim: int
    ) -> np.ndarray:
        parts = self.in_slices(run, texts)
        if not parts:
            return np.zeros((0, dim), np.float32)
        return np.concatenate([np.asarray(p, np.float32).reshape(-1, dim) for p in parts])

    def in_slices(self, run: Callable[[Sequence[str]], T], texts: Sequence[str]) -> list[T]:
        """``run`` (on the background engine) over ``texts`` slice by slice, on the background
        thread."""
        return [self.background.run(run, part) for part in slices(texts, *self._slice)]
