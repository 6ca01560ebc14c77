"""The SQLite write journal (issue 47): a record written on its own is acknowledged once its
journal row is durable and folded into the real tables afterwards; no read, write or crash
may tell the difference (store/sqlite/journal.py)."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conformance import fields

from remem.errors import ConflictError
from remem.store.queries import LexicalQuery, RecordPage
from remem.store.sqlite import SQLiteStore, journal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock")


def _raw_count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as c:
        return int(c.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


@pytest.fixture
def no_background_fold(monkeypatch):
    """No folder thread: only reads and writes fold."""
    monkeypatch.setattr(journal.Folder, "kick", lambda self: None)


def test_a_search_right_after_the_acknowledgement_sees_the_write(tmp_path, no_background_fold):
    path = tmp_path / "s.db"
    store = SQLiteStore(path, journal=True)
    try:
        rowid = store.insert_records([(fields(1), "ferry museum")])[0]
        assert _raw_count(path, "journal") == 1 and _raw_count(path, "records") == 0
        assert [r for r, _ in store.lexical_search(LexicalQuery(["ferry"]), 5)] == [rowid]
        assert _raw_count(path, "journal") == 0
        assert store.get("r1").rowid == rowid
    finally:
        store.close()


def test_another_process_reading_folds_what_one_acknowledged(tmp_path, no_background_fold):
    path = tmp_path / "s.db"
    writer, reader = SQLiteStore(path, journal=True), SQLiteStore(path, journal=False)
    try:
        rowid = writer.insert_records([(fields(1), "glacier")])[0]
        assert reader.count() == 1
        assert [r for r, _ in reader.lexical_search(LexicalQuery(["glacier"]), 5)] == [rowid]
    finally:
        writer.close()
        reader.close()


def test_ids_stay_unique_across_the_journal_and_the_records(tmp_path, no_background_fold):
    store = SQLiteStore(tmp_path / "s.db", journal=True)
    try:
        store.insert_records([(fields(1), "one")])  # in the journal
        with pytest.raises(ConflictError, match="exists"):
            store.insert_records([(fields(1, text="again"), "again")])
        assert store.insert_records([(fields(1), "one")], on_conflict="skip") == [None]
        # a batch goes straight to the records, after folding: the id is taken there too
        with pytest.raises(ConflictError, match="exists"):
            store.insert_records([(fields(2), "two"), (fields(1), "dup")])
        assert store.count() == 1 and store.get("r2") is None
        # the rowid handed out at the acknowledgement is the record's
        rowids = [store.insert_records([(fields(n), "x")])[0] for n in (3, 4)]
        assert [store.get(f"r{n}").rowid for n in (3, 4)] == rowids
        assert len(set(rowids) | {store.get("r1").rowid}) == 3
    finally:
        store.close()


def test_a_write_right_after_the_acknowledgement_finds_the_record(tmp_path, no_background_fold):
    store = SQLiteStore(tmp_path / "s.db", journal=True)
    try:
        store.insert_records([(fields(1), "one")])
        assert store.delete(["r1"]) == 1  # the delete folded it first
        assert store.count() == 0 and store.get("r1") is None
    finally:
        store.close()


def test_a_messages_context_counts_the_turns_still_in_the_journal(tmp_path, no_background_fold):
    path = tmp_path / "s.db"
    store = SQLiteStore(path, journal=True)
    try:
        store.insert_records([(fields(1, session="s"), "one")])
        store.insert_records([(fields(2, session="s"), "two")])
        assert _raw_count(path, "journal") == 2  # the context read below folds nothing
        turns = store.previous_texts("s", fields(3)["created_at"], 5)
        assert [r.id for r in turns] == ["r1", "r2"]
        assert _raw_count(path, "journal") == 2
        assert [r.id for r in store.previous_texts("s", fields(3)["created_at"], 1)] == ["r2"]
    finally:
        store.close()


ACK_THEN_WAIT = textwrap.dedent(
    """
    import sys, time
    from remem.store.sqlite import SQLiteStore, journal
    journal.Folder.kick = lambda self: None  # no background fold: the process dies first
    store = SQLiteStore(sys.argv[1], journal=True)
    store.insert_records([({"id": "late", "kind": "message", "text": "the lantern",
                            "scope": "global", "created_at": 1.0e9, "content_hash": "h",
                            "importance": 0.5}, "lantern")], awaiting_facts=True)
    print("acked", flush=True)
    time.sleep(600)
    """
)


def test_a_write_acknowledged_then_killed_before_its_fold_is_found_after_reopening(tmp_path):
    path = tmp_path / "s.db"
    SQLiteStore(path).close()
    proc = subprocess.Popen(
        [sys.executable, "-c", ACK_THEN_WAIT, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "acked"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    assert _raw_count(path, "journal") == 1 and _raw_count(path, "records") == 0
    store = SQLiteStore(path)
    try:
        hits = store.lexical_search(LexicalQuery(["lantern"]), 5)
        assert [store.get_by_rowids([r])[r].id for r, _ in hits] == ["late"]
        assert store.count_awaiting_facts() == 1  # its facts are still owed
        assert _raw_count(path, "journal") == 0
    finally:
        store.close()


WRITER = textwrap.dedent(
    """
    import sys
    from remem.store.sqlite import SQLiteStore
    path, worker = sys.argv[1], sys.argv[2]
    store = SQLiteStore(path, journal=True, fold_batch=16)
    i = 0
    while True:
        rid = f"w{worker}-{i}"
        store.insert_records([({"id": rid, "kind": "message", "text": rid, "scope": "global",
                                "session": f"s{worker}", "created_at": 1.0e9 + i,
                                "content_hash": rid, "importance": 0.5}, rid)])
        print(rid, flush=True)  # acknowledged: the call returned
        i += 1
    """
)


def test_sigkill_during_grouped_journal_commits_loses_tears_and_doubles_nothing(tmp_path):
    path = tmp_path / "s.db"
    SQLiteStore(path).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(w)], stdout=subprocess.PIPE, text=True
        )
        for w in range(4)
    ]
    acked: list[str] = []
    try:
        counts = [0] * len(procs)
        while min(counts) < 40:  # every writer acknowledged some, its folder folded some
            for n, p in enumerate(procs):
                line = p.stdout.readline()
                assert line, f"writer {n} died: exit {p.poll()}"
                acked.append(line.strip())
                counts[n] += 1
    finally:
        for p in procs:
            p.send_signal(signal.SIGKILL)
        for p in procs:
            rest, _ = p.communicate(timeout=60)
            acked.extend(x for x in rest.split("\n") if x.strip())
    assert _raw_count(path, "records") > 0  # the writers' folders folded while they wrote
    store = SQLiteStore(path)
    try:
        assert store.integrity_problems() == []
        found = {r.id for r in store.list_records(RecordPage(limit=None))}
        assert set(acked) <= found, sorted(set(acked) - found)[:5]  # 0 lost
        assert store.count() == len(found)  # 0 duplicated
        for rid in sorted(acked)[:: max(1, len(acked) // 20)]:  # 0 torn: each has its FTS row
            hits = store.lexical_search(LexicalQuery([rid.replace("-", " ")]), 50)
            assert store.get(rid).rowid in {r for r, _ in hits}, rid
        assert _raw_count(path, "journal") == 0
    finally:
        store.close()
