"""A search's fast-lane hits: records still waiting for the main model, found by the vectors
the fast lane gave them (``remem.ingest.fast_lane``), scored on the main model's scale.

Only records without a main-model vector are asked (a record the main model has embedded is
ranked by that vector alone), so once the backlog is gone this adds nothing and costs one
membership check of the few fast vectors against the main index, repeated only when either
index changed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import numpy as np

from remem.config import Config
from remem.embed.base import Embedder
from remem.embed.fast_model import (
    FAST_DIM,
    FAST_MODEL_ID,
    fast_embedder,
    lane_applies,
    to_main_scale,
)
from remem.index.filtered import FilteredVectorIndex
from remem.store.base import Store
from remem.types import Filters

log = logging.getLogger("remem.search")

NEVER_A_GRAPH = 2**62
EmbedQuery = Callable[[Embedder, str], np.ndarray]
Anchors = Callable[[Embedder], np.ndarray]  # a model's vectors of the NEUTRAL sentences


@dataclass(eq=False)
class FastHits:
    """Per searcher: the fast model's index and which of its rows still wait."""

    store: Store
    config: Config
    embed_query: EmbedQuery
    anchors: Anchors
    _index: FilteredVectorIndex | None = field(default=None, init=False)
    _waiting: tuple[Hashable, np.ndarray] | None = field(default=None, init=False)
    # why the fast model could not be used (said once)
    _off: str | None = field(default=None, init=False)

    def disable(self, why: str) -> None:
        """The fast model failed: search without the lane from now on (logged once)."""
        if self._off is None:
            self._off = why
            log.warning("searching without the fast lane: %s", why)

    def search(
        self,
        query: str,
        pool: int,
        filters: Filters | None,
        now: float,
        main_index: object,
        main_model_id: str,
        main_base: Callable[[], float | None],
    ) -> list[tuple[int, float]]:
        """(rowid, score on the main model's scale) of the best waiting records, best first;
        nothing when this store has no lane or nothing waits. ``main_base``: the query's
        neutral baseline under the main model."""
        if (
            self._off is not None
            or not isinstance(main_index, FilteredVectorIndex)
            or not lane_applies(self.config, main_model_id, self.store.index_root is not None)
        ):
            return []
        waiting = self.waiting(main_index)
        if not len(waiting):
            return []
        base = main_base()
        if base is None:
            return []
        embedder = fast_embedder(self.config.embed.threads)
        vector = self.embed_query(embedder, query)
        fast_base = float(np.max(self.anchors(embedder) @ vector))
        assert self._index is not None
        found = self._index.search(vector, pool, filters, now, only=waiting)
        return [(r, to_main_scale(main_model_id, cos, fast_base, base)) for r, cos in found]

    def waiting(self, main_index: FilteredVectorIndex) -> np.ndarray:
        """Sorted rowids that have a fast vector and no main-model vector."""
        if self._index is None:
            # Only the waiting rows are ever searched, a few thousand at most: scanned exactly,
            # so the fast model's snapshot never needs (nor builds) a graph.
            self._index = FilteredVectorIndex(
                self.store,
                FAST_MODEL_ID,
                FAST_DIM,
                ann_min=NEVER_A_GRAPH,
                auto_build=self.config.search.index_build == "background",
            )
        fast = self._index
        fast.vectors.sync()  # main_index was synced by its own search just now
        if fast.vectors.size == 0:
            return np.zeros(0, np.int64)
        key = (fast.vectors.state_key(), main_index.vectors.state_key())
        if self._waiting is None or self._waiting[0] != key:
            rows = fast.vectors.live_rowids()
            self._waiting = (key, rows[~main_index.vectors.contains(rows)])
        return self._waiting[1]
