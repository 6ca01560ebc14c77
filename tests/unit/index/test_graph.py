"""The HNSW graph of a snapshot: a quantised copy of the vectors to walk by, hits scored
exactly from the snapshot's float32 matrix."""

from __future__ import annotations

import faiss
import numpy as np
import pytest

from remem.index.ann import CONNECTIVITY, Graph, build_graph


def _unit(n: int, dim: int, seed: int = 3) -> np.ndarray:
    m = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def test_the_graph_walks_on_one_byte_per_dimension(tmp_path):
    matrix = _unit(2000, 64)
    build_graph(tmp_path / "g.faiss", matrix, threads=1)
    index = faiss.read_index(str(tmp_path / "g.faiss"))
    assert isinstance(index, faiss.IndexHNSWSQ) and index.ntotal == 2000
    flat = faiss.IndexHNSWFlat(64, CONNECTIVITY, faiss.METRIC_INNER_PRODUCT)
    flat.add(matrix)
    faiss.write_index(flat, str(tmp_path / "flat.faiss"))
    saved = (tmp_path / "flat.faiss").stat().st_size - (tmp_path / "g.faiss").stat().st_size
    assert saved >= 2000 * 64 * 3 * 0.95  # three of every four bytes of each vector


def test_hits_carry_exact_cosines_best_first(tmp_path):
    matrix = _unit(3000, 32)
    rowids = np.arange(10, 3010, dtype=np.int64)
    build_graph(tmp_path / "g.faiss", matrix, threads=1)
    graph = Graph(tmp_path / "g.faiss", 32, rowids, matrix)
    hits = 0
    for q in _unit(20, 32, seed=4):
        found = graph.search(q, 10)
        assert found is not None
        keys, scores = found
        exact = matrix[keys - 10] @ q
        assert scores == pytest.approx(exact, abs=1e-6)  # not the quantised estimates
        assert list(scores) == sorted(scores, reverse=True)
        hits += len(set(keys.tolist()) & set((np.argsort(-(matrix @ q))[:10] + 10).tolist()))
    assert hits / 200 >= 0.95  # recall@10 against exact


def test_a_float32_graph_built_before_still_searches(tmp_path):
    matrix = _unit(500, 16)
    old = faiss.IndexHNSWFlat(16, CONNECTIVITY, faiss.METRIC_INNER_PRODUCT)
    old.add(matrix)
    faiss.write_index(old, str(tmp_path / "old.faiss"))
    graph = Graph(tmp_path / "old.faiss", 16, np.arange(500, dtype=np.int64), matrix)
    found = graph.search(matrix[42], 3)
    assert found is not None and found[0][0] == 42
    assert found[1][0] == pytest.approx(1.0, abs=1e-6)


def test_accept_filters_hits_and_widens_until_k_are_found(tmp_path):
    matrix = _unit(3000, 16)
    rowids = np.arange(3000, dtype=np.int64)
    build_graph(tmp_path / "g.faiss", matrix, threads=1)
    graph = Graph(tmp_path / "g.faiss", 16, rowids, matrix)
    found = graph.search(matrix[0], 10, lambda keys: keys % 3 == 0, accepted_share=1 / 3)
    assert found is not None
    keys, _ = found
    assert len(keys) == 10 and all(k % 3 == 0 for k in keys)
