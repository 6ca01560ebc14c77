"""Bulk passages side by side (`remem import --fast`): the fast model's handles share one
copy of the weights, each runs on one BLAS thread, and together they give the vectors one
handle gives (issue 47)."""

from __future__ import annotations

import numpy as np

from remem.embed.fast_model import fast_workers
from remem.embed.local import USEEmbedder
from remem.embed.parallel import SideBySide, balanced_parts

TEXTS = [
    "We booked the mountain hut for Saturday night, up above the glacier.",
    "short",
    "My daughter started violin lessons this autumn with a teacher from the conservatory. " * 6,
    "明天下午三点在会议室开会，讨论新产品的发布计划。",
    "The dentist appointment moved to Thursday morning.",
    "ok",
    "Our team won the basketball final yesterday after two overtimes. " * 3,
]


def test_parts_keep_the_order_and_split_the_characters_about_evenly():
    parts = balanced_parts(TEXTS, 2)
    assert [t for part in parts for t in part] == TEXTS
    assert len(parts) == 2 and all(parts)
    sizes = [sum(map(len, part)) for part in parts]
    longest = max(map(len, TEXTS))
    assert abs(sizes[0] - sizes[1]) <= longest  # within one text of even
    assert balanced_parts(["one"], 4) == [["one"]]
    assert balanced_parts([], 2) == []


def test_handles_share_the_weights_and_run_on_one_blas_thread():
    first, second = fast_workers(2)
    assert isinstance(first, USEEmbedder) and isinstance(second, USEEmbedder)
    a, b = first._model(), second._model()
    assert a is not b and np.shares_memory(a.table, b.table)  # one copy of the weights
    assert a.threads == b.threads == 1
    assert first._turns.background is not second._turns.background  # a thread each


def test_side_by_side_gives_the_vectors_of_one_handle():
    together = SideBySide(fast_workers(2))
    try:
        got = together.embed_passages(TEXTS)
    finally:
        together.close()
    alone = USEEmbedder(threads=2).embed_passages(TEXTS)
    assert got.shape == (len(TEXTS), 512)
    cosines = np.sum(got * alone, axis=1)
    assert np.all(cosines > 0.9999)
