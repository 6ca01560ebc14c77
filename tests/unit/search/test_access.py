"""AccessRecorder: explicit recalls count once per window, across processes too."""

from __future__ import annotations

from remem import Config, Memory
from remem.search.access_counts import AccessRecorder
from remem.store.base import Store
from remem.store.memory import InMemoryStore
from remem.types import Record

T = 1_800_000_000.0


def stored(store: Store, rid: str) -> Record:
    config = Config.load(env={}, overrides={"embed.provider": "none"})
    rec = Memory(store=store, config=config).add(f"fact {rid}", id=rid, kind="memory", embed=False)
    assert store.get(rid) is not None
    return rec


def test_recalls_inside_the_window_count_once_and_the_window_survives_a_restart():
    store = InMemoryStore()
    a, b = stored(store, "a"), stored(store, "b")
    recorder = AccessRecorder(store, debounce_s=3600, window_s=600)
    assert recorder.touch([a, b], T) == 2
    assert recorder.touch([a], T + 60) == 0  # same window: one use
    assert recorder.touch([a], T + 700) == 1  # a new window
    recorder.flush()
    assert (store.get("a").access_count, store.get("a").last_access) == (2, T + 700)
    assert store.get("b").access_count == 1
    later = AccessRecorder(store, debounce_s=0, window_s=600)  # a new process
    assert later.touch([store.get("a")], T + 800) == 0  # the stored last_access holds
    assert later.touch([store.get("b")], T + 800) == 1
    assert store.get("b").access_count == 2  # debounce 0: written at once


def test_a_zero_window_counts_every_recall():
    store = InMemoryStore()
    a = stored(store, "a")
    recorder = AccessRecorder(store, debounce_s=0, window_s=0)
    for _ in range(3):
        recorder.touch([store.get("a")], T)
    assert store.get("a").access_count == 3 and a.access_count == 0
