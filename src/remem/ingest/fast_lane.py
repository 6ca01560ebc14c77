"""The fast lane: records that wait for the main model are searchable by meaning at once.

The bundled default model (multilingual-e5-small) embeds ~45 short messages a second on two
cores; a burst, a bulk ingest or a busy bot outruns it, and the records it has not reached
yet are found by keyword search only. The bundled USE model embeds ~10x faster. With the lane
on (``indexing.fast_lane``, SQLite stores with the bundled e5 model), records that wait for
e5 get a USE vector first, written without marking them indexed: they stay ``pending`` and
the main queue and backfill still give them their e5 vector. Meanwhile a search also asks
the USE index, but only for the records that have no e5 vector yet
(``remem.search.fast_hits``), and maps USE's cosines onto e5's scale with a line fitted on
real questions (remem-bench's ``fast_lane_mapping.py``). Once the backlog is gone the lane is idle and
searches are e5-only, exactly as without it.

Which records: those the main queue cannot start on at once (it holds more than a batch, or
is full, or dropped them). The lane scans the store for the records still without a main-model
vector from the lowest such rowid (never below what it has done already), with the backfill's
machinery (room, back-off), so it never holds more than its queue.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from remem.config import Config
from remem.embed.base import Embedder, embed_configured
from remem.embed.fast_model import FAST_MODEL, FAST_MODEL_ID, fast_embedder, lane_applies
from remem.embed.query_first import lower_background
from remem.errors import RememError
from remem.ingest.backfill import Backfill, pending_without_vector, wait_settled
from remem.ingest.queue import IndexQueue
from remem.store.base import Store
from remem.store.queries import VectorWrite
from remem.types import Record

log = logging.getLogger("remem")


class FastLane:
    """USE vectors for pending records, in a background thread of its own."""

    @classmethod
    def for_store(cls, store: Store, config: Config, main_model_id: str | None) -> FastLane | None:
        """The lane of this store, or None when it gets none (``lane_applies``)."""
        if main_model_id and lane_applies(config, main_model_id, store.index_root is not None):
            return cls(store, config, main_model_id)
        return None

    def __init__(self, store: Store, config: Config, main_model_id: str) -> None:
        self.store = store
        self.config = config
        self.main_model_id = main_model_id
        # Every waiting record up to here has been given its fast vector: a wake below it (a
        # rewrite of an old record, drops the lane already covered) scans from here, never
        # the indexed bulk of the store.
        self._upto = 0
        self._embedder: Embedder | None = None
        self._broken: str | None = None  # why the fast model could not load (said once)
        self._closed = False
        cfg = config.indexing
        self.queue = IndexQueue(
            self._embed,
            concurrency=1,  # one model, one lock: more workers would only wait
            max_queue=max(cfg.max_queue, cfg.batch_size),
            batch_size=cfg.batch_size,
            on_result=self._result,
        )
        self._scan = Backfill(
            self.queue,
            self._find,
            chunk=max(cfg.batch_size * 8, 64),
            max_backoff_s=cfg.backfill_max_backoff_s,
            scan_at_start=False,  # the main backfill owns crash leftovers
        )

    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = fast_embedder(self.config.embed.threads)
        return self._embedder

    def wake(self, rowids: Sequence[int]) -> None:
        """These records wait for the main model: give them (and any pending after them) a
        fast vector."""
        if rowids and self._broken is None and not self._closed:
            self._scan.wake(rowids)

    def _find(self, after: int, limit: int) -> tuple[list[int], int | None]:
        """Records still without a main-model vector (the waiting ones: as few as the
        backlog, however big the store), after ``after`` and the lane's mark."""
        return pending_without_vector(self.store, self.main_model_id, max(after, self._upto), limit)

    def _embed(self, rowids: Sequence[int]) -> tuple[int, int]:
        if self._broken is not None or self._closed:
            return 0, 0  # off: the records wait for the main model as they would without it
        records = [
            r
            for r in self.store.get_by_rowids(rowids).values()
            if r.index_status == "pending" and r.rowid is not None  # not embedded by e5 since
        ]
        if not records:
            return 0, 0
        try:
            embedder = self.embedder()
            lower_background(embedder, self.config.indexing.background_nice)  # recall first
            put_fast_vectors(self.store, self.config, embedder, records)
        except RememError as exc:
            if self._broken is None:
                self._broken = str(exc)
                log.warning("the fast lane is off: %s (records wait for the main model)", exc)
            return 0, len(records)
        self._upto = max(self._upto, max(r.rowid or 0 for r in records))
        return len(records), 0

    def _result(self, batch: list[int], embedded: int, failed: int) -> None:
        if self._broken is None:
            self._scan.record_result(batch, embedded, failed)

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Until the lane has nothing queued or owed (at once when it is closed or off)."""
        if self._closed or self._broken is not None:
            return True
        return wait_settled(self.queue, self._scan, timeout)

    def stats(self) -> dict[str, int]:
        return {"fed": self._scan.fed, **self.queue.stats()}

    def close(self) -> None:
        self._closed = True
        self._scan.stop()
        # the batch in flight (a fraction of a second) finishes before the store closes
        self.queue.close(drain=False, timeout=10.0)


def put_fast_vectors(
    store: Store, config: Config, embedder: Embedder, records: Sequence[Record]
) -> int:
    """Embed ``records`` with the fast model and store those vectors without marking the
    records indexed: they stay ``pending`` for the main model (the queue, the backfill or
    `remem embed`), and searches find them meanwhile through ``remem.search.fast_hits``.
    Returns how many vectors were written. The lane's batches and `remem import --fast`
    share it."""
    cfg = config.embed
    texts = [r.embed_text(cfg.with_speaker) for r in records]
    vectors = embed_configured(embedder, texts, cfg, is_query=False)
    return store.put_vectors(
        VectorWrite(
            FAST_MODEL_ID,
            "local",
            FAST_MODEL,
            [(r.rowid, v) for r, v in zip(records, vectors, strict=True) if r.rowid is not None],
            mark_indexed=False,  # still pending: the main model's vector is what indexes it
        ),
    )
