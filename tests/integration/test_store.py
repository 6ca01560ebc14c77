"""The SQLite store on real files: pragmas, migrations, paths and refused files. What every
backend must do is in the conformance suite, tests/store."""

import os
import sqlite3

import pytest

from remem.errors import StoreError, StorePathError
from remem.store import migrations
from remem.store.paths import prepare_db_path
from remem.store.queries import LexicalQuery
from remem.store.sqlite import SQLiteStore


def _fields(i, **extra):
    base = {
        "id": f"r{i}",
        "kind": "message",
        "text": f"text {i}",
        "scope": "global",
        "created_at": 1000.0 + i,
        "content_hash": f"h{i}",
        "importance": 0.5,
    }
    base.update(extra)
    return base


def test_new_file_is_wal_durable_sync_latest_schema(db_path):
    store = SQLiteStore(db_path)
    c = sqlite3.connect(db_path)
    assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # NORMAL plus the group commit barrier (an fsync after every commit before the write
    # returns: tests/store/test_group_commit.py); FULL with store.group_commit = false
    assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 1
    assert store._sync is not None
    assert store._conn.execute("PRAGMA busy_timeout").fetchone()[0] == 10_000
    assert store.schema_version() == migrations.LATEST_VERSION
    tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"records", "records_fts", "vectors", "meta", "counters"} <= tables
    store.close()
    # reopening does not re-run migrations or lose data
    store = SQLiteStore(db_path)
    store.insert_records([(_fields(1), "text 1")])
    store.close()
    store = SQLiteStore(db_path)
    assert store.get("r1").text == "text 1"


def _file_then_next_migration(db_path, monkeypatch, script: str) -> int:
    """A store at the current schema holding one record, and a next migration queued."""
    store = SQLiteStore(db_path)
    store.insert_records([(_fields(1), "text 1")])
    store.close()
    latest = migrations.LATEST_VERSION
    monkeypatch.setattr(
        "remem.store.sqlite.connection.MIGRATIONS",
        [*migrations.MIGRATIONS, (latest + 1, "next", script)],
    )
    monkeypatch.setattr("remem.store.sqlite.connection.LATEST_VERSION", latest + 1)
    return latest


def test_a_failing_migration_changes_nothing(db_path, monkeypatch):
    latest = _file_then_next_migration(
        db_path, monkeypatch, "ALTER TABLE records ADD COLUMN extra TEXT; SELECT * FROM nope"
    )
    with pytest.raises(StoreError):
        SQLiteStore(db_path)
    c = sqlite3.connect(db_path)
    assert c.execute("PRAGMA user_version").fetchone()[0] == latest
    columns = [r[1] for r in c.execute("PRAGMA table_info(records)")]
    assert "extra" not in columns  # the half-applied ALTER was rolled back


def test_a_migration_adds_to_an_existing_file(db_path, monkeypatch):
    latest = _file_then_next_migration(
        db_path, monkeypatch, "ALTER TABLE records ADD COLUMN extra TEXT"
    )
    store = SQLiteStore(db_path)
    assert store.schema_version() == latest + 1
    assert store.get("r1").text == "text 1"


def test_a_version_1_file_is_migrated_with_its_data(db_path, monkeypatch):
    # build a file at schema 1 (as the first release wrote it), then open with the current code
    monkeypatch.setattr("remem.store.sqlite.connection.MIGRATIONS", migrations.MIGRATIONS[:1])
    monkeypatch.setattr("remem.store.sqlite.connection.LATEST_VERSION", 1)
    old = SQLiteStore(db_path)
    old._conn.execute("BEGIN")
    old._conn.execute(
        "INSERT INTO records (id, kind, text, created_at, content_hash, updated_at) "
        "VALUES ('old', 'message', 'kept across migrations', 1, 'h', 1)"
    )
    rowid = old._conn.execute("SELECT rowid FROM records WHERE id='old'").fetchone()[0]
    old._conn.execute("INSERT INTO records_fts (rowid, tokens) VALUES (?, 'kept across')", (rowid,))
    old._conn.execute("COMMIT")
    old.close()
    monkeypatch.undo()
    store = SQLiteStore(db_path)
    assert store.schema_version() == migrations.LATEST_VERSION
    assert store.get("old").text == "kept across migrations"
    assert [r for r, _ in store.lexical_search(LexicalQuery(["kept"], None), 5)] == [rowid]
    cols = [r[1] for r in store._conn.execute("PRAGMA table_info(records_fts)")]
    assert cols == ["tokens", "context"]
    vocab = dict(store._conn.execute("SELECT term, doc FROM records_vocab").fetchall())
    assert vocab["kept"] == 1  # the document-frequency view sees migrated rows too


def test_newer_schema_is_refused(db_path):
    SQLiteStore(db_path).close()
    c = sqlite3.connect(db_path)
    c.execute("PRAGMA user_version = 99")
    c.close()
    with pytest.raises(StoreError, match="newer than this remem"):
        SQLiteStore(db_path)


def test_not_a_database(tmp_path):
    f = tmp_path / "notes.db"
    f.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="cannot use"):
        SQLiteStore(f)


def test_path_checks(tmp_path):
    nested = tmp_path / "a" / "b" / "remem.db"
    assert prepare_db_path(nested) == nested
    assert nested.parent.is_dir()

    with pytest.raises(StorePathError, match="is a directory"):
        prepare_db_path(tmp_path)

    dangling = tmp_path / "dangling.db"
    dangling.symlink_to(tmp_path / "missing" / "x.db")
    with pytest.raises(StorePathError, match="does not exist"):
        prepare_db_path(dangling)

    loop = tmp_path / "loop.db"
    loop.symlink_to(loop)
    with pytest.raises(StorePathError, match="symlink loop"):
        prepare_db_path(loop)

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StorePathError, match="a file is in the way"):
        prepare_db_path(blocker / "remem.db")

    with pytest.raises(StorePathError, match="memory"):
        prepare_db_path(":memory:")

    good_link = tmp_path / "link.db"
    good_link.symlink_to(nested)
    nested.write_bytes(b"")
    assert prepare_db_path(good_link) == nested.resolve()


def test_unwritable_directory(tmp_path):
    if os.geteuid() == 0:
        # root ignores permission bits; a read-only file system still says no
        target = "/proc/remem-test/remem.db"
        with pytest.raises(StorePathError, match=r"cannot create directory|not writable"):
            prepare_db_path(target)
        ro = "/proc/self/remem.db"
        with pytest.raises(StorePathError, match=r"not writable|not a regular"):
            prepare_db_path(ro)
        return
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(StorePathError, match="not writable"):
            prepare_db_path(locked / "remem.db")
    finally:
        locked.chmod(0o700)


def test_a_version_6_file_gets_vector_and_record_counts(db_path, monkeypatch):
    monkeypatch.setattr("remem.store.sqlite.connection.MIGRATIONS", migrations.MIGRATIONS[:6])
    monkeypatch.setattr("remem.store.sqlite.connection.LATEST_VERSION", 6)
    old = SQLiteStore(db_path)
    rowids = old.insert_records([(_fields(i), "t") for i in range(3)])
    old._conn.executemany(
        "INSERT INTO vectors (record_rowid, model_id, provider, model, dim, vec, created_at) "
        "VALUES (?, ?, 'p', 'm', ?, ?, 0)",
        [(r, "a", 2, bytes(8)) for r in rowids] + [(rowids[0], "b", 3, bytes(12))],
    )
    old.close()
    monkeypatch.undo()
    store = SQLiteStore(db_path)
    assert store.vector_stats() == [("a", 2, 3), ("b", 3, 1)]
    assert store.count() == 3 and store.term_stats([])[0] == 3
    assert store.integrity_problems() == []
    store.delete(["r0"])
    assert store.vector_stats() == [("a", 2, 2)]
    assert store.count() == 2 and store.stats()["records"] == 2
    store.insert_records([(_fields(9), "t")])
    assert store.count() == 3 and store.integrity_problems() == []


def _statements_on_open(db_path, monkeypatch) -> list[str]:
    seen: list[str] = []
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        conn = connect(*args, **kwargs)
        conn.set_trace_callback(seen.append)
        return conn

    monkeypatch.setattr("remem.store.sqlite.connection.sqlite3.connect", traced)
    SQLiteStore(db_path).close()
    monkeypatch.undo()
    return seen


def test_opening_an_up_to_date_file_reads_no_table_through(db_path, monkeypatch):
    first = _statements_on_open(db_path, monkeypatch)  # creates the file: migrates
    assert any("foreign_key_check" in s for s in first)
    again = _statements_on_open(db_path, monkeypatch)
    assert not any("foreign_key_check" in s or "count(" in s.lower() for s in again), again


def test_broken_references_are_reported_by_the_integrity_check(db_path):
    store = SQLiteStore(db_path)
    (rowid,) = store.insert_records([(_fields(1), "t")])
    store._conn.execute("PRAGMA foreign_keys = OFF")
    store._conn.execute(
        "INSERT INTO vectors (record_rowid, model_id, provider, model, dim, vec, created_at) "
        "VALUES (?, 'm', 'p', 'm', 2, ?, 0)",
        (rowid + 100, bytes(8)),
    )
    store._conn.execute("PRAGMA foreign_keys = ON")
    assert store.integrity_problems() == ["1 broken references in vectors"]


def test_a_version_8_file_gets_the_fact_tables(db_path, monkeypatch):
    from remem.types import Fact

    monkeypatch.setattr("remem.store.sqlite.connection.MIGRATIONS", migrations.MIGRATIONS[:8])
    monkeypatch.setattr("remem.store.sqlite.connection.LATEST_VERSION", 8)
    old = SQLiteStore(db_path)
    old.insert_records([(_fields(i), "t") for i in range(3)])
    old.close()
    monkeypatch.undo()
    store = SQLiteStore(db_path)
    assert store.schema_version() == migrations.LATEST_VERSION and store.count() == 3
    store.put_facts(
        [Fact("f1", "global", "name:tom", "Tom", "lives_in", "Shanghai", 5.0, 5.0, None, ("r1",))]
    )
    assert [f.value for f in store.facts_citing(["r1"])] == ["Shanghai"]
    store.delete(["r1"])
    assert store.facts() == [] and store.stats()["facts"] == 0
    assert store.integrity_problems() == []


def test_a_version_9_file_gets_the_facts_backlog_with_nothing_waiting(db_path, monkeypatch):
    # its records' facts were extracted before their writes were acknowledged
    monkeypatch.setattr("remem.store.sqlite.connection.MIGRATIONS", migrations.MIGRATIONS[:9])
    monkeypatch.setattr("remem.store.sqlite.connection.LATEST_VERSION", 9)
    old = SQLiteStore(db_path)
    old.insert_records([(_fields(i), "t") for i in range(3)])
    old.close()
    monkeypatch.undo()
    store = SQLiteStore(db_path)
    assert store.schema_version() == migrations.LATEST_VERSION and store.count_awaiting_facts() == 0
    (rowid,) = store.insert_records([(_fields(7), "t")], awaiting_facts=True)
    assert store.count_awaiting_facts() == 1
    store.delete([store.get_by_rowids([rowid])[rowid].id])
    assert store.count_awaiting_facts() == 0
    assert store.integrity_problems() == []
