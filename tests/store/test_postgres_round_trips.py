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


def _messages(store: PostgresStore, trace: Path, write) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """(side, message type) of the protocol messages while ``write`` ran on the store's one
    pooled connection (``pool_size=1``): the client's are F, the server's B."""
    with trace.open("w") as out:
        with store._pool.connection() as conn:
            conn.pgconn.trace(out.fileno())
        try:
            write()
        finally:
            with store._pool.connection() as conn:
                conn.pgconn.untrace()
    lines = [line.split("\t") for line in trace.read_text().splitlines() if "\t" in line]
    return [(fields[1], fields[3].split()[0]) for fields in lines if len(fields) > 3]


def _round_trips(store: PostgresStore, trace: Path, write) -> int:  # type: ignore[no-untyped-def]
    """How often the client waited for the server (its messages followed by the server's)."""
    sides = [side for side, _ in _messages(store, trace, write)]
    return sum(1 for sent, got in itertools.pairwise(sides) if (sent, got) == ("F", "B"))


def test_one_message_is_one_statement(tmp_path):
    """The one statement that writes a message is a transaction of its own (autocommit):
    no BEGIN or COMMIT goes out beside it (three statements before, in one pipeline)."""
    store = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=1)
    try:
        store.insert_records([(fields(0, session="s"), "warm up", "")])
        sent = _messages(
            store,
            tmp_path / "trace",
            lambda: store.insert_records([(fields(1, session="s"), "took the ferry", "warm up")]),
        )
        executed = [
            kind for side, kind in sent if (side, kind) in (("F", "Execute"), ("F", "Query"))
        ]
        assert executed == ["Execute"]
        assert store.get("r1") is not None and store.integrity_problems() == []
    finally:
        store.close()


def test_one_message_is_one_round_trip(tmp_path):
    """One statement (the revision, the record, its facts mark, its lexical row and the
    term statistics), committed on its own: nine round trips before pipeline mode, three
    before the one statement (BEGIN with the revision, the record for its rowid, the rest
    with the COMMIT)."""
    store = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=1)
    try:
        store.insert_records([(fields(0, session="s"), "warm up", "")])
        trips = _round_trips(
            store,
            tmp_path / "trace",
            lambda: store.insert_records([(fields(1, session="s"), "took the ferry", "warm up")]),
        )
        assert trips == 1
        assert store.lexical_search(LexicalQuery(["ferry"], None), 5) != []  # and it was written
        # the statistics BM25 reads count it as the general write (two records at once) does
        general = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=1)
        try:
            general.insert_records(
                [
                    (fields(0, session="s"), "warm up", ""),
                    (fields(1, session="s"), "took the ferry", "warm up"),
                ]
            )
            for words, context in ((["ferry", "warm", "up"], 0.0), (["warm", "took"], 1.0)):
                query = LexicalQuery(words, None, context_weight=context)
                assert store.phrase_counts(query) == general.phrase_counts(query)
                assert store.lexical_search(query, 5) == general.lexical_search(query, 5)
            assert store.term_stats(["warm", "took"]) == general.term_stats(["warm", "took"])
        finally:
            general.close()
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


def test_one_acknowledged_ingest_is_one_round_trip(tmp_path):
    """All of ``Memory.ingest`` of one message with its own id, as the writers benchmark
    sends it (no model, indexing in the call): the write (one, above), its context the turn
    the writer wrote before it, checked in the same statement (ingest/last_turns.py; a read
    of that turn before it until 2026-12-07). Its facts are read after the acknowledgement.
    Five before: the write was
    three, and the facts citing it were read before the acknowledgement; ten before that: an
    id check, a read-back of the record just written, a second read after indexing (which
    changed nothing without a model), and the facts citing it in a read transaction of two
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
            # the facts are read later, on the same pooled connection: not while counting
            "facts.quiet_ms": 3_600_000,
            "facts.max_wait_s": 3_600,
        },
    )
    with Memory(None, config) as mem:
        store = mem.store
        assert isinstance(store, PostgresStore)
        mem.ingest({"id": "m0", "text": "warm up", "session": "s"})
        assert mem.wait_indexed(60)
        trips = _round_trips(
            store,
            tmp_path / "trace",
            lambda: mem.ingest({"id": "m1", "text": "took the ferry", "session": "s"}),
        )
        assert trips == 1
        assert mem.search("ferry", k=5).hits[0].record.id == "m1"  # and it was written


def test_a_taken_id_in_the_one_statement_write_changes_no_record(tmp_path):
    """Refused (or skipped) after the COMMIT: only the revision counter moved."""
    from remem.errors import ValidationError

    store = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=1)
    try:
        store.insert_records([(fields(1), "ferry", "")], awaiting_facts=True)
        with pytest.raises(ValidationError, match="exists"):
            store.insert_records([(fields(1, text="other"), "other words", "")])
        assert store.insert_records([(fields(1), "ferry", "")], on_conflict="skip") == [None]
        assert store.get("r1").text == "text 1" and store.count() == 1  # type: ignore[union-attr]
        assert store.phrase_counts(LexicalQuery(["ferry", "other"], None)) == (1, {"ferry": 1})
        assert store.count_awaiting_facts() == 1
        assert store.integrity_problems() == []
    finally:
        store.close()
