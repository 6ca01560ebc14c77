"""The engine works on PostgreSQL: the whole write and read path, with the vector search
answered by the server (``nearest``) instead of an in-memory index."""

import pytest

from helpers import HashEmbedder
from pg_server import fresh_schema, pg_url
from remem import Config, Memory, Turn
from remem.index.store_side import StoreSideIndex


@pytest.fixture
def mem():
    from remem.store.postgres import PostgresStore

    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    store = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=2)
    with Memory(config=config, store=store, embedder=HashEmbedder()) as m:
        yield m


def test_ingest_search_recall_and_capture_on_postgres(mem):
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
    assert isinstance(mem.searcher.index_for(mem.get_embedder()), StoreSideIndex)
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
    mem.delete(["m1"])
    assert "m1" not in [h.record.id for h in mem.search("Berlin", k=3)]
