"""Latent terms for stored records: computed once, beside the vectors, read by every search.

The relevance stage reads the sparse latent terms of a search's best candidates
(``search/latent_reader.py``). Computed at search time they cost a model pass for every
candidate not seen before (search p50 104 ms on LoCoMo against 9-17 ms); stored with the
record, a search pays one pass, for its question. Three paths store them:

- ``fill_latent_terms``: every record lacking current terms, now (``remem embed``, a
  synchronous ingest's records, the benchmark suite);
- ``LatentFill``: the same in the background, for the indexing queue. Vectors come first: it
  computes a small chunk at a time and only while the queue, the backfill and the fast lane
  have nothing to do, so a new message's vector never waits behind latent terms;
- ``remem import`` and ``remem copy`` carry the terms a file or a store holds (derived data,
  keyed by content hash).

A search never computes a record's terms (``LatentReader``): a record the fill has not reached
is judged by its dense cosine until it does, so a chat's recall never waits on a model pass
per candidate.

Terms are derived data: a failure is logged and retried later, never fatal.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from remem.config import Config
from remem.embed import latent
from remem.embed.base import Embedder
from remem.embed.query_first import lower_background
from remem.errors import RememError
from remem.ingest.backfill import StoppableLoop
from remem.store.base import Store
from remem.types import Record

log = logging.getLogger("remem.latent")

# texts -> packed latent terms (remem.embed.latent), one per text
Compute = Callable[[Sequence[str]], list[bytes]]
Progress = Callable[[int], None]

CHUNK = 16  # records a background step computes: ~0.5 s of model time for chat-length texts
BUSY_WAIT_S = 0.25  # how often a waiting fill looks whether the queues are idle again
BACKOFF_S = (5.0, 300.0)  # after a failure: first and longest wait before trying again
SKIP_AFTER = 3  # failures in a row of one chunk before the fill goes on past it


def store_terms(store: Store, model_id: str, compute: Compute, records: Sequence[Record]) -> int:
    """Compute and store these records' latent terms; returns how many were written (a
    record deleted or rewritten meanwhile is skipped by the store)."""
    wanted = [r for r in records if r.rowid is not None]
    if not wanted:
        return 0
    codes = compute([r.text for r in wanted])
    return store.put_latent_terms(
        model_id,
        [(r.rowid, r.content_hash, code) for r, code in zip(wanted, codes, strict=True) if r.rowid],
    )


def fill_latent_terms(
    store: Store,
    model_id: str,
    compute: Compute,
    *,
    batch: int = 32,
    progress: Progress | None = None,
) -> int:
    """Give every record lacking current latent terms of ``model_id`` its terms, batch by
    batch (each committed: an interrupted run keeps what it did). Returns how many were
    written."""
    written, after = 0, 0
    while records := store.records_missing_latent_terms(model_id, limit=batch, after_rowid=after):
        written += store_terms(store, model_id, compute, records)
        after = records[-1].rowid or after
        if progress:
            progress(len(records))
    return written


class LatentFill(StoppableLoop):
    """The background fill: woken with the rowids of records that got vectors (or at start
    with 0, for an older store), it walks the records lacking terms from the lowest of them."""

    def __init__(
        self,
        store: Store,
        model_id: str,
        compute: Compute,
        busy: Callable[[], bool],
        *,
        chunk: int = CHUNK,
        start: bool = True,
    ) -> None:
        self.store = store
        self.model_id = model_id
        self._compute = compute
        self._busy = busy
        self.chunk = max(1, chunk)
        self._cond = threading.Condition()
        self._owed: int | None = 0  # a pass is owed from after this rowid (0: the whole store)
        self._stopped = False
        self._active = False
        self._failures = 0  # failures in a row: the back-off
        self._chunk_failures = 0  # of the chunk at hand: passed over after SKIP_AFTER
        self._backing_off = False  # waiting out failures: settled as far as waiters go
        self.filled = 0  # terms written by this fill
        self._thread = threading.Thread(target=self._run, name="remem-latent-fill", daemon=True)
        if start:
            self._thread.start()

    def wake(self, rowids: Sequence[int] = (0,)) -> None:
        """These records may lack terms now: walk again, from the lowest of them."""
        lowest = max(0, min(rowids, default=1) - 1)
        with self._cond:
            self._owed = lowest if self._owed is None else min(self._owed, lowest)
            self._cond.notify_all()

    def wait_settled(self, timeout: float | None = None) -> bool:
        """Block until the fill owes nothing, or is waiting out failures (as the queue's
        wait does for a failing provider), or is stopped."""
        with self._cond:
            return self._cond.wait_for(
                lambda: (
                    self._stopped or self._backing_off or (self._owed is None and not self._active)
                ),
                timeout,
            )

    def stats(self) -> dict[str, int | bool]:
        with self._cond:
            return {"filled": self.filled, "filling": self._active or self._owed is not None}

    # ------------------------------------------------------------------ the loop
    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stopped or self._owed is not None)
                if self._stopped:
                    return
                after, self._owed, self._active = self._owed or 0, None, True
            try:
                self._one_pass(after)
            finally:
                with self._cond:
                    self._active = False
                    self._cond.notify_all()

    def _one_pass(self, after: int) -> None:
        """Walk the records lacking terms from rowid ``after`` on, a chunk at a time, each
        chunk only once the queues are idle. On a failure: back off, then owe the rest (a
        chunk whose terms failed SKIP_AFTER times in a row is left to the search-time
        reader)."""
        while not self._stopped:
            if self._busy():
                with self._cond:
                    self._cond.wait(BUSY_WAIT_S)
                continue
            try:
                records = self.store.records_missing_latent_terms(
                    self.model_id, limit=self.chunk, after_rowid=after
                )
            except Exception as exc:  # the store is unreachable: back off, come back here
                self._back_off(after, exc)
                return
            if not records:
                return
            try:
                written = store_terms(self.store, self.model_id, self._compute, records)
            except Exception as exc:  # derived data: a failure is never fatal to the loop
                self._chunk_failures += 1
                skip = self._chunk_failures >= SKIP_AFTER
                if skip:
                    self._chunk_failures = 0
                self._back_off((records[-1].rowid or after) if skip else after, exc)
                return
            with self._cond:
                self.filled += written
            after = records[-1].rowid or after
            self._failures = self._chunk_failures = 0

    def _back_off(self, resume_after: int, exc: Exception) -> None:
        """Wait (5 s, doubling up to 300 s while failures go on), then owe the pass again
        from ``resume_after``."""
        self._failures += 1
        if self._failures in (1, 5) or self._failures % 20 == 0:
            log.warning("latent terms not stored (will retry): %s", exc, exc_info=True)
        wait = min(BACKOFF_S[1], BACKOFF_S[0] * 2 ** min(self._failures - 1, 16))
        with self._cond:
            self._backing_off = True
            self._cond.notify_all()
            try:
                if self._cond.wait_for(lambda: self._stopped, wait):
                    return
            finally:
                self._backing_off = False
            self._owed = resume_after if self._owed is None else min(self._owed, resume_after)


@dataclass(eq=False)
class LatentTerms:
    """An indexer's latent terms: the id they are stored under, computing and storing them
    now (a synchronous embedding, ``remem embed``) and the background fill of its queue."""

    store: Store
    config: Config
    main_model_id: Callable[[], str | None]
    get_embedder: Callable[[], Embedder | None]
    fill: LatentFill | None = field(default=None, init=False)

    def model_id(self) -> str | None:
        """The id this store keeps latent terms under, when the relevance stage reads them
        (``search.latent_top`` > 0) and the configured model has a sparse head; else None.
        Known without loading the model."""
        if self.config.search.latent_top <= 0:
            return None
        return latent.model_id_for(self.main_model_id())

    def compute(self, texts: Sequence[str]) -> list[bytes]:
        terms = getattr(self.get_embedder(), "latent_terms", None)
        if terms is None:
            raise RememError(f"{self.main_model_id()} reads no latent terms")
        return terms(texts)

    def store_now(self, records: Sequence[Record]) -> None:
        """These (just embedded) records' terms, now; a failure is logged and left to the
        fill and to search time."""
        terms_id = self.model_id()
        if terms_id is None or not records:
            return
        try:  # a re-embedding (--force, a model switch) leaves current terms as they are
            current = self.store.latent_terms_of(terms_id, [r.rowid for r in records if r.rowid])
            store_terms(
                self.store, terms_id, self.compute, [r for r in records if r.rowid not in current]
            )
        except Exception as exc:  # derived data: the vectors are in, the fill tries again
            log.warning("latent terms not stored (searches compute them): %s", exc)

    def fill_all(self, *, progress: Progress | None = None) -> int:
        """Every record lacking current terms gets them now; how many were written (0 when
        latent terms are off or the model has none)."""
        terms_id = self.model_id()
        if terms_id is None:
            return 0
        return fill_latent_terms(self.store, terms_id, self.compute, progress=progress)

    def count_missing(self) -> int:
        terms_id = self.model_id()
        return self.store.count_missing_latent_terms(terms_id) if terms_id else 0

    def stats(self) -> dict[str, int | bool]:
        """This process's fill: terms written, still filling (no scan of the store:
        ``count_missing`` is the count, for `remem stats`)."""
        return self.fill.stats() if self.fill is not None else {"filled": 0, "filling": False}

    def start_fill(self, busy: Callable[[], bool]) -> None:
        """Start the background fill (with the queue), from the store's first record."""
        terms_id = self.model_id()
        if terms_id is not None and self.fill is None:
            self.fill = LatentFill(self.store, terms_id, self._compute_behind_searches, busy)

    def _compute_behind_searches(self, texts: Sequence[str]) -> list[bytes]:
        """``compute`` for the background fill: the model's slices below the chats' priority."""
        lower_background(self.get_embedder(), self.config.indexing.background_nice)
        return self.compute(texts)

    def wake(self, rowids: Sequence[int]) -> None:
        if self.fill is not None:
            self.fill.wake(rowids)

    def wait_settled(self, timeout: float | None = None) -> bool:
        """Block until the fill has stored what it owes (True at once without a fill)."""
        return self.fill.wait_settled(timeout) if self.fill is not None else True

    def stop(self) -> None:
        """Stop the fill and wait for its thread: a chunk (CHUNK texts, about half a second
        of model time) is finished and written before the store may close under it."""
        if self.fill is not None:
            self.fill.stop(timeout=None)
