"""Filtered vector search at any size: the filter columns of ``remem.index.columns`` over a
``VectorIndex`` (memory-mapped snapshot + HNSW graph + in-memory delta).

It answers the calls ``ExactIndex`` answers (``sync``, ``search(query, n, filters, now)``,
``size``, ``vectors_for``), so a searcher switches by constructing this instead. The filters
become a sorted array of allowed rowids; the vector index returns the best n among them.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from pathlib import Path

import numpy as np

from remem.index.columns import FilterColumns
from remem.index.columns_file import (
    RESAVE_ROWS,
    RESAVE_SHARE,
    SAVE_MIN,
    columns_path,
    load_columns,
    save_columns,
)
from remem.index.vector import VectorIndex
from remem.store.base import Store
from remem.types import Filters


class FilteredVectorIndex:
    def __init__(
        self,
        store: Store,
        model_id: str,
        dim: int,
        *,
        root: Path | None = None,
        **vector_options,
    ) -> None:
        """The snapshot files go under ``root`` (default: beside the store's file);
        ``vector_options`` go to ``VectorIndex`` (thresholds, ``background``)."""
        if root is None:
            root = store.index_root
            if root is None:
                raise ValueError(
                    "the vector index lives beside a database file; this store has none: "
                    "give root= or use ExactIndex"
                )
        self.store = store
        self.model_id = model_id
        self.dim = dim
        self.vectors = VectorIndex(store, root, model_id, dim, **vector_options)
        self._columns = FilterColumns()
        self._rev = 0
        self._token: Hashable | None = None
        self._lock = threading.Lock()
        self._saved_as: Path | None = None  # the columns file last read or written
        self._unsaved = 0  # rows applied since then

    @property
    def size(self) -> int:
        return self.vectors.size

    def sync(self) -> None:
        self.vectors.sync()
        token = self.store.change_token()
        if token == self._token:
            return
        with self._lock:
            if not self._rev:
                self._load_saved_columns()
            rows, rev = self.store.filter_rows(self._rev)
            if rev < self._rev:  # saved columns ahead of this store: not its columns
                self._columns, self._saved_as = FilterColumns(), None
                rows, rev = self.store.filter_rows(0)
            columns = self._columns
            columns.apply(rows, add_unknown=True)
            if not columns.is_sorted():  # the first load comes in rev order
                columns.sort_by_rowid()
            self._rev = rev
            self._token = token
            self._unsaved += len(rows)
            self._save_columns_if_due()

    def _saved_columns_path(self) -> Path | None:
        info = self.vectors.snapshot_info
        return None if info is None else columns_path(self.vectors.folder, info.generation)

    def _load_saved_columns(self) -> None:
        """Start from the columns saved with the current snapshot (see ``columns_file``)."""
        path = self._saved_columns_path()
        loaded = load_columns(path) if path is not None else None
        if loaded is None:
            return
        self._columns, self._rev = loaded
        self._unsaved = 0
        self._saved_as = path

    def _save_columns_if_due(self) -> None:
        path = self._saved_columns_path()
        size = self._columns.size
        if path is None or size < SAVE_MIN:
            return
        if path == self._saved_as and self._unsaved < max(RESAVE_ROWS, RESAVE_SHARE * size):
            return
        save_columns(path, self._columns, self._rev)
        self._saved_as, self._unsaved = path, 0

    def search(
        self,
        query: np.ndarray,
        n: int,
        filters: Filters | None = None,
        now: float | None = None,
        *,
        only: np.ndarray | None = None,
    ) -> list[tuple[int, float]]:
        """(rowid, cosine) of the n best vectors passing the filters, best first; only among
        the rowids ``only`` (sorted) when it is given."""
        self.sync()
        with self._lock:
            mask = self._columns.mask(filters, now, self.store)
            if mask is not None and mask.all():
                mask = None  # the usual case: only superseded records filtered, and none are
            allowed = None if mask is None else self._columns.rowids[: self._columns.size][mask]
        if only is not None:
            only = np.asarray(only, np.int64)
            allowed = only if allowed is None else np.intersect1d(allowed, only)
        return self.vectors.search(query, n, allowed)

    def vectors_for(self, rowids: list[int]) -> dict[int, np.ndarray]:
        return self.vectors.vectors_for(rowids)

    def all_finite(self) -> bool:
        """Whether every vector the index holds is finite (``remem doctor``)."""
        return self.vectors.all_finite()
