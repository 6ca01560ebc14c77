"""The approximate nearest-neighbour graph (HNSW, via faiss) over a snapshot's vectors.

faiss-cpu was chosen by measurement (remem-bench's ``ann_libs.py``, remem-bench's ann-libs-*.json): on
real USE vectors it reaches the same recall@10 as usearch and hnswlib at equal graph settings
with about half usearch's CPU per query; it ships wheels (hnswlib needs a compiler); and it
coexists with onnxruntime, where importing usearch before onnxruntime crashes the process
(the optional local reranker runs on onnxruntime).

Graph labels are positions in the snapshot (its rowids are sorted), mapped back to record
rowids here. Which rowids are stale (deleted, or replaced by a newer vector) is the caller's
business: it passes ``accept``, and the search widens until it has k accepted hits.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path

# OpenMP threads spin while they wait: with another job on a 2-core machine, a 2 ms graph
# search took 15 ms (p50 over 150 real queries at 100k). Passive waiting costs nothing
# measurable when idle. Read once, when faiss's OpenMP runtime starts: set before importing it.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import faiss
import numpy as np

# Graph settings: 16 links per node, 128 candidates while building and while searching. On real
# 512-d USE vectors with real questions as queries (remem-bench's ann_libs.py) 64 search candidates
# reach recall@10 0.975 at 20k and 0.967 at 100k; 128 reach 0.994-0.997 at 20k and 0.99 at
# 100k. It is also the floor of the widening loop below.
CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 128
# A bigger graph needs more candidates for the same recall: at 1M (remem-bench's
# ann-1m-graph.json) 128 reach recall@10 0.944 and 256 reach 0.983. Past EXPANSION_AT the
# search widens with the square root of the size (405 at 1M).
EXPANSION_AT = 100_000


def search_expansion(size: int) -> int:
    """Candidates the graph keeps while searching a graph of ``size`` vectors."""
    if size <= EXPANSION_AT:
        return EXPANSION_SEARCH
    return round(EXPANSION_SEARCH * math.sqrt(size / EXPANSION_AT))


# Ask the graph for this many times k before filtering: one round is enough unless the
# accepted share is small.
OVERSAMPLE = 2
# Stop widening once the graph would be asked for this share of everything: an exact scan over
# the accepted vectors is then cheaper and never misses.
WIDEST_SHARE = 0.25
_MMAP = getattr(faiss, "IO_FLAG_MMAP_IFC", faiss.IO_FLAG_MMAP)


# The graph keeps its own copy of the vectors to walk by: one byte per dimension (8-bit scalar
# quantisation, per-dimension ranges learnt from up to TRAIN_ROWS rows), not four. The snapshot's
# float32 matrix already holds them exactly, and the hits are scored again from it, so the
# quantisation only steers the walk: on 10k real 512-d USE vectors, recall@10 0.9975 against
# 0.9965 for a float32 copy, with 20% less CPU to build and search; at 1M the float32 copy
# made the index hold every vector twice (4.1 GB peak for a 1.95 GB matrix).
TRAIN_ROWS = 200_000


def build_graph(path: Path, matrix: np.ndarray, *, threads: int = 0) -> None:
    """Build the graph over ``matrix`` (unit float32 rows; label i is row i) and save it."""
    qtype = faiss.ScalarQuantizer.QT_8bit
    # the stub types the quantiser kind as the class, faiss takes the enum's int
    index = faiss.IndexHNSWSQ(matrix.shape[1], qtype, CONNECTIVITY, faiss.METRIC_INNER_PRODUCT)  # type: ignore[arg-type]
    index.hnsw.efConstruction = EXPANSION_ADD
    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(threads or min(2, before))
    try:
        step = max(1, len(matrix) // TRAIN_ROWS)
        index.train(np.ascontiguousarray(matrix[::step], np.float32))
        # One call: faiss then sizes its copy of the vectors once. Adding in blocks grew it
        # block by block (vector reallocation) and peaked at 3.2x the matrix at 100k.
        index.add(np.ascontiguousarray(matrix, np.float32))
    finally:
        faiss.omp_set_num_threads(before)
    faiss.write_index(index, str(path))


class Graph:
    """A saved graph, its vectors memory-mapped (read-only). Hits are scored exactly from
    ``matrix`` (the snapshot's float32 rows, label i being row i): the graph's own copy of the
    vectors may be quantised (``build_graph``) or float32 (graphs built before)."""

    def __init__(self, path: Path, dim: int, rowids: np.ndarray, matrix: np.ndarray) -> None:
        # MMAP_IFC maps the vectors and links without copying them (faiss 1.11+): opening a
        # 100k graph took 0.26 s and 60 MB, against 9.4 s and 400 MB read in with MMAP alone
        # (a cold page cache on a busy machine).
        index = faiss.read_index(str(path), _MMAP | faiss.IO_FLAG_READ_ONLY)
        if index.d != dim or index.ntotal != len(rowids):
            raise ValueError(
                f"{path.name} holds {index.ntotal} x {index.d}, expected {len(rowids)} x {dim}"
            )
        self._index = index
        self._rowids = rowids
        self._matrix = matrix
        self.size = len(rowids)
        self.expansion = search_expansion(self.size)

    def search(
        self,
        query: np.ndarray,
        k: int,
        accept: Callable[[np.ndarray], np.ndarray] | None = None,
        accepted_share: float = 1.0,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """(rowids, cosines) of the k best accepted vectors, best first, or None when the
        accepted share is so small that the caller should scan its accepted vectors exactly.
        ``accept(rowids) -> bool mask``."""
        k = min(k, self.size)
        if k <= 0:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        count = math.ceil(k * OVERSAMPLE / max(accepted_share, 1e-9))
        query = np.ascontiguousarray(query, np.float32).reshape(1, -1)
        while True:
            if count > self.size * WIDEST_SHARE and count > k * OVERSAMPLE:
                return None
            count = min(count, self.size)
            params = faiss.SearchParametersHNSW()  # type: ignore[attr-defined]  # untyped stub
            params.efSearch = max(self.expansion, count)
            _, labels = self._index.search(query, count, params=params)
            found = np.sort(labels[0][labels[0] >= 0])  # in file order: mapped pages in turn
            scores = self._matrix[found] @ query[0]
            order = np.lexsort((found, -scores))  # best first; ties by position (= rowid)
            keys = np.asarray(self._rowids[found[order]], np.int64)
            scores = scores[order]
            if accept is not None:
                ok = accept(keys)
                keys, scores = keys[ok], scores[ok]
            if len(keys) >= k or count >= self.size:
                return keys[:k], scores[:k]
            count *= 4
