"""Exact vector search over one model's vectors, held in memory as a float32 matrix.

The matrix is derived from the store and rebuilt or caught up from it at any time; it is
never the only copy. It follows writes made by this process and by others: each search first
checks the store's change token (``PRAGMA data_version`` plus local commits) and, when it
moved, reads only what changed (vectors by sequence number, filter columns by revision). A
delete anywhere triggers a full reload, which is cheap next to how rare deletes are.

Filter columns (kind, scope, session, role, time ...) are kept beside the matrix as small
integer-coded arrays so a filtered search stays a single matrix-vector product. The store
re-checks every returned hit against the filters, so a stale column can cost a hit but can
never leak one.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import ThreadpoolController

from remem.types import Filters

# Scanning the loaded BLAS libraries costs ~1 ms; do it once, not per search.
_controller: ThreadpoolController | None = None
_controller_lock = threading.Lock()


def blas_one_thread():
    global _controller
    if _controller is None:
        with _controller_lock:
            if _controller is None:
                _controller = ThreadpoolController()
    return _controller.limit(limits=1, user_api="blas")


_CODED = ("kind", "scope", "session", "role", "platform", "category")


@dataclass
class _Codes:
    """String <-> small int per filter column; code 0 means NULL."""

    maps: dict[str, dict[str | None, int]] = field(
        default_factory=lambda: {c: {None: 0} for c in _CODED}
    )

    def code(self, column: str, value: str | None) -> int:
        table = self.maps[column]
        found = table.get(value)
        if found is None:
            found = table[value] = len(table)
        return found

    def codes(self, column: str, values: tuple) -> np.ndarray:
        """Codes of a whole column of values (new values get new codes)."""
        table = self.maps[column]
        for value in dict.fromkeys(values):  # distinct values, in C
            if value not in table:
                table[value] = len(table)
        return np.fromiter(map(table.__getitem__, values), np.int32, len(values))

    def lookup(self, column: str, values: list[str]) -> np.ndarray:
        table = self.maps[column]
        return np.array([table[v] for v in values if v in table], dtype=np.int32)


class ExactIndex:
    """Brute-force cosine search (vectors are unit length, so a dot product)."""

    def __init__(self, store, model_id: str, dim: int) -> None:
        self.store = store
        self.model_id = model_id
        self.dim = dim
        self._lock = threading.Lock()
        self._token: tuple[int, int] | None = None
        self._reset()

    def _reset(self) -> None:
        self.size = 0
        self._matrix = np.empty((0, self.dim), np.float32)
        self._rowids = np.empty(0, np.int64)
        self._pos: dict[int, int] = {}
        self._codes = _Codes()
        self._cols = {c: np.empty(0, np.int32) for c in _CODED}
        self._created = np.empty(0, np.float64)
        self._valid_to = np.empty(0, np.float64)
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

    def _grow(self, need: int) -> None:
        capacity = self._matrix.shape[0]
        if need <= capacity:
            return
        new_cap = max(need, int(capacity * 1.5) + 1024)

        def grown(arr: np.ndarray) -> np.ndarray:
            # Rows past ``size`` are never read (every use slices [:size]): no fill needed,
            # and np.empty does not touch the pages (np.full cost 6 s at 1M x 384).
            out = np.empty((new_cap, *arr.shape[1:]), dtype=arr.dtype)
            out[: self.size] = arr[: self.size]
            return out

        self._matrix = grown(self._matrix)
        self._rowids = grown(self._rowids)
        self._cols = {c: grown(a) for c, a in self._cols.items()}
        self._created = grown(self._created)
        self._valid_to = grown(self._valid_to)

    def _apply(self, vectors, meta) -> None:
        """Place new vectors and filter columns, whole columns at a time (no per-row calls)."""
        if len(vectors.rowids):
            rowids = vectors.rowids.tolist()
            pos = self._pos
            new = [r for r in dict.fromkeys(rowids) if r not in pos]
            if len(new) == len(rowids) and self.size == 0 and not pos:
                # The first load takes the matrix as read (no copy; it may be a read-only view
                # of the fetched buffer until a write needs it writable).
                self._matrix = np.ascontiguousarray(vectors.matrix, np.float32)
                self._rowids = np.array(vectors.rowids, np.int64)
                self._pos = dict(zip(rowids, range(len(rowids)), strict=True))
                self.size = len(rowids)
                for c in _CODED:
                    self._cols[c] = np.zeros(self.size, np.int32)
                self._created = np.zeros(self.size, np.float64)
                self._valid_to = np.full(self.size, math.inf)
            else:
                start = self.size
                self._grow(start + len(new))
                pos.update(zip(new, range(start, start + len(new)), strict=True))
                end = start + len(new)
                self._rowids[start:end] = new
                # new rows match nothing until their filter columns arrive (rev catches up)
                for c in _CODED:
                    self._cols[c][start:end] = 0
                self._created[start:end] = 0
                self._valid_to[start:end] = math.inf
                self.size = end
                if not self._matrix.flags.writeable:
                    self._matrix = self._matrix.copy()
                # a record written twice in the batch: its later row wins
                last = {r: i for i, r in enumerate(rowids)}
                self._matrix[[pos[r] for r in last]] = vectors.matrix[list(last.values())]
            self._seq = vectors.max_seq
        if meta:
            self._apply_meta(meta)

    def _apply_meta(self, meta: list[tuple]) -> None:
        columns = list(zip(*meta, strict=True))  # INDEX_META_COLUMNS order
        get = self._pos.get
        pos = np.fromiter((get(r, -1) for r in columns[0]), np.int64, len(meta))
        known = pos >= 0
        if not known.any():
            return
        pos = pos[known]
        for column, values in zip(_CODED, (columns[1], columns[2], columns[3], columns[4],
                                           columns[6], columns[7]), strict=True):  # fmt: skip
            codes = self._codes.codes(column, values)
            self._cols[column][pos] = codes[known]
        self._created[pos] = np.asarray(columns[5], np.float64)[known]
        valid_to = np.array(columns[8], np.float64)  # None -> nan
        self._valid_to[pos] = np.where(np.isnan(valid_to), math.inf, valid_to)[known]

    # ------------------------------------------------------------------ search
    def _mask(self, filters: Filters | None, now: float | None) -> np.ndarray | None:
        if filters is None or filters.is_empty():
            return None
        n = self.size
        mask = np.ones(n, dtype=bool)
        for column, values in (
            ("kind", filters.kinds),
            ("scope", filters.scopes),
            ("session", filters.sessions),
            ("role", filters.roles),
            (
                "platform",
                [filters.platform]
                if filters.platform is not None and not filters.platform_by_session
                else None,
            ),
            ("category", [filters.category] if filters.category is not None else None),
        ):
            if values is not None:
                mask &= np.isin(self._cols[column][:n], self._codes.lookup(column, values))
        if filters.platform is not None and filters.platform_by_session:
            on_platform = np.isin(
                self._cols["platform"][:n], self._codes.lookup("platform", [filters.platform])
            )
            sessions = self.store.sessions_on_platform(filters.platform)
            if sessions:
                on_platform |= np.isin(
                    self._cols["session"][:n], self._codes.lookup("session", sessions)
                )
            mask &= on_platform
        if filters.exclude_roles:
            mask &= ~np.isin(self._cols["role"][:n],
                             self._codes.lookup("role", filters.exclude_roles))  # fmt: skip
        if filters.exclude_ids:
            rowids = self.store.rowids_for_ids(filters.exclude_ids)
            mask &= ~np.isin(self._rowids[:n], np.asarray(rowids, dtype=np.int64))
        if filters.since is not None:
            mask &= self._created[:n] >= filters.since
        if filters.until is not None:
            mask &= self._created[:n] <= filters.until
        if not filters.include_superseded and now is not None:
            mask &= self._valid_to[:n] > now
        if filters.ids is not None:
            # rare (a tool call on a known set of records): resolve the ids once per search
            rowids = self.store.rowids_for_ids(filters.ids)
            mask &= np.isin(self._rowids[:n], np.asarray(rowids, dtype=np.int64))
        return mask

    def search(
        self, query: np.ndarray, n: int, filters: Filters | None = None, now: float | None = None
    ) -> list[tuple[int, float]]:
        """(rowid, cosine) of the n best vectors passing the filters, best first."""
        self.sync()
        with self._lock:
            size = self.size
            if size == 0 or n <= 0:
                return []
            mask = self._mask(filters, now)
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
            rowids = self._rowids[top]
            return [(int(r), float(scores[i])) for r, i in zip(rowids, top, strict=True)]

    def vectors_for(self, rowids: list[int]) -> dict[int, np.ndarray]:
        """Stored vectors of these records (for diversity and neighbour stages)."""
        with self._lock:
            return {r: self._matrix[self._pos[r]].copy() for r in rowids if r in self._pos}
