"""Indexing: records get vectors after they are committed, off the caller's thread.

The ``Indexer`` owns the embedder (loaded on first use, so listing never loads a model), the
background queue with its background backfill (started with the queue, in async mode),
on-demand backfill (``embed_pending``) and the cut-over of a model switch. A failure never
loses a record: it stays ``pending`` (lexically searchable) with the error noted, and the
background backfill picks it up once the provider answers again.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from remem.config import Config
from remem.embed.base import Embedder, embed_configured, probe_now
from remem.embed.factory import make_embedder, model_id_for
from remem.embed.fast_model import FAST_MODEL_ID, stands_in_for
from remem.embed.query_first import lower_background
from remem.errors import RememError
from remem.ingest.backfill import Backfill, newest_first, wait_settled
from remem.ingest.backlog import RATE, RATE_STALE_S, describe_backlog
from remem.ingest.facts_fill import FactsFill
from remem.ingest.fast_lane import FastLane
from remem.ingest.latent_fill import LatentTerms
from remem.ingest.queue import IndexQueue
from remem.store.base import ClaimStore, Store
from remem.store.queries import Backlog, VectorWrite
from remem.types import Record

log = logging.getLogger("remem")

Progress = Callable[[int], None]

ACTIVE_MODEL = ("embed", "active-model")  # meta key: the model `remem reembed` switched to
RATE_WINDOW_S = 2.0  # the rate is measured (and written) over windows at least this long

DROP_EVERY_S = 30.0  # the fast lane's superseded vectors are dropped at most this often mid-burst
FAST_FIRST_MAX_S = 10.0  # the longest a main-model batch waits for the fast lane to idle
CLEAN_GAP = ("indexing", "clean-gap")  # meta key: the gap (see Indexer._gap) at the last clean pass


def expected_model_id(cfg: Any) -> str | None:
    """The model id the configured embedder will report, without loading it."""
    return model_id_for(cfg)


def followed_model(config: Config, active: str | None) -> str | None:
    """The bundled model (name) that a store switched to with `remem reembed` (``active``,
    its stored model id) makes this configuration use instead of its own: only while
    embed.model is left at its default, and only between bundled models."""
    cfg = config.embed
    if (
        active
        and active.startswith("local:")
        and cfg.provider == "local"
        and config.source_of("embed.model") == "default"
        and active != f"local:{cfg.model}"
    ):
        return active.split(":", 1)[1]
    return None


def active_model(store: Store) -> str | None:
    """The model id the store was last switched to with `remem reembed`, if any."""
    return store.meta_get(*ACTIVE_MODEL)


class Indexer:
    def __init__(self, store: Store, config: Config, embedder: Embedder | None = None) -> None:
        self.store = store
        self.config = config
        self._embedder = embedder
        self._loaded = embedder is not None
        self._lock = threading.RLock()
        self._queue: IndexQueue | None = None
        self._backfill: Backfill | None = None
        self._fast: FastLane | None = None
        self.latent = LatentTerms(store, config, self._main_model_id, self.get_embedder)
        self._dropped_at = 0.0  # when the fast lane's superseded vectors were last dropped
        self._window = (time.time(), 0)  # (start, records embedded by the queue since)
        # the facts of written records, read after the acknowledgement (facts_fill.py); set
        # by the engine when facts are kept (facts.enabled and a store with the fact tables)
        self.facts: FactsFill | None = None
        if embedder is None:
            self._follow_model_switch()

    # ------------------------------------------------------------------ model
    def _follow_model_switch(self) -> None:
        """Cut over after `remem reembed`: when the store records a completed switch to another
        bundled model and embed.model was not set explicitly, use the switched-to model. Then
        report, once, a configured model that has no vectors while others do."""
        cfg = self.config.embed
        followed = followed_model(self.config, active_model(self.store))
        if followed is not None:
            cfg.model = followed
            log.info("using local:%s: the store was switched to it with `remem reembed`", followed)
        expected = expected_model_id(cfg)
        if expected is None:
            return
        # the fast lane's vectors stand in for the main model's: not a model of their own
        stats = [row for row in self.store.vector_stats() if row[0] != FAST_MODEL_ID]
        if stats and all(model != expected for model, _dim, _n in stats):
            others = ", ".join(f"{m} ({n})" for m, _d, n in stats)
            log.warning(
                "this store's vectors were made by %s, not the configured %s: vector search "
                "finds nothing until `remem reembed --model %s` (or set embed.model back)",
                others,
                expected,
                cfg.model,
            )

    @property
    def embedder_loaded(self) -> bool:
        """Whether the embedder has been built (listing and counting never build it)."""
        return self._loaded

    def get_embedder(self) -> Embedder | None:
        """The configured embedder, loaded on first use."""
        if not self._loaded:
            with self._lock:
                if not self._loaded:
                    self._embedder = make_embedder(self.config.embed)
                    self._loaded = True
        return self._embedder

    # ------------------------------------------------------------------ queue
    @property
    def queue(self) -> IndexQueue:
        """The background indexing queue (started on first use, with the backfill)."""
        if self._queue is None:
            with self._lock:
                if self._queue is None:
                    cfg = self.config.indexing
                    queue = IndexQueue(
                        self._embed_queued,
                        concurrency=cfg.concurrency,
                        max_queue=cfg.max_queue,
                        batch_size=cfg.batch_size,
                        on_drop=self._count_dropped,
                        on_result=self._queue_result,
                    )
                    if cfg.backfill:
                        self._backfill = Backfill(
                            queue,
                            None,  # newest first: find_below
                            chunk=max(cfg.batch_size * 8, 64),
                            max_backoff_s=cfg.backfill_max_backoff_s,
                            scan_at_start=self._gap() != self.store.meta_get(*CLEAN_GAP),
                            on_clean_pass=self._note_clean_pass,
                            start=False,  # held before it runs: no batch result is lost
                            check_every_s=cfg.backfill_check_s,
                            needs_pass=self._left_pending_since_clean_pass,
                            find_below=newest_first(self.store, self._main_model_id),
                        )
                        self._backfill.start()
                    main = self._main_model_id()
                    self._fast = FastLane.for_store(self.store, self.config, main)
                    self._queue = queue
                    self.latent.start_fill(self._embedding_busy)  # when latent terms are on
                    if self.facts is not None:  # what a killed process left unread
                        self.facts.recover()
        return self._queue

    @property
    def fast_lane(self) -> FastLane | None:
        """The fast lane (``ingest/fast_lane.py``), once the queue has started, if
        this store gets one."""
        return self._fast

    def _main_model_id(self) -> str | None:
        if self._loaded:
            return self._embedder.model_id if self._embedder is not None else None
        return expected_model_id(self.config.embed)  # without loading the model

    def queue_stats(self) -> dict[str, int]:
        names = ("queued", "in_flight_batches", "embedded", "failed", "dropped", "workers")
        return dict.fromkeys(names, 0) if self._queue is None else self._queue.stats()

    def _count_dropped(self, rowids: list[int]) -> None:
        try:  # kept in the store so `remem stats` in another process still sees it
            self.store.meta_add("indexing", "dropped", len(rowids))
        except RememError as exc:
            log.warning("could not record dropped queue items: %s", exc)
        if self._backfill is not None:
            self._backfill.wake(rowids)
        if self._fast is not None:
            self._fast.wake(rowids)

    def submit(self, rowids: Sequence[int]) -> None:
        """Hand records to the background queue. More than it has room for (a bulk ingest):
        the first ones are queued and the rest wait in the store for the backfill, which
        feeds them at the model's pace. A single message always goes in (the newest is
        embedded first): a full queue leaves its oldest item to the backfill."""
        queue = self.queue
        room = queue.room()
        if self._fast is not None and (
            (room is not None and len(rowids) > room)
            or queue.pending() + len(rowids) > self.config.indexing.batch_size
        ):
            # Not all in the main model's next batch: they wait. Woken before the main queue
            # sees them, so its workers find the lane busy and let it go first.
            self._fast.wake(rowids)
        if self._backfill is None or room is None or len(rowids) <= max(room, 1):
            queue.submit(rowids)  # one message into a full queue: its oldest item waits
            return
        _queued, consumed = queue.offer(rowids[:room])
        self._backfill.wake(rowids[consumed:])

    def _gap(self) -> str | None:
        """Records minus vectors of the model: two counts that stay cheap on a large store
        (a full scan for records without a vector does not). Unchanged since the last clean
        backfill pass means nothing was left pending since, so a process starting up can skip
        the scan. None: no model."""
        model_id = self._main_model_id()
        if model_id is None:
            return None
        return f"{model_id}:{self.store.count() - self.store.vector_count(model_id)}"

    def _left_pending_since_clean_pass(self) -> bool:
        """Records minus vectors differ from the last clean pass's: something may be pending."""
        return self._gap() != self.store.meta_get(*CLEAN_GAP)

    def _note_clean_pass(self) -> None:
        try:
            self.store.meta_set(*CLEAN_GAP, self._gap())
        except RememError as exc:
            log.debug("could not record the clean backfill pass: %s", exc)

    def _embed_queued(self, rowids: Sequence[int]) -> tuple[int, int]:
        if self._fast is not None:
            # The fast lane goes first: on two cores both models at once each run at a
            # fraction of their speed, while the lane alone clears a burst in seconds and
            # costs the main model only those seconds (remem-bench's fast_lane.py --burst).
            self._fast.wait_idle(timeout=FAST_FIRST_MAX_S)
        # recall first, indexing second: the model's slices run below the chats' priority
        lower_background(self.get_embedder(), self.config.indexing.background_nice)
        started = time.time()
        ok, bad = self.embed_rowids(rowids, latent_terms=False)  # the fill does them, when idle
        self._note_rate(ok, started)
        return ok, bad

    def _queue_result(self, batch: list[int], embedded: int, failed: int) -> None:
        if self._backfill is not None:
            self._backfill.record_result(batch, embedded, failed)
        if self._fast is not None and embedded:
            self._drop_stand_ins()
        if embedded:
            self.latent.wake(batch)

    def _embedding_busy(self) -> bool:
        """Vectors are being made (or owed) by the queue, the backfill or the fast lane: the
        latent fill waits for them."""
        queue, backfill, fast = self._queue, self._backfill, self._fast
        if queue is not None and not queue.wait_idle(0):
            return True
        if backfill is not None and not backfill.settled():
            return True
        return fast is not None and not fast.wait_idle(0)

    def _drop_stand_ins(self, *, now_anyway: bool = False) -> None:
        """Delete the fast lane's vectors of records the main model has since embedded (never
        searched again; kept, every search and export would carry them), at most every
        DROP_EVERY_S (a delete makes the indexes re-read their live rowids)."""
        if not stands_in_for(self._main_model_id()):  # e.g. switched to the fast model itself
            return
        now = time.monotonic()
        if not now_anyway and now - self._dropped_at < DROP_EVERY_S and not self._settled_now():
            return
        self._dropped_at = now
        try:
            if self.store.vector_count(FAST_MODEL_ID):
                self.store.drop_vectors_of_indexed(FAST_MODEL_ID)
        except RememError as exc:  # derived data: the next batch tries again
            log.debug("could not drop the fast lane's vectors: %s", exc)

    def _settled_now(self) -> bool:
        """The main queue has nothing left and the backfill owes nothing (a burst is over)."""
        queue, backfill = self._queue, self._backfill
        return (
            queue is not None and queue.pending() == 0 and (backfill is None or backfill.settled())
        )

    def _note_rate(self, embedded: int, batch_started: float) -> None:
        """Count embedded records; every RATE_WINDOW_S write the rate to the store's meta, so
        `remem stats` in another process can show how fast the backlog shrinks."""
        with self._lock:
            start, count = self._window
            if batch_started - start > RATE_STALE_S:  # after a quiet spell: a new window
                start, count = batch_started, 0
            count += embedded
            now = time.time()
            if now - start < RATE_WINDOW_S:
                self._window = (start, count)
                return
            self._window = (now, 0)
        self._write_rate(count / (now - start))

    def _write_rate(self, per_s: float) -> None:
        try:
            self.store.meta_set(*RATE, json.dumps({"at": time.time(), "per_s": round(per_s, 2)}))
        except RememError as exc:
            log.debug("could not record the indexing rate: %s", exc)

    def backlog(self, pending: int) -> dict[str, Any]:
        """The background backlog for `stats` and the web UI (``backlog.py``)."""
        return describe_backlog(
            self.store, pending, self._queue, self._backfill, self._fast, self.latent, self.facts
        )

    def wait_indexed(self, timeout: float | None = None) -> bool:
        """Block until everything the indexer started is done: the facts owed (and those a
        killed process left), the queue, the backfill and the latent fill (which owes the
        terms of every record lacking them). False when ``timeout`` ran out first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if self.facts is not None and not self.facts.read_owed(timeout):
            return False
        if self._queue is None:
            return True
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        return wait_settled(self._queue, self._backfill, left, then=self.latent.wait_settled)

    def close(self) -> None:
        if self.facts is not None:  # what is left stays in the store's backlog
            self.facts.stop(timeout=self.config.indexing.drain_timeout_s)
        self.latent.stop()
        if self._fast is not None:
            self._fast.close()
        if self._backfill is not None:
            self._backfill.stop()
        if self._queue is not None:
            # Whatever is still queued after the timeout stays pending for `remem embed`.
            self._queue.close(drain=True, timeout=self.config.indexing.drain_timeout_s)
        if self._fast is not None:
            self._drop_stand_ins(now_anyway=True)
        closer = getattr(self._embedder, "close", None)
        if callable(closer):
            closer()

    # ------------------------------------------------------------------ embedding
    def embed_rowids(self, rowids: Sequence[int], *, latent_terms: bool = True) -> tuple[int, int]:
        # Records deleted since they were queued simply are not there any more.
        records = sorted(self.store.get_by_rowids(rowids).values(), key=lambda r: r.rowid or 0)
        return self.embed_records(records, latent_terms=latent_terms) if records else (0, 0)

    def embed_records(
        self,
        records: Sequence[Record],
        *,
        progress: Progress | None = None,
        latent_terms: bool = True,
    ) -> tuple[int, int]:
        """Embed and store vectors (and, with ``latent_terms``, latent terms when on);
        returns (embedded, failed). Failures stay pending, noted, for retry."""
        try:
            embedder = self.get_embedder()
        except RememError as exc:
            self.store.mark_index_status([r.rowid for r in records if r.rowid], "pending", str(exc))
            log.warning(
                "embedding model unavailable (%s); %d records left pending", exc, len(records)
            )
            return 0, len(records)
        if embedder is None:  # no model (embed.provider none): done as they are
            if progress:
                progress(len(records))
            return 0, 0
        done = failed = 0
        size = self.config.embed.batch_size
        for start in range(0, len(records), size):
            batch = records[start : start + size]
            if self._embed_batch(embedder, batch):
                done += len(batch)
                if latent_terms:
                    self.latent.store_now(batch)
            else:
                failed += len(batch)
            if progress:
                progress(len(batch))
        return done, failed

    def _embed_batch(self, embedder: Embedder, batch: Sequence[Record]) -> bool:
        cfg = self.config.embed
        texts = [r.embed_text(cfg.with_speaker) for r in batch]
        try:
            vectors = embed_configured(embedder, texts, cfg, is_query=False)
        except RememError as exc:
            # Never-embedded records stay pending (backfill retries them); records that
            # already have a vector (a rewrite) keep it and say the refresh failed.
            fresh = [r.rowid for r in batch if r.rowid and r.index_status != "indexed"]
            stale = [r.rowid for r in batch if r.rowid and r.index_status == "indexed"]
            self.store.mark_index_status(fresh, "pending", str(exc))
            self.store.mark_index_status(
                stale, "indexed", f"re-embedding failed, previous vector kept: {exc}"
            )
            log.warning(
                "embedding failed (%s); %d records left pending, %d keep their previous vector",
                exc,
                len(fresh),
                len(stale),
            )
            return False
        items = list(zip([r.rowid for r in batch if r.rowid is not None], vectors, strict=True))
        self.store.put_vectors(
            VectorWrite(embedder.model_id, embedder.provider, embedder.model, items)
        )
        return True

    def embed_pending(
        self,
        *,
        batch_size: int | None = None,
        progress: Progress | None = None,
        force: bool = False,
    ) -> dict[str, int]:
        """Embed every record that has no vector for the configured model (backfill), newest
        first (a long import's recent turns get the main model's vectors first; claims on a
        shared store go in rowid order); with ``force``, re-embed every record.

        Resumable: work is committed batch by batch, and a rerun picks up where it stopped
        (for ``force``, the last finished record is kept in the store until the run ends).
        The rate goes to the store for `remem stats`; fast-lane vectors superseded go.
        """
        embedder = self.get_embedder()
        if embedder is None:
            return {"embedded": 0, "failed": 0, "remaining": 0}
        probe_now(embedder)  # explicit: ask the provider, not a breaker opened by searches
        # a backfill or a reembed is background work too: chats' searches go first
        lower_background(embedder, self.config.indexing.background_nice)
        size = batch_size or self.config.embed.batch_size
        marker = f"force:{embedder.model_id}"
        after = int(self.store.meta_get("embed", marker) or 0) if force else sys.maxsize
        embedded = failed = 0
        began = time.time()
        try:
            while batch := self._next_batch(embedder.model_id, size, after, force):
                after, started = batch[-1].rowid or after, time.time()
                ok, bad = self.embed_records(batch, progress=progress)
                embedded, failed = embedded + ok, failed + bad
                self._note_rate(ok, started)
                self._drop_stand_ins()  # at most every DROP_EVERY_S
                if force:
                    self.store.meta_set("embed", marker, str(after))
            self._drop_stand_ins(now_anyway=True)
        finally:  # this run's rate, even when interrupted: `remem stats` tells the time left
            if embedded:
                self._write_rate(embedded / max(time.time() - began, 1e-3))
            if isinstance(self.store, ClaimStore):  # what failed returns to the queue now
                self.store.release_claims(embedder.model_id, self.worker_id)
        if force:
            self.store.meta_set("embed", marker, None)
        remaining = self.store.count_missing_vectors(embedder.model_id)
        return {"embedded": embedded, "failed": failed, "remaining": remaining}

    def _next_batch(self, model_id: str, size: int, after: int, force: bool) -> list[Record]:
        if force:  # after rowid ``after``; the newest-first walk (the last branch): below it
            return list(itertools.islice(self.store.iter_records(batch=size, after=after), size))
        if isinstance(self.store, ClaimStore):  # shared by several processes: claim first
            return self.store.claim_missing_vectors(
                Backlog(model_id, size, after_rowid=0 if after == sys.maxsize else after),
                self.worker_id,
                lease_s=self.config.indexing.claim_lease_s,
            )
        return self.store.records_missing_vectors(Backlog(model_id, size, before_rowid=after))

    @property
    def worker_id(self) -> str:
        """Who holds this process's claims on the embedding backlog (host, pid, instance)."""
        if not hasattr(self, "_worker_id"):
            self._worker_id = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        return self._worker_id

    def finish_switch(self, *, drop_old: bool = False) -> int:
        """After a complete re-embed with this indexer's model: record it as the store's
        active model and, with ``drop_old``, delete other models' vectors. Returns how many
        vectors were dropped."""
        embedder = self.get_embedder()
        if embedder is None:
            raise RememError("switching models needs a real embedding model")
        self.store.meta_set(*ACTIVE_MODEL, embedder.model_id)
        dropped = 0
        if drop_old:
            for other, _dim, _n in self.store.vector_stats():
                if other != embedder.model_id:
                    dropped += self.store.clear_vectors(model_id=other)
            self.store.mark_indexed_with(embedder.model_id)
        return dropped
