"""Exact vector search over one model's vectors, held in memory as a float32 matrix.

The matrix is derived from the store and rebuilt or caught up from it at any time; it is
never the only copy. It follows writes made by this process and by others: each search first
checks the store's change token (``PRAGMA data_version`` plus local commits) and, when it
moved, reads only what changed (vectors by sequence number, filter columns by revision). A
delete anywhere triggers a full reload, which is cheap next to how rare deletes are.

Filter columns (kind, scope, session, role, time ..., ``remem.index.columns``) are kept beside
the matrix as small integer-coded arrays so a filtered search stays a single matrix-vector
product. For big stores ``remem.index.filtered.FilteredVectorIndex`` answers the same calls
from memory-mapped snapshot files and an HNSW graph instead of a matrix read from SQL.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np

from remem.index.columns import FilterColumns
from remem.store.base import Store
from remem.types import Filters

if TYPE_CHECKING:
    from threadpoolctl import ThreadpoolController

# Scanning the loaded BLAS libraries costs ~1 ms; do it once, not per search.
_controller: ThreadpoolController | None = None
_controller_lock = threading.Lock()


def blas_one_thread():
    global _controller
    if _controller is None:
        with _controller_lock:
            if _controller is None:
                # imported here: a command that never searches (stats, list) skips it
                from threadpoolctl import ThreadpoolController

                _controller = ThreadpoolController()
    return _controller.limit(limits=1, user_api="blas")


class ExactIndex:
    """Brute-force cosine search (vectors are unit length, so a dot product)."""

    def __init__(self, store: Store, model_id: str, dim: int) -> None:
        self.store = store
        self.model_id = model_id
        self.dim = dim
        self._lock = threading.Lock()
        self._token: tuple[int, int] | None = None
        self._reset()

    def _reset(self) -> None:
        self.size = 0
        self._matrix = np.empty((0, self.dim), np.float32)
        self._columns = FilterColumns()  # position i is the record of _matrix[i]
        self._seq = 0
        self._rev = 0
        self._deletes: int | None = None

    # ------------------------------------------------------------------ sync
    def sync(self) -> None:
        """Catch up with the store if anything was written since the last look."""
        token = self.store.change_token()
        if token == self._token:
            return
        with self._lock:
            vectors, meta, rev, deletes = self.store.index_delta(
                self.model_id, self.dim, self._seq, self._rev
            )
            if self._deletes is not None and deletes != self._deletes:
                self._reset()
                vectors, meta, rev, deletes = self.store.index_delta(self.model_id, self.dim, 0, 0)
            self._apply(vectors, meta)
            self._rev = rev
            self._deletes = deletes
            self._token = token

    def _apply(self, vectors, meta) -> None:
        """Place new vectors and filter columns, whole columns at a time (no per-row calls)."""
        if len(vectors.rowids):
            rowids = vectors.rowids.tolist()
            pos = self._columns.pos
            new = [r for r in dict.fromkeys(rowids) if r not in pos]
            if self.size == 0 and len(new) == len(rowids):
                # The first load takes the matrix as read (no copy; it may be a read-only view
                # of the fetched buffer until a write needs it writable).
                self._matrix = np.ascontiguousarray(vectors.matrix, np.float32)
                self._columns.add(new)
            else:
                self._columns.add(new)
                self._grow(self._columns.size)
                # a record written twice in the batch: its later row wins
                last = {r: i for i, r in enumerate(rowids)}
                self._matrix[[pos[r] for r in last]] = vectors.matrix[list(last.values())]
            self.size = self._columns.size
            self._seq = vectors.max_seq
        self._columns.apply(meta)

    def _grow(self, need: int) -> None:
        capacity = self._matrix.shape[0]
        if need <= capacity and self._matrix.flags.writeable:
            return
        # rows past ``size`` are never read: np.empty, not np.full (6 s at 1M x 384)
        grown = np.empty((max(need, int(capacity * 1.5) + 1024), self.dim), np.float32)
        grown[: self.size] = self._matrix[: self.size]
        self._matrix = grown

    # ------------------------------------------------------------------ search
    def search(
        self, query: np.ndarray, n: int, filters: Filters | None = None, now: float | None = None
    ) -> list[tuple[int, float]]:
        """(rowid, cosine) of the n best vectors passing the filters, best first."""
        self.sync()
        with self._lock:
            size = self.size
            if size == 0 or n <= 0:
                return []
            mask = self._columns.mask(filters, now, self.store)
            # One BLAS thread: on 2 cores a second thread only helps an idle machine and
            # doubles latency under load.
            with blas_one_thread():
                scores = self._matrix[:size] @ np.asarray(query, np.float32)
            if mask is not None:
                scores = np.where(mask, scores, -np.inf)
                available = int(mask.sum())
            else:
                available = size
            n = min(n, available)
            if n <= 0:
                return []
            top = np.argpartition(-scores, n - 1)[:n] if n < size else np.arange(size)
            top = top[np.argsort(-scores[top], kind="stable")]
            rowids = self._columns.rowids[top]
            return [(int(r), float(scores[i])) for r, i in zip(rowids, top, strict=True)]

    def vectors_for(self, rowids: list[int]) -> dict[int, np.ndarray]:
        """Stored vectors of these records (for diversity and neighbour stages)."""
        with self._lock:
            pos = self._columns.pos
            return {r: self._matrix[pos[r]].copy() for r in rowids if r in pos}

    def all_finite(self) -> bool:
        """Whether every loaded vector is finite (``remem doctor``)."""
        with self._lock:
            return bool(np.all(np.isfinite(self._matrix[: self.size])))
