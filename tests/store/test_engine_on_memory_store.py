"""The engine works on any Store: the whole write and read path over InMemoryStore."""

import pytest

from helpers import HashEmbedder
from remem import Config, Memory, Turn
from remem.errors import ValidationError
from remem.store import InMemoryStore


@pytest.fixture
def mem():
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(config=config, store=InMemoryStore(), embedder=HashEmbedder()) as m:
        yield m


def test_ingest_search_recall_and_capture_without_a_file(mem):
    assert mem.path is None
    mem.ingest(
        {
            "id": "m1",
            "text": "I moved to Berlin last week",
            "session": "s1",
            "speaker": "Alice",
            "role": "user",
            "timestamp": 1_700_000_000,
        }
    )
    mem.ingest(
        {
            "id": "m2",
            "text": "where do I live now?",
            "session": "s1",
            "speaker": "Alice",
            "role": "user",
            "timestamp": 1_700_000_100,
        }
    )
    hits = mem.search("Berlin", k=3)
    assert [h.record.id for h in hits][:1] == ["m1"]
    assert hits[0].explain.lexical_rank == 1 and hits[0].explain.vector_rank is not None
    recall = mem.recall_for_turn(Turn(session="s1", inputs=["m2"]))
    assert "Berlin" in recall.block
    captured = mem.capture_after_turn(
        Turn(
            agent="bot",
            session="s1",
            user_id="alice",
            inputs=[{"role": "user", "text": "I prefer green tea over coffee."}],
        )
    )
    assert [r.text for r in captured.stored] == ["I prefer green tea over coffee."]
    assert mem.stats()["records"] == 3


def test_a_path_and_a_store_together_are_refused():
    with pytest.raises(ValidationError, match="not both"):
        Memory("x.db", store=InMemoryStore(), embedder=HashEmbedder())
