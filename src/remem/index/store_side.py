"""Vector search answered by the store itself (``remem.store.base.NearestStore``).

A server backend keeps its own ANN index next to the vectors, so nothing is loaded into this
process: every search is one query, and every process sees every other one's writes at once.
``StoreSideIndex`` answers the calls search makes of ``ExactIndex`` (``sync``, ``search``,
``size``, ``vectors_for``).
"""

from __future__ import annotations

import time

import numpy as np

from remem.store.base import NearestStore, Store
from remem.store.queries import NearestQuery
from remem.types import Filters

# ``size`` is a count over the server's table; searches ask it every time, so it is kept
# this long (it only decides warnings about records without vectors).
SIZE_TTL_S = 10.0


class StoreSideIndex:
    def __init__(self, store: Store, model_id: str, dim: int) -> None:
        if not isinstance(store, NearestStore):
            raise TypeError(f"{type(store).__name__} does not answer vector searches itself")
        self.store = store
        self._nearest: NearestStore = store
        self.model_id = model_id
        self.dim = dim
        self._size: tuple[float, int] | None = None

    def sync(self) -> None:
        """Nothing to catch up: the store is the index. Refreshes ``size``."""
        self._size = None

    @property
    def size(self) -> int:
        now = time.monotonic()
        if self._size is None or now - self._size[0] > SIZE_TTL_S:
            self._size = (now, self.store.vector_count(self.model_id))
        return self._size[1]

    def search(
        self, query: np.ndarray, n: int, filters: Filters | None = None, now: float | None = None
    ) -> list[tuple[int, float]]:
        """(rowid, cosine) of the n best vectors passing the filters, best first."""
        return self._nearest.nearest(NearestQuery(self.model_id, self.dim, query, n, filters, now))

    def vectors_for(self, rowids: list[int]) -> dict[int, np.ndarray]:
        """Stored vectors of these records (for diversity and neighbour stages)."""
        out: dict[int, np.ndarray] = {}
        for rowid, stored in self.store.vectors_of(rowids).items():
            for model_id, _provider, _model, data in stored:
                if model_id == self.model_id:
                    vec = np.frombuffer(data, np.float32)
                    if vec.shape[0] == self.dim:
                        out[rowid] = vec.copy()
        return out

    def all_finite(self) -> bool:
        """Always true: pgvector refuses NaN and infinite values when a vector is written, so a
        server-side index cannot hold one (``remem doctor``)."""
        return True
