"""benchmarks/scripts/sparse_features.py: the sparse cosine it adds to dumped rows, with the bundled
model's sparse head."""

from __future__ import annotations

import json
import sys

import pytest
from bench_helpers import load_bench_script

sf = load_bench_script("sparse_features")


def test_cosine_of_sparse_vectors_is_symmetric_and_counts_shared_terms_only():
    a, b = {1: 0.6, 2: 0.8}, {2: 1.0}
    assert sf.cosine(a, b) == sf.cosine(b, a) == pytest.approx(0.8)
    assert sf.cosine(a, {3: 1.0}) == 0.0


def test_main_scores_the_best_hits_of_each_row_with_the_bundled_sparse_head(tmp_path, monkeypatch):
    text = {
        ("zh_groupchat", "a"): "老赵的无人机是大疆 Mini 4 Pro",
        ("zh_groupchat", "b"): "今天的天气很好，我们去公园散步了。",
    }
    monkeypatch.setattr(
        sf, "texts_and_queries", lambda datasets, shared: (text, {"q": "老赵用的是什么无人机？"})
    )
    row = {"dataset": "zh_groupchat", "qid": "q", "hits": [{"id": "a"}, {"id": "b"}]}
    src, out = tmp_path / "xs.jsonl", tmp_path / "out.jsonl"
    src.write_text(json.dumps(row, ensure_ascii=False) + "\n")
    monkeypatch.setattr(sys, "argv", ["sparse_features.py", str(src), str(out), "--top", "1"])
    sf.main()
    got = json.loads(out.read_text())["hits"]
    assert 0.0 < got[0]["scos"] <= 1.0
    assert "scos" not in got[1]  # beyond --top


def test_the_sparse_head_ranks_the_answer_above_an_unrelated_line():
    vectors = sf.SparseVectors()
    q = vectors("老赵用的是什么无人机？")
    assert sf.cosine(q, vectors("老赵的无人机是大疆 Mini 4 Pro")) > sf.cosine(
        q, vectors("今天的天气很好，我们去公园散步了。")
    )
