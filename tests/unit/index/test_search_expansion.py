"""How many candidates the HNSW graph keeps while searching, by graph size."""

from __future__ import annotations

import numpy as np

from remem.index.ann import EXPANSION_SEARCH, Graph, build_graph, search_expansion


def test_the_expansion_is_fixed_up_to_100k_then_grows_with_the_square_root():
    assert search_expansion(10) == search_expansion(100_000) == EXPANSION_SEARCH == 128
    assert search_expansion(400_000) == 256
    assert search_expansion(1_000_000) == 405
    sizes = [100_000, 200_000, 500_000, 1_000_000, 4_000_000]
    assert [search_expansion(n) for n in sizes] == sorted(search_expansion(n) for n in sizes)


def test_a_graph_searches_with_its_sizes_expansion(tmp_path):
    rng = np.random.default_rng(1)
    matrix = rng.normal(size=(300, 16)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    build_graph(tmp_path / "g.faiss", matrix, threads=1)
    graph = Graph(tmp_path / "g.faiss", 16, np.arange(1, 301, dtype=np.int64), matrix)
    assert graph.expansion == EXPANSION_SEARCH
    found = graph.search(matrix[7], 5)
    assert found is not None and found[0][0] == 8  # row 7 is rowid 8: itself first
