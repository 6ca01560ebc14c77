"""Vectors without a model id (legacy vectors), and which model they are taken to be.

Stores written before models were recorded, and imports that keep unlabelled vectors, hold
vectors with model id ``''``. The first search that finds them records its own model as the
legacy model in the store's metadata (namespace ``memory-vector``, key ``legacy-model``), and
from then on those vectors are that model's: they are labelled with it, so its index loads them
and no other model ever compares against them. Later legacy vectors follow the same marker, even
after the current model changes.

If the metadata cannot be read or written, the legacy vectors are taken as the current model
for this search only (scored next to the index, nothing is written) and the next search tries
again; that is warned about once. Clearing vectors clears the marker too, after any marker
write in flight has finished (both hold the same lock).
"""

from __future__ import annotations

import logging
import sqlite3
import threading

import numpy as np

from remem.errors import RememError
from remem.index.exact import blas_one_thread
from remem.store.base import Store, VectorRows

log = logging.getLogger("remem.index")

NAMESPACE = "memory-vector"
KEY = "legacy-model"


class LegacyVectors:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.lock = threading.Lock()
        self._warned = False
        self._none_at: object = None  # the change token when the store last had none

    def marker(self) -> str | None:
        return self.store.meta_get(NAMESPACE, KEY)

    def before_search(self, model_id: str, dim: int) -> tuple[VectorRows | None, str | None]:
        """Settle legacy vectors before a search with ``model_id``. Returns (vectors to score
        as this model for this search only, warning): both None unless the metadata failed."""
        token = self.store.change_token()  # read first: a write after it changes it
        if token == self._none_at:
            return None, None  # nothing was written since the store had none
        if not self.store.has_legacy_vectors():
            self._none_at = token
            return None, None
        with self.lock:
            try:
                marker = self.store.meta_get(NAMESPACE, KEY)
                if marker is None:
                    marker = model_id
                    self.store.meta_set(NAMESPACE, KEY, marker)
                if marker != model_id or dim in self.store.legacy_vector_dims():
                    provider, _, model = marker.partition(":")
                    moved = self.store.adopt_legacy_vectors(
                        marker, provider, model, dim if marker == model_id else None
                    )
                    if moved:
                        log.info("%d legacy vectors are now %s's", moved, marker)
                return None, None
            except (RememError, sqlite3.Error) as exc:
                warning = None
                if not self._warned:
                    self._warned = True
                    warning = (
                        f"cannot record which model made the vectors without a model id "
                        f"({exc}); using them as {model_id} for now, will retry"
                    )
                    log.warning(warning)
                try:
                    return self.store.load_vectors("", dim), warning
                except (RememError, sqlite3.Error):
                    return None, warning


def with_legacy(
    hits: list[tuple[int, float]], legacy: VectorRows, query_vector: np.ndarray, pool: int
) -> list[tuple[int, float]]:
    """The index's ``hits`` and the legacy vectors' best ``pool``, best first: for one search
    only (the metadata failed), legacy vectors count as the model's. The fetch stage
    re-applies the filters to whatever they bring."""
    with blas_one_thread():
        scores = legacy.matrix @ np.asarray(query_vector, np.float32)
    best = np.argsort(-scores)[:pool]
    seen = {r for r, _ in hits}
    more = [(int(legacy.rowids[i]), float(scores[i])) for i in best]
    return sorted([*hits, *(h for h in more if h[0] not in seen)], key=lambda h: -h[1])[:pool]
