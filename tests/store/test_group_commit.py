"""SQLite group commit (issue 47, item 1): writes that land together share one fsync, and a
write returns only once an fsync that started after its commit has finished."""

from __future__ import annotations

import fcntl
import os
import signal
import sqlite3
import struct
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from conformance import fields

from remem.store.queries import RecordPage
from remem.store.sqlite import SQLiteStore


def _row(i: int) -> tuple[dict, str]:
    return (fields(i), "")


def _counter(path: Path, name: str) -> int:
    with sqlite3.connect(path) as c:
        return int(c.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()[0])


def _committed(path: Path) -> int:
    return _counter(path, "commits")


def _synced(path: Path) -> int:
    raw = Path(f"{path}-sync").read_bytes()
    return struct.unpack("<q", raw[:8])[0] if len(raw) >= 8 else 0


def _wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


def test_writes_that_land_together_share_one_fsync(tmp_path):
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    try:
        store.insert_records([_row(0)])
        before = store._sync.fsyncs
        base = _committed(path)
        # Hold the syncer's lock as a slow fsync would: eight writers commit and queue behind it
        blocker = os.open(f"{path}-sync", os.O_RDWR)
        fcntl.flock(blocker, fcntl.LOCK_EX)
        done: list[int] = []
        threads = [
            threading.Thread(target=lambda i=i: done.append(store.insert_records([_row(i)])[0]))
            for i in range(1, 9)
        ]
        for t in threads:
            t.start()
        try:
            _wait_for(lambda: _committed(path) == base + 8)
            assert done == [], "no write may return before an fsync covers it"
        finally:
            fcntl.flock(blocker, fcntl.LOCK_UN)
            os.close(blocker)
        for t in threads:
            t.join(60)
        assert len(done) == 8
        # the first writer through fsynced for all eight
        assert store._sync.fsyncs - before == 1
        assert _synced(path) >= base + 8
    finally:
        store.close()


def test_a_returned_write_is_covered_by_the_synced_ticket(tmp_path):
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    try:
        for i in range(5):
            store.insert_records([_row(i)])
            assert _synced(path) >= _committed(path)
    finally:
        store.close()


def test_opening_lowers_a_synced_ticket_above_the_committed_one(tmp_path):
    """After a power loss lost the unsynced tail, a stale synced ticket would let a later
    write skip its fsync: opening the store lowers it."""
    path = tmp_path / "s.db"
    SQLiteStore(path).close()
    Path(f"{path}-sync").write_bytes(struct.pack("<q", 10_000))
    store = SQLiteStore(path)
    try:
        assert _synced(path) == _committed(path)
        before = store._sync.fsyncs
        store.insert_records([_row(1)])
        assert store._sync.fsyncs == before + 1
    finally:
        store.close()


def test_group_commit_off_syncs_every_commit_itself(tmp_path):
    path = tmp_path / "s.db"
    store = SQLiteStore(path, group_commit=False)
    try:
        store.insert_records([_row(1)])
        assert store._sync is None
        assert store.query_one("PRAGMA synchronous")[0] == 2  # FULL
    finally:
        store.close()
    grouped = SQLiteStore(path)
    try:
        assert grouped.query_one("PRAGMA synchronous")[0] == 1  # NORMAL + the barrier
    finally:
        grouped.close()


WRITER = textwrap.dedent(
    """
    import sys
    from remem.store.sqlite import SQLiteStore
    path, worker = sys.argv[1], sys.argv[2]
    store = SQLiteStore(path)
    i = 0
    while True:
        rid = f"w{worker}-{i}"
        store.insert_records([({"id": rid, "kind": "message", "text": rid, "scope": "global",
                                "created_at": 1.0e9 + i, "content_hash": rid,
                                "importance": 0.5}, "")])
        print(rid, flush=True)  # acknowledged: the call returned
        i += 1
    """
)


def test_sigkill_during_grouped_commits_loses_no_acknowledged_write(tmp_path):
    path = tmp_path / "s.db"
    SQLiteStore(path).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(w)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for w in range(4)
    ]
    acked: list[str] = []
    try:
        # read until every writer has acknowledged some writes, then kill them all mid-stream
        counts = [0] * len(procs)
        while min(counts) < 20:
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
    store = SQLiteStore(path)
    try:
        assert store.integrity_problems() == []
        found = {r.id for r in store.list_records(RecordPage(limit=None))}
        assert set(acked) <= found, sorted(set(acked) - found)[:5]
        assert store.count() == len(found)  # nothing duplicated
    finally:
        store.close()


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_the_sync_file_sits_beside_the_database(tmp_path):
    path = tmp_path / "s.db"
    SQLiteStore(path).close()
    assert Path(f"{path}-sync").exists()


def test_one_write_bumps_its_revision_and_its_ticket_in_one_statement(tmp_path):
    """The counters a write bumps (its revision, its commit's ticket) cost one statement,
    not two: CPU per write is what limits many writers on two cores (issue 47)."""
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    try:
        store.insert_records([_row(0)])
        statements: list[str] = []
        store._conn.set_trace_callback(statements.append)
        rev_before = _counter(path, "rev")
        ticket_before = _committed(path)
        store.insert_records([_row(1)])
        store._conn.set_trace_callback(None)
        counters = [s for s in statements if s.lstrip().upper().startswith("UPDATE COUNTERS")]
        assert len(counters) == 1, statements
        assert _committed(path) == ticket_before + 1  # the ticket was still taken
        assert _synced(path) >= ticket_before + 1  # and the write waited for its fsync
        assert _counter(path, "rev") == rev_before + 1
        with sqlite3.connect(path) as c:
            revs = [r[0] for r in c.execute("SELECT rev FROM records ORDER BY rowid")]
        assert revs == [rev_before, rev_before + 1]
    finally:
        store.close()


def test_checkpoints_run_on_a_thread_not_in_a_writers_commit(tmp_path):
    """SQLite's automatic checkpoint runs inside the COMMIT that fills the WAL: that writer
    copies the WAL into the database and fsyncs it before its write is acknowledged (the
    ack's p99 with many writers). With group commit the write connection does not
    checkpoint; a thread does, woken every CHECKPOINT_EVERY commits, and the WAL stays
    bounded."""
    from remem.store.sqlite.checkpoint import CHECKPOINT_EVERY, RESTART_FRAMES

    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    try:
        assert store._conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        writes = 20 * CHECKPOINT_EVERY  # ~10 WAL frames each: over RESTART_FRAMES
        for i in range(writes):
            store.insert_records([_row(i)])
        checkpointer = store._checkpointer
        assert checkpointer is not None
        _wait_for(lambda: checkpointer.checkpoints >= 3)
        # every page a write touches is a WAL frame of its own: unchecked, the WAL would hold
        # thousands; checkpointed, a writer restarts it from the top
        # a writer never ran the checkpoint: the thread copied it all
        assert checkpointer.checkpoints >= 3
        assert store.count() == writes
    finally:
        store.close()
    # every page a write touches is a WAL frame of its own (~10 here): unchecked, the WAL
    # would have grown to thousands of frames; checkpointed, writers restarted it
    frames = Path(f"{path}-wal").stat().st_size // 4096 if Path(f"{path}-wal").exists() else 0
    assert frames < 2 * RESTART_FRAMES, frames  # 16,000 when PASSIVE alone


def test_group_commit_off_keeps_sqlites_own_checkpoints(tmp_path):
    store = SQLiteStore(tmp_path / "s.db", group_commit=False)
    try:
        assert store._conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
        assert store._checkpointer is None
    finally:
        store.close()


def test_writers_covered_by_one_fsync_read_so_together(tmp_path):
    """The writers queued behind one syncer's fsync read the synced ticket under a shared
    lock, so all of them return at once when it ends, instead of taking the exclusive lock
    one after another (each hand-over waited for the next process to be scheduled)."""
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    try:
        store.insert_records([_row(0)])
        base = _committed(path)
        blocker = os.open(f"{path}-sync", os.O_RDWR)
        fcntl.flock(blocker, fcntl.LOCK_EX)  # a syncer in the middle of its fsync
        done: list[int] = []
        threads = [
            threading.Thread(target=lambda i=i: done.append(store.insert_records([_row(i)])[0]))
            for i in range(1, 5)
        ]
        for t in threads:
            t.start()
        try:
            _wait_for(lambda: _committed(path) == base + 4)
            wal = os.open(f"{path}-wal", os.O_RDONLY)
            os.fsync(wal)  # the syncer's fsync, covering them
            os.close(wal)
            os.pwrite(blocker, struct.pack("<q", base + 4), 0)
            # it is done, and someone still reads the ticket (a shared lock): covered
            # writers return now; none needs the exclusive lock
            fcntl.flock(blocker, fcntl.LOCK_SH)
            _wait_for(lambda: len(done) == 4, timeout=30)
            assert store._sync.fsyncs == 1  # the first write's own, before the blocker
        finally:
            fcntl.flock(blocker, fcntl.LOCK_UN)
            os.close(blocker)
        for t in threads:
            t.join(60)
    finally:
        store.close()
