"""Which vector index a store gets: the snapshot index beside a database file, the in-memory
exact index for a store without a file, and the store itself where it answers vector
searches (``NearestStore``, a server backend).

Both answer the same calls (``SearchIndex``). The snapshot index is itself exact until a
model has ``remem.index.vector.ANN_MIN`` vectors (a scan is faster than a graph below that
and needs no build); from there it searches an HNSW graph. A store without a file (the
in-memory store, a server backend) keeps the exact index: its vectors are read once per
process and there is nowhere to keep a snapshot.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from remem.index.exact import ExactIndex
from remem.index.filtered import FilteredVectorIndex
from remem.index.store_side import StoreSideIndex
from remem.store.base import NearestStore, Store
from remem.types import Filters


class SearchIndex(Protocol):
    """One model's vector search, kept in step with the store."""

    model_id: str

    @property
    def size(self) -> int: ...
    def sync(self) -> None: ...
    def search(
        self, query: np.ndarray, n: int, filters: Filters | None = None, now: float | None = None
    ) -> list[tuple[int, float]]: ...
    def vectors_for(self, rowids: list[int]) -> dict[int, np.ndarray]: ...
    def all_finite(self) -> bool: ...


def open_index(store: Store, model_id: str, dim: int, *, auto_build: bool = True) -> SearchIndex:
    """``auto_build``: the snapshot index rebuilds its files in a background thread when they
    fall behind (else only an explicit build does: ``remem index``)."""
    if isinstance(store, NearestStore):  # a server backend searches its own index
        return StoreSideIndex(store, model_id, dim)
    if store.index_root is None:
        return ExactIndex(store, model_id, dim)
    return FilteredVectorIndex(store, model_id, dim, auto_build=auto_build)
