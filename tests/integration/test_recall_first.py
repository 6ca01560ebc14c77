"""Recall first, indexing second (issue 47, item 2), with the real bundled model: while a burst
is being embedded, a search runs on the model's query engine and never waits for the
background slice in flight, which runs at the configured lower priority."""

from __future__ import annotations

import threading
from typing import Any

from remem import Config, Memory
from remem.embed.local import E5Embedder
from remem.embed.priority import MAX_NICE, thread_nice


class HeldEngine:
    """The real e5 engine whose passage calls (the background's) wait until ``release``:
    a slice in flight for as long as the test likes. Everything else is the engine's."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine
        self.entered = threading.Event()
        self.release = threading.Event()
        self.nice: list[int | None] = []

    def passage(self, texts):
        self.nice.append(thread_nice())
        self.entered.set()
        self.release.wait(120)
        return self._engine.passage(texts)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)


def test_a_search_during_a_burst_does_not_wait_for_the_background_slice(tmp_path):
    e5 = E5Embedder()
    held = HeldEngine(e5._engine)
    e5._engine = held  # the background's engine (the one passages run on)
    config = Config.load(env={}, overrides={"indexing.background_nice": 5})
    base_nice = thread_nice()
    with Memory(tmp_path / "burst.db", config, embedder=e5) as mem:
        mem.ingest_many(
            [
                {"session": "s", "speaker": "Ann", "text": f"My daughter plays the violin ({i})"}
                for i in range(40)
            ]
        )
        try:
            assert held.entered.wait(120), "the burst never reached the model"
            hits: list[Any] = []
            search = threading.Thread(target=lambda: hits.append(mem.search("violin", k=3)))
            search.start()
            search.join(120)  # an upper bound for a loaded machine, not a latency check
            assert not search.is_alive(), "the search waited for the background slice"
            assert e5._turns.background.running and not held.release.is_set()
            assert len(hits[0]) == 3  # found by keywords while the vectors wait
        finally:
            held.release.set()
        assert mem.wait_indexed(300)
        assert mem.search("who plays a string instrument", k=1)  # by meaning, once indexed
    if base_nice is not None:
        assert set(held.nice) == {min(MAX_NICE, base_nice + 5)}
