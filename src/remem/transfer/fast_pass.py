"""The fast model's vectors of a `remem import --fast`, one batch behind its writes.

The import writes a batch (parsing, the keyword index: Python, on one core) while the fast
model embeds the batch before it (numpy, on the other cores: ``embed.parallel.SideBySide``),
so the two overlap instead of taking turns. The vectors are written by the import's own
thread, after the records they belong to, so the store has one writer as before; at the end
the fast model's index snapshot is built (``build_index``), as the default model's is. A failure
halfway leaves records ``pending`` without a fast vector, as an interrupted import always
could: the default model's backfill still reaches them.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from remem.config import Config
from remem.embed.base import chunk_limit, embed_with_chunks
from remem.embed.fast_model import FAST_DIM, FAST_MODEL, FAST_MODEL_ID, fast_workers
from remem.embed.parallel import SideBySide
from remem.index.filtered import FilteredVectorIndex
from remem.search.fast_hits import NEVER_A_GRAPH
from remem.store.base import Store
from remem.store.queries import VectorWrite
from remem.types import Record


class FastPass:
    """Embeds each batch handed to ``add`` in the background and writes the vectors of the
    batch before it; ``finish`` writes the last. Use as a context manager."""

    def __init__(self, store: Store, config: Config, workers: int) -> None:
        self.store = store
        self.config = config
        self.embedder = SideBySide(fast_workers(max(1, workers)))
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="remem-import-fast")
        self._pending: list[tuple[list[Record], Future[np.ndarray]]] = []
        self.written = 0  # vectors written

    def add(self, records: Sequence[Record]) -> None:
        """Start embedding ``records`` (stored already), then write the earlier batch's
        vectors (waiting for them if the model is still on it)."""
        records = [r for r in records if r.rowid is not None]
        if records:
            self._pending.append((records, self._pool.submit(self._embed, records)))
        while len(self._pending) > 1:
            self._put(*self._pending.pop(0))

    def finish(self) -> int:
        """Write every vector still owed; the number written in all."""
        while self._pending:
            self._put(*self._pending.pop(0))
        return self.written

    def build_index(self) -> bool:
        """Build the fast model's vector snapshot now when one is due (as ``remem import``
        does for the default model's): else the first search of every later process reads
        the fast vectors from the database into memory (61 MB at 30,000 x 512) or a
        searcher builds the snapshot in the background then. Whether it built."""
        if self.store.index_root is None:
            return False
        index = FilteredVectorIndex(
            self.store, FAST_MODEL_ID, FAST_DIM, ann_min=NEVER_A_GRAPH, auto_build=False
        )
        built = index.vectors.refresh()
        if built:
            index.sync()  # also saves the filter columns beside it (index/columns_file.py)
        return built

    def _embed(self, records: list[Record]) -> np.ndarray:
        cfg = self.config.embed
        texts = [r.embed_text(cfg.with_speaker) for r in records]
        return embed_with_chunks(
            self.embedder,
            texts,
            is_query=False,
            max_chars=chunk_limit(self.embedder, cfg),
            overlap=cfg.chunk_overlap,
            batch_size=max(1, len(texts)),  # one call: split across the cores, not in time
        )

    def _put(self, records: list[Record], vectors: Future[np.ndarray]) -> None:
        items = [
            (r.rowid, v)
            for r, v in zip(records, vectors.result(), strict=True)
            if r.rowid is not None
        ]
        self.written += self.store.put_vectors(
            # still pending: the main model's vector is what indexes it
            VectorWrite(FAST_MODEL_ID, "local", FAST_MODEL, items, mark_indexed=False)
        )

    def __enter__(self) -> FastPass:
        return self

    def __exit__(self, *exc: object) -> None:
        # on an error, the batches in flight are abandoned (their records stay pending)
        for _records, future in self._pending:
            future.cancel()
        self._pool.shutdown(wait=True)
        self.embedder.close()
