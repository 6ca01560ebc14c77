"""The approximate nearest-neighbour graph (HNSW, via usearch) over a snapshot's vectors.

usearch was chosen by measurement (``bench/ann_libs.py``, bench/results/ann-libs-*.json): it
ships wheels, memory-maps a saved index (``view``: opening costs milliseconds and the pages are
shared between processes), takes the record rowids as keys, and builds and searches as fast as
faiss and hnswlib on real USE vectors.

Keys are record rowids. Which keys are stale (deleted, or replaced by a newer vector) is the
caller's business: it passes ``accept``, and the search widens until it has k accepted hits.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
from usearch.index import Index

# Graph settings: 16 links per node, 128 candidates while building and while searching. On real
# 512-d USE vectors with real questions as queries (bench/ann_libs.py) 64 search candidates
# reach recall@10 0.977 at 20k and 0.968 at 100k; 128 reach 0.997 at 20k. It is also the floor
# of the widening loop below.
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 128
# Ask the graph for this many times k before filtering: one round is enough unless the
# accepted share is small.
OVERSAMPLE = 2
# Stop widening once the graph would be asked for this share of everything: an exact scan over
# the accepted vectors is then cheaper and never misses.
WIDEST_SHARE = 0.25


def build_graph(path: Path, keys: np.ndarray, matrix: np.ndarray, *, threads: int = 0) -> None:
    """Build the graph over ``matrix`` (unit float32 rows, possibly memory-mapped: the index
    reads it in place instead of copying it) and save it to ``path``."""
    index = Index(ndim=matrix.shape[1], metric="ip", dtype="f32", connectivity=CONNECTIVITY,
                  expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)  # fmt: skip
    if len(keys):
        index.add(keys.astype(np.uint64), matrix, copy=False, threads=threads or _threads())
    index.save(str(path))


def _threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


class Graph:
    """A saved graph opened as a memory-mapped view (read-only)."""

    def __init__(self, path: Path, dim: int, count: int) -> None:
        index = Index.restore(str(path), view=True)
        if index is None or index.ndim != dim or len(index) != count:
            found = "nothing" if index is None else f"{len(index)} x {index.ndim}"
            raise ValueError(f"{path.name} holds {found}, expected {count} x {dim}")
        index.expansion_search = EXPANSION_SEARCH
        self._index = index
        self.size = count

    def search(
        self, query: np.ndarray, k: int, accept: Callable[[np.ndarray], np.ndarray] | None = None,
        accepted_share: float = 1.0,
    ) -> tuple[np.ndarray, np.ndarray] | None:  # fmt: skip
        """(keys, cosines) of the k best accepted vectors, best first, or None when the accepted
        share is so small that the caller should scan its accepted vectors exactly."""
        k = min(k, self.size)
        if k <= 0:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        count = math.ceil(k * OVERSAMPLE / max(accepted_share, 1e-9))
        while True:
            if count > self.size * WIDEST_SHARE and count > k * OVERSAMPLE:
                return None
            count = min(count, self.size)
            self._index.expansion_search = max(EXPANSION_SEARCH, count)
            found = self._index.search(query, count, threads=1)
            keys = np.asarray(found.keys, np.int64)
            scores = 1.0 - np.asarray(found.distances, np.float32)  # ip distance = 1 - dot
            if accept is not None:
                ok = accept(keys)
                keys, scores = keys[ok], scores[ok]
            if len(keys) >= k or count >= self.size:
                return keys[:k], scores[:k]
            count *= 4
