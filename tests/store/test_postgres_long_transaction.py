"""A transaction left open anywhere on the server (a DBA's psql, a stuck worker, another
application, in this database or another) must not hold back what a PostgreSQL store's
readers call current (issue 47): version 11 took as current revision one below the oldest
transaction running on the whole server, so every delta after such a transaction began
delivered everything written since, again and again, and the revision never advanced."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from conformance import fields

from pg_server import fresh_schema, insert_as_version_11, pg_url, schema_at_version

psycopg = pytest.importorskip("psycopg")
from psycopg import sql  # noqa: E402
from psycopg.conninfo import conninfo_to_dict, make_conninfo  # noqa: E402

from remem.store.postgres import PostgresStore  # noqa: E402
from remem.store.postgres.schema import LATEST_VERSION  # noqa: E402


@pytest.fixture
def other_database() -> Iterator[str]:
    """The URL of a second database on the test server, dropped afterwards."""
    name = f"t_other_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_url(), autocommit=True) as c:
        c.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    params = conninfo_to_dict(pg_url())
    params["dbname"] = name
    yield make_conninfo("", **params)
    with psycopg.connect(pg_url(), autocommit=True) as c:
        c.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


def _hold_transaction(url: str) -> psycopg.Connection:
    """A session that began a transaction, took a transaction id and went idle."""
    conn = psycopg.connect(url)  # not autocommit: the SELECT opens the transaction
    conn.execute("SELECT txid_current()")
    return conn


def _new_writes_come_once(store: PostgresStore) -> None:
    """With the foreign transaction open: a record written now comes in the next delta, the
    revision moves past it, and the delta after that is empty."""
    _, rev = store.filter_rows(0)
    _, _, delta_rev, _ = store.index_delta("m", 2, 0, 0)
    store.insert_records([(fields(7), "ferry timetable")])
    (rowid,) = store.rowids_for_ids(["r7"])
    rows, newer = store.filter_rows(rev)
    assert [r[0] for r in rows] == [rowid] and newer > rev
    _, meta, newer_delta, _ = store.index_delta("m", 2, 0, delta_rev)
    assert [r[0] for r in meta] == [rowid] and newer_delta > delta_rev
    # nothing written since: nothing again (v11 delivered the record on every call)
    assert store.filter_rows(newer) == ([], newer)
    assert store.index_delta("m", 2, 0, newer_delta)[1:3] == ([], newer_delta)


@pytest.mark.parametrize("where", ["this database", "another database"])
def test_a_transaction_left_open_elsewhere_holds_back_no_reader(where, request):
    url = request.getfixturevalue("other_database") if where != "this database" else pg_url()
    store = PostgresStore(pg_url(), schema=fresh_schema(), pool_size=2)
    held = _hold_transaction(url)
    try:
        store.insert_records([(fields(1), "harbour")])
        _new_writes_come_once(store)
    finally:
        held.close()
        store.close()


def test_an_ingested_message_is_found_while_a_transaction_is_left_open(tmp_path):
    from remem import Config, Memory

    config = Config.load(
        env={},
        overrides={
            "store.url": pg_url(),
            "store.pg_schema": fresh_schema(),
            "embed.provider": "none",
            "indexing.mode": "sync",
        },
    )
    held = _hold_transaction(pg_url())
    try:
        with Memory(None, config) as mem:
            store = mem.store
            assert isinstance(store, PostgresStore)
            mem.ingest({"id": "m0", "text": "warm up", "session": "s"})
            _, rev = store.filter_rows(0)
            mem.ingest({"id": "m1", "text": "took the ferry", "session": "s"})
            assert mem.search("ferry", k=5).hits[0].record.id == "m1"
            rows, newer = store.filter_rows(rev)
            assert store.rowids_for_ids(["m1"]) == [r[0] for r in rows] and newer > rev
            assert store.filter_rows(newer) == ([], newer)
    finally:
        held.close()


def _version_11_store(schema: str) -> None:
    """A schema at version 11 holding two records stamped as version 11's writers stamped
    them (their transaction's id past ``rev_base``)."""
    with psycopg.connect(pg_url(), autocommit=True) as c:
        with c.transaction():
            schema_at_version(c, schema, 11)
        insert_as_version_11(c, [fields(1), fields(2)])  # one transaction each, as two writes


def test_a_version_11_store_upgrades_with_its_revisions():
    schema = fresh_schema()
    _version_11_store(schema)
    with psycopg.connect(pg_url(), autocommit=True) as c:
        (stamped,) = c.execute(f"SELECT max(rev) FROM {schema}.records").fetchone()  # type: ignore[misc]
    store = PostgresStore(pg_url(), schema=schema, pool_size=1)
    held = _hold_transaction(pg_url())
    try:
        assert store.schema_version() == LATEST_VERSION
        rows, rev = store.filter_rows(0)
        assert sorted(r[0] for r in rows) == sorted(store.rowids_for_ids(["r1", "r2"]))
        assert rev >= stamped
        store.insert_records([(fields(3), "harbour")])
        later, newer = store.filter_rows(rev)
        assert [r[0] for r in later] == store.rowids_for_ids(["r3"]) and newer > rev
        assert store.filter_rows(newer) == ([], newer)
    finally:
        held.close()
        store.close()


def test_a_writer_of_this_store_still_holds_back_with_a_foreign_transaction_open():
    """Beside the foreign transaction, this store's own writer that started first and
    commits later is still in the next delta (it holds the revision back until it ends),
    and once it has, nothing comes twice."""
    from test_postgres_concurrent_writes import Held

    schema = fresh_schema()
    first = PostgresStore(pg_url(), schema=schema, pool_size=1)
    second = PostgresStore(pg_url(), schema=schema, pool_size=1)
    foreign = _hold_transaction(pg_url())
    try:
        held = Held(first, lambda: first.insert_records([(fields(1), "slow")]))
        try:
            second.insert_records([(fields(2), "quick")])
            rows, rev = second.filter_rows(0)
        finally:
            held.release()
        quick, slow = (second.rowids_for_ids([i])[0] for i in ("r2", "r1"))
        assert [r[0] for r in rows] == [quick]
        later, newer = second.filter_rows(rev)
        assert slow in [r[0] for r in later] and newer > rev
        assert second.filter_rows(newer) == ([], newer)
    finally:
        foreign.close()
        first.close()
        second.close()
