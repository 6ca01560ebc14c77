"""How the PostgreSQL group commit schedules writes (``group_commit.py``), without a server:
a lone write runs at once and alone; writes that arrive while the leaders run wait and go
out together, in arrival order, each with its own result; a failed group runs each write
again alone so an error reaches only its own caller."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest

pytest.importorskip("psycopg")  # the package's connection module needs it
from remem.store.postgres.group_commit import MAX_GROUP, GroupCommit


def _wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.002)


class Recorder:
    """``alone`` and ``together`` that note their calls; the first ``alone`` call can be
    held until released, so that writes queue behind it."""

    def __init__(self, hold_first: bool = False, fail_alone: set[str] | None = None) -> None:
        self.alone_calls: list[str] = []
        self.groups: list[list[str]] = []
        self.release = threading.Event()
        self._hold = hold_first
        self._fail_alone = fail_alone or set()
        self.together_error: BaseException | None = None

    def alone(self, item: str) -> str:
        self.alone_calls.append(item)
        if self._hold:
            self._hold = False
            self.release.wait(10)
        if item in self._fail_alone:
            raise ValueError(f"bad {item}")
        return f"alone:{item}"

    def together(self, items: Sequence[str]) -> list[str]:
        self.groups.append(list(items))
        if self.together_error is not None:
            raise self.together_error
        return [f"together:{item}" for item in items]


def _group(leaders: int = 1, retryable: Callable[[BaseException], bool] | None = None):
    return GroupCommit(
        leaders=leaders,
        retryable=retryable or (lambda exc: isinstance(exc, ValueError)),
        keys=lambda item: [item.split("/")[0]],  # "key/name": writes of one key never share
    )


def _start(gc: GroupCommit, rec: Recorder, item: str, out: dict[str, Any]) -> threading.Thread:
    def run() -> None:
        try:
            out[item] = gc.run(item, rec.alone, rec.together)
        except Exception as exc:
            out[item] = exc

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _queue(gc: GroupCommit, rec: Recorder, items: list[str], out: dict[str, Any]) -> list:
    """Start a held leader, then each item once the one before it waits (arrival order)."""
    threads = [_start(gc, rec, "lead/0", out)]
    _wait_for(lambda: rec.alone_calls == ["lead/0"])
    for n, item in enumerate(items, start=1):
        threads.append(_start(gc, rec, item, out))
        _wait_for(lambda n=n: len(gc._waiting) == n)
    return threads


def test_a_lone_write_runs_alone_at_once():
    gc, rec = _group(), Recorder()
    assert gc.run("a/1", rec.alone, rec.together) == "alone:a/1"
    assert rec.alone_calls == ["a/1"] and rec.groups == []
    assert gc._running == 0  # the leader's place is given back


def test_writes_that_arrive_while_the_leaders_run_share_one_group_in_arrival_order():
    gc, rec, out = _group(), Recorder(hold_first=True), {}
    items = ["a/1", "b/2", "c/3", "d/4"]
    threads = _queue(gc, rec, items, out)
    rec.release.set()
    for t in threads:
        t.join(10)
    assert rec.groups == [items]
    assert out == {"lead/0": "alone:lead/0", **{i: f"together:{i}" for i in items}}
    assert (gc.groups, gc.grouped, gc._running) == (1, 4, 0)


def test_two_writes_sharing_a_key_never_go_in_one_group():
    gc, rec, out = _group(), Recorder(hold_first=True), {}
    threads = _queue(gc, rec, ["s1/a", "s2/b", "s1/c", "s3/d"], out)
    rec.release.set()
    for t in threads:
        t.join(10)
    # the second write of s1 waits for the next group (alone: nothing else is left)
    assert rec.groups == [["s1/a", "s2/b", "s3/d"]]
    assert rec.alone_calls == ["lead/0", "s1/c"]
    assert out["s1/c"] == "alone:s1/c"


def test_a_failed_group_runs_each_write_again_alone_and_only_its_caller_sees_its_error():
    gc, out = _group(), {}
    rec = Recorder(hold_first=True, fail_alone={"b/bad"})
    rec.together_error = ValueError("a statement of the group failed")
    threads = _queue(gc, rec, ["a/1", "b/bad", "c/3"], out)
    rec.release.set()
    for t in threads:
        t.join(10)
    assert rec.groups == [["a/1", "b/bad", "c/3"]]
    assert out["a/1"] == "alone:a/1" and out["c/3"] == "alone:c/3"
    assert isinstance(out["b/bad"], ValueError) and str(out["b/bad"]) == "bad b/bad"
    assert gc.groups == 0  # no group was committed


def test_an_error_of_the_connection_fails_every_write_of_the_group():
    gc, out = _group(retryable=lambda exc: False), {}
    rec = Recorder(hold_first=True)
    rec.together_error = ConnectionError("the server went away")
    threads = _queue(gc, rec, ["a/1", "b/2"], out)
    rec.release.set()
    for t in threads:
        t.join(10)
    assert all(out[i] is rec.together_error for i in ("a/1", "b/2"))
    assert rec.alone_calls == ["lead/0"]  # not tried again alone


def test_a_group_carries_at_most_max_group_writes():
    gc, rec, out = _group(), Recorder(hold_first=True), {}
    items = [f"k{n}/x" for n in range(MAX_GROUP + 3)]
    threads = _queue(gc, rec, items, out)
    rec.release.set()
    for t in threads:
        t.join(30)
    assert [len(g) for g in rec.groups] == [MAX_GROUP, 3]
    assert sum(g == [] for g in rec.groups) == 0 and len(out) == MAX_GROUP + 4


def test_as_many_writes_as_leaders_run_at_once_without_waiting():
    gc = _group(leaders=2)
    rec = Recorder(hold_first=True)
    out: dict[str, Any] = {}
    first = _start(gc, rec, "a/1", out)
    _wait_for(lambda: rec.alone_calls == ["a/1"])
    # the second leader's place is free: this write runs now, beside the held one
    assert gc.run("b/2", rec.alone, rec.together) == "alone:b/2"
    assert not gc._waiting
    rec.release.set()
    first.join(10)
    assert out["a/1"] == "alone:a/1" and gc._running == 0


def test_leaders_must_be_at_least_one():
    with pytest.raises(ValueError, match="at least 1"):
        GroupCommit(leaders=0, retryable=lambda exc: True, keys=lambda item: [])
