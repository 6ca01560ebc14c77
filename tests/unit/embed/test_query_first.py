"""A search's query never waits for the indexer's passages on a shared local model (issue 47,
item 2): queries run on their own engine; passages run in slices on a background thread, at a
lower priority, each after the searches running."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from remem.embed import query_first
from remem.embed.priority import MAX_NICE, lower_this_thread, thread_nice
from remem.embed.query_first import SLICE_CHARS, SLICE_TEXTS, QueryFirst, Searches, slices


def wait_until(check, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def test_slices_keep_order_and_bound_count_and_characters():
    texts = [f"t{i}" for i in range(40)]
    parts = slices(texts)
    assert [t for p in parts for t in p] == texts
    assert all(len(p) <= SLICE_TEXTS for p in parts)
    long = ["x" * 1500, "y" * 1500, "z", "w" * (SLICE_CHARS + 10)]
    assert [list(p) for p in slices(long)] == [[long[0]], [long[1], "z"], [long[3]]]
    assert [len(p) for p in slices(texts, most_texts=32)] == [32, 8]
    assert slices([]) == []


def test_a_query_runs_while_a_slice_is_in_flight():
    turns = QueryFirst(searches=Searches())
    entered, release = threading.Event(), threading.Event()

    def passage(part):
        entered.set()
        release.wait(60)  # a slice as long as the test likes
        return np.ones((len(part), 2), np.float32)

    texts = [f"passage {i}" for i in range(SLICE_TEXTS * 3)]
    result: list[np.ndarray] = []
    worker = threading.Thread(target=lambda: result.append(turns.passages(passage, texts, 2)))
    worker.start()
    try:
        assert entered.wait(30)
        vector = turns.query(lambda part: np.zeros((len(part), 2), np.float32), ["query"])
        assert vector.shape == (1, 2)
        assert turns.background.running  # the slice had not finished: the query did not wait
    finally:
        release.set()
        worker.join(30)
    assert result[0].shape == (len(texts), 2)  # every passage still embedded, in order


def test_a_slice_starts_after_the_searches_running():
    searches = Searches()
    turns = QueryFirst(searches=searches)
    calls: list[str] = []

    def passage(part):
        calls.append("p")
        return np.ones((len(part), 2), np.float32)

    with searches.running():
        worker = threading.Thread(target=lambda: turns.passages(passage, ["a", "b"], 2))
        worker.start()
        assert wait_until(lambda: searches.yielded == 1)  # the slice is waiting
        assert calls == []  # ... and has not run
    worker.join(30)
    assert calls == ["p"]


def test_a_steady_stream_of_searches_does_not_stop_indexing(monkeypatch):
    monkeypatch.setattr(query_first, "YIELD_MAX_S", 0.05)
    searches = Searches()
    turns = QueryFirst(searches=searches)
    with searches.running():  # never ends while the passages run
        out = turns.passages(lambda part: np.ones((len(part), 2), np.float32), ["a"], 2)
    assert out.shape == (1, 2) and searches.yielded == 1


def test_an_error_in_a_slice_reaches_the_caller():
    turns = QueryFirst(searches=Searches())

    def broken(part):
        raise RuntimeError("engine failed")

    with pytest.raises(RuntimeError, match="engine failed"):
        turns.passages(broken, ["a"], 2)
    assert turns.passages(lambda p: np.ones((len(p), 2)), ["b"], 2).shape == (1, 2)


def test_passages_of_nothing_are_an_empty_matrix():
    assert QueryFirst().passages(lambda part: np.ones((len(part), 3)), [], 3).shape == (0, 3)


@pytest.mark.skipif(thread_nice() is None, reason="threads have no nice value of their own")
def test_slices_run_at_the_lowered_priority_and_only_they():
    base = thread_nice()
    assert base is not None

    class Model:  # what lower_background looks for: a model's QueryFirst
        _turns = QueryFirst(searches=Searches())

    model = Model()
    seen: list[int | None] = []
    query_first.lower_background(model, 3)
    query_first.lower_background(model, 2)  # the largest asked wins (never raised back)
    model._turns.passages(lambda part: seen.append(thread_nice()) or np.ones((1, 1)), ["a"], 1)
    model._turns.query(lambda part: seen.append(thread_nice()), ["q"])
    assert seen == [min(MAX_NICE, base + 3), base]  # the query ran at the caller's priority
    assert thread_nice() == base
    other: list[int | None] = []  # another model's slices keep their priority
    QueryFirst().passages(lambda part: other.append(thread_nice()) or np.ones((1, 1)), ["b"], 1)
    assert other == [base]
    query_first.lower_background(object(), 5)  # a model without slices: nothing to lower


@pytest.mark.skipif(thread_nice() is None, reason="threads have no nice value of their own")
def test_a_thread_lowers_only_itself():
    base = thread_nice()
    seen: list[int | None] = []

    def body() -> None:
        assert lower_this_thread(3)
        seen.append(thread_nice())

    t = threading.Thread(target=body)
    t.start()
    t.join()
    assert base is not None and seen == [min(MAX_NICE, base + 3)]
    assert thread_nice() == base
    assert lower_this_thread(0) is False
