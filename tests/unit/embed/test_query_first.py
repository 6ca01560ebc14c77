"""A search's query goes before the indexer's passages on a shared local model: passages run in
slices, and a query waits for at most the slice in flight."""

from __future__ import annotations

import threading
import time

import numpy as np

from remem.embed.query_first import SLICE_CHARS, SLICE_TEXTS, QueryFirst, slices


def test_slices_keep_order_and_bound_count_and_characters():
    texts = [f"t{i}" for i in range(40)]
    parts = slices(texts)
    assert [t for p in parts for t in p] == texts
    assert all(len(p) <= SLICE_TEXTS for p in parts)
    long = ["x" * 1500, "y" * 1500, "z", "w" * (SLICE_CHARS + 10)]
    assert [list(p) for p in slices(long)] == [[long[0]], [long[1], "z"], [long[3]]]
    assert [len(p) for p in slices(texts, most_texts=32)] == [32, 8]
    assert slices([]) == []


def test_a_query_waits_for_one_slice_not_the_whole_batch():
    turns = QueryFirst()
    calls: list[str] = []
    started = threading.Event()

    def run(part):
        calls.append("q" if part == ["query"] else f"p{len(part)}")
        started.set()
        time.sleep(0.05)  # each call holds the model 50 ms
        return np.ones((len(part), 2), np.float32)

    texts = [f"passage {i}" for i in range(SLICE_TEXTS * 6)]  # 6 slices: 300 ms
    result: list[np.ndarray] = []
    worker = threading.Thread(target=lambda: result.append(turns.passages(run, texts, 2)))
    worker.start()
    started.wait(5)
    vector = turns.query(run, ["query"])
    worker.join(5)
    assert vector.shape == (1, 2)
    # right after the slice that was running, not after 5 more (the order, not a wall time:
    # a loaded machine delays threads, never reorders them here)
    assert calls.index("q") <= 2
    assert result[0].shape == (len(texts), 2)  # every passage still embedded, in order


def test_passages_of_nothing_are_an_empty_matrix():
    assert QueryFirst().passages(lambda part: np.ones((len(part), 3)), [], 3).shape == (0, 3)
