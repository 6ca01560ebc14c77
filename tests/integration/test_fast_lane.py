"""The fast lane with the real bundled models: records that wait for e5 get a USE vector at
once, stay pending, are found by meaning through it, and drop out of the lane once e5 has
embedded them; off by configuration, nothing of it happens."""

from __future__ import annotations

import threading
import time

import pytest

from remem import Config, Memory
from remem.embed.fast_model import FAST_MODEL_ID
from remem.errors import EmbeddingError
from remem.search import fast_hits

E5_ID = "local:multilingual-e5-small"

TOPICS = [
    "We booked the mountain hut for Saturday night",
    "My daughter started violin lessons this autumn",
    "The dentist appointment moved to Thursday morning",
    "Our team won the basketball final yesterday",
]


class GatedE5:
    """The real e5 model, whose passage embedding waits until ``release`` is set: the main
    model falling behind, on demand. Queries are never held up."""

    provider, model, model_id, dim, default_chunk_chars = (
        "local",
        "multilingual-e5-small",
        E5_ID,
        384,
        0,
    )

    def __init__(self, e5) -> None:
        self._e5 = e5
        self.release = threading.Event()

    def embed_passages(self, texts):
        self.release.wait(timeout=120)
        return self._e5.embed_passages(texts)

    def embed_queries(self, texts):
        return self._e5.embed_queries(texts)


def messages(n: int) -> list[dict]:
    return [
        {"id": f"m{i}", "session": "s", "speaker": "Ann", "text": f"{TOPICS[i % 4]} ({i})"}
        for i in range(n)
    ]


def vector_count(mem: Memory, model_id: str) -> int:
    return dict((m, n) for m, _d, n in mem.store.vector_stats()).get(model_id, 0)


@pytest.fixture
def gated(e5):
    main = GatedE5(e5)
    yield main
    main.release.set()


# The lane's ranking, without the relevance floor: a waiting record's USE cosine read on e5's
# scale is pulled toward the mean by the fitted line, so this weak paraphrase scores relevance
# 0.247 through the lane (just under the default floor, 0.25) and 0.64 once e5 has embedded it.
NO_FLOOR = {"search.relevance_floor": 0.0}


def test_waiting_records_are_found_by_meaning_then_leave_the_lane(tmp_path, gated):
    with Memory(tmp_path / "m.db", Config.load(env={}, overrides=NO_FLOOR), embedder=gated) as mem:
        mem.ingest_many(messages(40))  # more than one batch: the rest waits for e5
        lane = mem.indexer.fast_lane
        assert lane is not None and lane.wait_idle(timeout=120)
        assert vector_count(mem, FAST_MODEL_ID) == 40 and vector_count(mem, E5_ID) == 0
        assert mem.stats()["index_status"] == {"pending": 40}  # still waiting for e5
        # no word in common with the booking lines: found by meaning, through USE
        result = mem.search("Where are we sleeping in the Alps this weekend?", k=4)
        assert "mountain hut" in result.hits[0].record.text
        assert any(n.startswith("fast lane: ") for n in result.notes)
        assert result.hits[0].explain.vector_score is not None  # a vector hit, not lexical
        assert not result.warnings  # USE vectors are not "another model" to warn about
        gated.release.set()
        assert mem.wait_indexed(timeout=300)
        assert mem.stats()["index_status"] == {"indexed": 40}
        after = mem.search("Where are we sleeping in the Alps this weekend?", k=4)
        assert "mountain hut" in after.hits[0].record.text
        assert not any(n.startswith("fast lane") for n in after.notes)  # e5 vectors only now
        mem.config.search.relevance_floor = Config().search.relevance_floor
        with_floor = mem.search("Where are we sleeping in the Alps this weekend?", k=4)
        assert "mountain hut" in with_floor.hits[0].record.text  # clears the default floor
    with Memory(tmp_path / "m.db", Config.load(env={}), embedder=gated) as mem:
        # the stand-ins of records e5 has embedded are dropped (by the close at the latest)
        assert vector_count(mem, FAST_MODEL_ID) == 0 and vector_count(mem, E5_ID) == 40


def test_no_lane_when_switched_off(tmp_path, gated):
    config = Config.load(env={}, overrides={"indexing.fast_lane": False})
    with Memory(tmp_path / "m.db", config, embedder=gated) as mem:
        mem.ingest_many(messages(40))
        assert mem.indexer.fast_lane is None
        result = mem.search("Where are we sleeping in the Alps this weekend?", k=4)
        assert result.hits == []  # no word in common, and no vector yet
        gated.release.set()
        assert mem.wait_indexed(timeout=300)
        assert vector_count(mem, FAST_MODEL_ID) == 0 and vector_count(mem, E5_ID) == 40


def test_a_main_model_that_keeps_up_leaves_the_lane_idle(tmp_path, e5):
    with Memory(tmp_path / "m.db", Config.load(env={}), embedder=e5) as mem:
        for message in messages(3):  # one at a time: each goes into the next e5 batch
            mem.ingest(message)
        assert mem.wait_indexed(timeout=120)
        lane = mem.indexer.fast_lane
        assert lane is not None and lane.wait_idle(timeout=60)
        assert vector_count(mem, FAST_MODEL_ID) == 0 and vector_count(mem, E5_ID) == 3


def test_closing_while_the_lane_works_does_not_wait_for_it(tmp_path, gated):
    mem = Memory(tmp_path / "m.db", Config.load(env={}), embedder=gated)
    mem.ingest_many(messages(200))
    lane = mem.indexer.fast_lane
    assert lane is not None
    gated.release.set()
    started = time.monotonic()
    mem.close()  # the main queue drains; its batches do not wait for a closed lane
    assert time.monotonic() - started < 60
    assert lane.wait_idle(timeout=0)  # closed: nothing to wait for


def test_a_fast_model_that_cannot_load_leaves_searches_working(tmp_path, gated, monkeypatch):
    with Memory(tmp_path / "m.db", Config.load(env={}), embedder=gated) as mem:
        mem.ingest_many(messages(40))
        assert mem.indexer.fast_lane.wait_idle(timeout=120)

        def broken(threads):
            raise EmbeddingError("weights failed their checksum")

        monkeypatch.setattr(fast_hits, "fast_embedder", broken)
        result = mem.search("mountain hut", k=4)  # keyword hits still come back
        assert "mountain hut" in result.hits[0].record.text
        assert not any(n.startswith("fast lane") for n in result.notes)
        gated.release.set()
