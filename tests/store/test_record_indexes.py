"""The indexes every record write pays for (issue 47): each one is a page more in a SQLite
commit and an index insert more in a PostgreSQL statement, so a store carries only those its
reads use. Version 13 dropped ``records_status`` on both backends and, on PostgreSQL, made the
id's unique index and its prefix index one."""

from __future__ import annotations

import pytest
from conformance import fields

from remem.errors import ConflictError
from remem.store import migrations
from remem.store.sqlite import SQLiteStore

SQLITE_INDEXES = {
    "sqlite_autoindex_records_1",  # id UNIQUE
    "records_scope_kind",
    "records_session_time",
    "records_hash",
    "records_kind_time",
    "records_rev_filters",
}
POSTGRES_INDEXES = {
    "records_pkey",
    "records_id",  # unique, text_pattern_ops: equality, ON CONFLICT (id) and LIKE prefixes
    "records_scope_kind",
    "records_session_time",
    "records_hash",
    "records_rev",
    "records_kind_time",
}


def _sqlite_indexes(store: SQLiteStore) -> set[str]:
    rows = store.query(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records'"
    )
    return {r[0] for r in rows}


def test_a_sqlite_record_write_pays_for_six_indexes(tmp_path):
    store = SQLiteStore(tmp_path / "s.db")
    try:
        assert _sqlite_indexes(store) == SQLITE_INDEXES
    finally:
        store.close()


def test_a_version_12_sqlite_file_drops_the_status_index(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    monkeypatch.setattr("remem.store.sqlite.connection.MIGRATIONS", migrations.MIGRATIONS[:12])
    monkeypatch.setattr("remem.store.sqlite.connection.LATEST_VERSION", 12)
    old = SQLiteStore(path)
    old.insert_records([(fields(n), "harbour") for n in (1, 2)])
    old.mark_index_status(old.rowids_for_ids(["r1"]), "failed", "model down")
    assert "records_status" in _sqlite_indexes(old)
    old.close()
    monkeypatch.undo()
    store = SQLiteStore(path)
    try:
        assert store.schema_version() == migrations.LATEST_VERSION == 13
        assert _sqlite_indexes(store) == SQLITE_INDEXES
        assert store.stats()["index_status"] == {"failed": 1, "pending": 1}
        with pytest.raises(ConflictError):
            store.insert_records([(fields(1), "harbour")])
        assert store.integrity_problems() == []
    finally:
        store.close()


psycopg = pytest.importorskip("psycopg")
from pg_server import fresh_schema, insert_as_version_11, pg_url, schema_at_version  # noqa: E402
from remem.store.postgres import PostgresStore  # noqa: E402


def _pg_indexes(schema: str) -> set[str]:
    with psycopg.connect(pg_url(), autocommit=True) as c:
        rows = c.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = %s AND tablename = 'records'",
            (schema,),
        ).fetchall()
    return {r[0] for r in rows}


def _uses_records_id(schema: str, where: str) -> bool:
    """Whether the planner reads ``records_id`` for ``where``, sequential scans ruled out (a
    few rows would be scanned otherwise: the question is whether the index *can* serve)."""
    with psycopg.connect(pg_url(), autocommit=True) as c:
        c.execute(f"SET search_path TO {schema}")
        c.execute("SET enable_seqscan = off")
        plan = c.execute(f"EXPLAIN SELECT rowid FROM records WHERE {where}").fetchall()
    return "records_id" in " ".join(r[0] for r in plan)


def _check_id_index(store: PostgresStore, schema: str) -> None:
    assert _pg_indexes(schema) == POSTGRES_INDEXES
    with pytest.raises(ConflictError):  # the taken-id check is the unique index's
        store.insert_records([(fields(1), "harbour")])
    assert store.insert_records([(fields(1), "harbour")], on_conflict="skip") == [None]
    assert store.ids_with_prefix("r") == ["r1", "r2"]
    assert _uses_records_id(schema, "id = 'r1'")
    assert _uses_records_id(schema, "id = ANY(ARRAY['r1', 'r2'])")
    assert _uses_records_id(schema, "id LIKE '1%'")


def test_a_postgres_record_write_pays_for_seven_indexes():
    schema = fresh_schema()
    store = PostgresStore(pg_url(), schema=schema, pool_size=1)
    try:
        store.insert_records([(fields(n), "harbour") for n in (1, 2)])
        _check_id_index(store, schema)
    finally:
        store.close()


def test_a_version_12_postgres_schema_gets_one_id_index():
    schema = fresh_schema()
    with psycopg.connect(pg_url(), autocommit=True) as c:
        with c.transaction():
            schema_at_version(c, schema, 12)
        insert_as_version_11(c, [fields(1), fields(2)])  # version 12 writes them alike
    old = _pg_indexes(schema)
    assert {"records_status", "records_id_key", "records_id_prefix"} <= old
    store = PostgresStore(pg_url(), schema=schema, pool_size=1)
    try:
        assert store.schema_version() == 13 and store.count() == 2
        _check_id_index(store, schema)
        assert store.stats()["index_status"] == {"pending": 2}
    finally:
        store.close()
