"""The engine works on any Store: the whole write and read path over the in-memory store and
over PostgreSQL (whose vector search the server answers: ``nearest``)."""

import dataclasses
import typing

import pytest

from helpers import HashEmbedder
from remem import Config, Memory, Turn
from remem.engine import EmbedderStats, MemoryStats
from remem.errors import ValidationError
from remem.index.exact import ExactIndex
from remem.index.store_side import StoreSideIndex
from remem.store import InMemoryStore
from remem.types import Record


def _memory_store():
    return InMemoryStore()


def _postgres_store():
    pytest.importorskip("psycopg")
    from pg_server import fresh_schema, pg_url
    from remem.store.postgres import PostgresStore

    return PostgresStore(pg_url(), schema=fresh_schema(), pool_size=2)


# backend -> (a new store, the vector index search uses on it)
BACKENDS = {"memory": (_memory_store, ExactIndex), "postgres": (_postgres_store, StoreSideIndex)}


@pytest.fixture(params=sorted(BACKENDS))
def backend(request):
    make_store, index_type = BACKENDS[request.param]
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(config=config, store=make_store(), embedder=HashEmbedder()) as m:
        yield m, index_type


def _message(rid: str, text: str, at: int) -> dict:
    return {
        "id": rid,
        "text": text,
        "session": "s1",
        "speaker": "Alice",
        "role": "user",
        "timestamp": at,
    }


def test_ingest_search_recall_capture_and_delete_without_a_file(backend):
    mem, index_type = backend
    assert mem.path is None
    mem.ingest(_message("m1", "I moved to Berlin last week", 1_700_000_000))
    mem.ingest(_message("m2", "where do I live now?", 1_700_000_100))
    hits = mem.search("Berlin", k=3)
    assert [h.record.id for h in hits][:1] == ["m1"]
    assert hits[0].explain.lexical_rank == 1 and hits[0].explain.vector_rank is not None
    assert isinstance(mem.searcher.index_for(mem.get_embedder()), index_type)
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
    stats = mem.stats()
    assert stats["records"] == 3
    # Memory.stats() is typed: the keys it returns are the ones MemoryStats declares
    assert MemoryStats.__required_keys__ <= set(stats) <= set(typing.get_type_hints(MemoryStats))
    assert list(stats)[:2] == ["records", "by_kind"] and list(stats)[-1] == "embedder"
    assert set(stats["embedder"]) == set(typing.get_type_hints(EmbedderStats))
    mem.delete(["m1"])
    assert "m1" not in [h.record.id for h in mem.search("Berlin", k=3)]


def test_a_path_and_a_store_together_are_refused():
    with pytest.raises(ValidationError, match="not both"):
        Memory("x.db", store=InMemoryStore(), embedder=HashEmbedder())


@pytest.mark.parametrize("kind", ["sqlite", "memory", "postgres"])
def test_a_write_returns_the_record_as_stored(kind, tmp_path):
    """The write path builds the records it returns from what it wrote instead of reading
    each back (a statement, on PostgreSQL a round trip, per write): they must be what the
    store returns, field for field, whatever the message carries."""
    config = Config.load(env={}, overrides={"indexing.mode": "sync", "embed.provider": "none"})
    store = None if kind == "sqlite" else BACKENDS[kind][0]()
    with Memory(tmp_path / "m.db" if kind == "sqlite" else None, config, store=store) as mem:
        written = [
            mem.ingest(_message("m1", "I moved to Berlin last week", 1_700_000_000)),
            mem.ingest(
                {
                    "id": "m2",
                    "text": "<card>photo</card>",
                    "visible_text": "a photo of the harbour",
                    "session": "s1",
                    "speaker": "Bob",
                    "speaker_id": "u2",
                    "role": "user",
                    "created_at": 1_700_000_100,
                    "importance": 1,
                    "mentions": ["Alice"],
                    "metadata": {"b": 2, "a": [1, "x"], "nested": {"k": None}},
                    "platform": "telegram",
                    "group_id": "g1",
                    "group_name": "Friends",
                    "session_type": "group",
                    "origin_platform": "telegram",
                }
            ),
            mem.ingest({"text": "no id given", "session": "s2", "role": "assistant"}),
            mem.ingest({"text": "a notice", "session": "s2", "role": "notice"}),  # not indexed
            *mem.ingest_many(
                [
                    {"id": "m5", "text": "first of two", "session": "s3", "timestamp": 5},
                    {"id": "m6", "text": "second of two", "session": "s3", "timestamp": 6},
                ]
            ),
            mem.add("Alice likes tea", scope="user:alice", category="preference"),
        ]
        for record in written:
            as_record = {f.name: getattr(record, f.name) for f in dataclasses.fields(Record)}
            assert Record(**as_record) == mem.get(record.id)
        # the same record sent again is answered with the stored one, also as stored
        assert mem.ingest(_message("m1", "I moved to Berlin last week", 1_700_000_000)) == (
            mem.get("m1")
        )
