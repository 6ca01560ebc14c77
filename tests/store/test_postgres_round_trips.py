"""How many times a PostgreSQL write waits for the server (issue 47, item 1).

On a busy machine every round trip is a wake-up of the client and of its server process, so
many writers are limited by round trips more than by the statements' work. libpq's protocol
trace shows each wait: the client's messages (F), then the server's answers (B).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from conformance import fields

from pg_server import fresh_schema, pg_url
from remem.store.queries import LexicalQuery

psycopg = pytest.importorskip("psycopg")
from remem.store.postgres import PostgresStore  # noqa: E402


def _round_trips(store: PostgresStore, trace: Path, write) -> int:  # type: ignore[no-untyped-def]
    """How often the client waited for the server (its messages followed by the server's)
    while ``write`` ran on the store's one pooled connection (``pool_size=1``)."""
    with trace.open("w") as out:
        with store._pool.connection() as conn:
            conn.pgconn.trace(out.fileno())
        try:
            write()
        finally:
            with store._pool.connection() as conn:
                conn.pgconn.untrace()
    sides = [line.split("\t")[1] for line in trace.read_text().splitlines() if "\t" in line]
    return sum(1 for sent, got in itertools.pairwise(sides) if (sent, got) == ("F", "B"))


def test_one_message_is_three_round_trips(tmp_path):
    """BEGIN with the revision, the record (its rowid is needed), the rest with the
    COMMIT: nine round trips before pipeline mode."""
    store = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=1)
    try:
        store.insert_records([(fields(0, session="s"), "warm up", "")])
        trips = _round_trips(
            store,
            tmp_path / "trace",
            lambda: store.insert_records([(fields(1, session="s"), "took the ferry", "warm up")]),
        )
        assert trips == 3
        assert store.lexical_search(LexicalQuery(["ferry"], None), 5) != []  # and it was written
    finally:
        store.close()


def test_a_row_count_in_pipeline_mode_is_the_real_one(tmp_path):
    """psycopg says -1 for a pipelined statement's row count until the pipeline syncs."""
    store = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=1)
    try:
        store.insert_records([(fields(n), f"word{n}", "") for n in range(3)])
        with store.write() as c:
            assert c.execute("DELETE FROM records WHERE id <> 'r0'").rowcount == 2
        assert store.count() == 1
    finally:
        store.close()


def test_one_acknowledged_ingest_is_five_round_trips(tmp_path):
    """All of ``Memory.ingest`` of one message with its own id, as the writers benchmark
    sends it (no model, indexing in the call): the context turns before it, the write
    (three, above) and the facts citing it (one statement). Ten before: an id check, a
    read-back of the record just written, a second read after indexing (which changed
    nothing without a model), and the facts citing it in a read transaction of two
    statements (its BEGIN and COMMIT waited too)."""
    from remem import Config, Memory

    config = Config.load(
        env={},
        overrides={
            "store.url": pg_url(),
            "store.pg_schema": fresh_schema(),
            "store.pool_size": 1,
            "embed.provider": "none",
            "indexing.mode": "sync",
        },
    )
    with Memory(None, config) as mem:
        store = mem.store
        assert isinstance(store, PostgresStore)
        mem.ingest({"id": "m0", "text": "warm up", "session": "s"})
        trips = _round_trips(
            store,
            tmp_path / "trace",
            lambda: mem.ingest({"id": "m1", "text": "took the ferry", "session": "s"}),
        )
        assert trips == 5
        assert mem.search("ferry", k=5).hits[0].record.id == "m1"  # and it was written
