"""Group commit: writes that land together share one fsync, across threads and processes.

With ``synchronous=FULL`` every commit fsyncs the WAL itself, so eight writers pay eight
fsyncs for eight rows even when they committed within the same millisecond. Here commits run
with ``synchronous=NORMAL`` (the WAL frames are written to the file, not yet flushed) and a
write is acknowledged only after a *barrier*: an fsync of the WAL that started after its
commit. One fsync covers every commit before it, so whoever syncs syncs for all of them:

1. Each write transaction takes a ticket: ``counters.commits`` + 1, committed with the write.
2. After COMMIT the writer reads the highest ticket already synced from ``<db>-sync``, under a
   shared ``flock`` (the syncer holds it exclusively while it fsyncs, so the writers that
   queued behind one fsync all read together once it ends). If that covers its own ticket,
   another writer's fsync ran after its commit: done. Otherwise it takes the lock
   exclusively (one syncer at a time, threads and processes alike) and reads it again.
3. If that still does not cover it, it waits ``store.group_commit_window_ms`` (more commits may land), reads the
   highest committed ticket, fsyncs the WAL and records that ticket as synced.

Durability is the same as ``synchronous=FULL``'s: a write acknowledged has reached the disk
(the WAL's fsync), so neither a killed process nor a power loss loses it; a write not yet
acknowledged may be lost by a power loss, as with FULL. The synced ticket in ``<db>-sync``
is a hint that may only be trusted up to the committed ticket: after a power loss lost the
unsynced tail, a stale higher value would skip a needed fsync, so opening the store lowers it
to the committed ticket. Checkpoints need nothing from us: with NORMAL, SQLite fsyncs the WAL
before a checkpoint and the database after it.

Platforms without ``fcntl.flock`` (Windows) keep ``synchronous=FULL``: every commit syncs.
"""

from __future__ import annotations

import os
import sqlite3
import struct
import threading
import time
from collections.abc import Callable
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock; the store keeps synchronous=FULL
    fcntl = None  # type: ignore[assignment]

GROUP_COMMIT_AVAILABLE = fcntl is not None
_TICKET = struct.Struct("<q")


# UPDATE ... RETURNING (SQLite 3.35+) bumps and reads a counter in one statement.
RETURNING = sqlite3.sqlite_version_info >= (3, 35)


def bump_counter(c: sqlite3.Connection, name: str) -> int:
    """Inside a write transaction: add one to the ``counters`` row ``name``; its new value.
    Every write bumps two (the revision and the ticket): one statement each, not two."""
    if RETURNING:
        row = c.execute(
            "UPDATE counters SET value = value + 1 WHERE name = ? RETURNING value", (name,)
        ).fetchone()
    else:
        c.execute("UPDATE counters SET value = value + 1 WHERE name = ?", (name,))
        row = c.execute("SELECT value FROM counters WHERE name = ?", (name,)).fetchone()
    return int(row[0])


def bump_rev_and_ticket(c: sqlite3.Connection) -> tuple[int, int]:
    """Inside a write transaction: the next revision and this commit's ticket, bumped in one
    statement (both are bumped by every write that changes a record)."""
    if not RETURNING:
        return bump_counter(c, "rev"), take_ticket(c)
    rows = dict(
        c.execute(
            "UPDATE counters SET value = value + 1 WHERE name IN ('rev', 'commits') "
            "RETURNING name, value"
        ).fetchall()
    )
    return int(rows["rev"]), int(rows["commits"])


def take_ticket(c: sqlite3.Connection) -> int:
    """Inside a write transaction: this commit's ticket (committed with it)."""
    return bump_counter(c, "commits")


def ensure_ticket_counter(c: sqlite3.Connection) -> None:
    """The ``commits`` counter row (a file made before group commit lacks it)."""
    c.execute("INSERT OR IGNORE INTO counters (name, value) VALUES ('commits', 0)")


class GroupSync:
    """The barrier a write waits on before it is acknowledged (see the module docstring).
    ``committed`` reads the highest committed ticket on a connection of its own."""

    def __init__(self, db_path: Path, committed: Callable[[], int], window_ms: float = 0.0) -> None:
        self._db = db_path
        self._wal = Path(f"{db_path}-wal")
        self._committed = committed
        self._window_s = max(0.0, window_ms) / 1000
        self._fd = os.open(f"{db_path}-sync", os.O_RDWR | os.O_CREAT, 0o600)
        self._lock = threading.Lock()  # flock does not exclude threads sharing one fd
        self._dir_synced = False
        self.fsyncs = 0  # how many WAL fsyncs this connection made (stats and tests)
        self._reconcile()

    def close(self) -> None:
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def _read_synced(self) -> int:
        raw = os.pread(self._fd, _TICKET.size, 0)
        return _TICKET.unpack(raw)[0] if len(raw) == _TICKET.size else 0

    def _write_synced(self, ticket: int) -> None:
        os.pwrite(self._fd, _TICKET.pack(ticket), 0)

    def _reconcile(self) -> None:
        """Lower a synced ticket above the committed one (what a power loss leaves)."""
        with self._lock:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                committed = self._committed()
                if self._read_synced() > committed:
                    self._write_synced(committed)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def wait_durable(self, ticket: int) -> None:
        """Return once the commit holding ``ticket`` is on disk."""
        with self._lock:
            if self._synced_already(ticket):
                return
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                if self._read_synced() >= ticket:
                    return
                if self._window_s:
                    time.sleep(self._window_s)
                latest = max(self._committed(), ticket)
                self._fsync_wal()
                self._write_synced(latest)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _synced_already(self, ticket: int) -> bool:
        """Whether an fsync covering ``ticket`` has run, read under a *shared* lock: the
        writers that queued behind one syncer's fsync are all covered by it, and they read
        so together once it ends, instead of taking the exclusive lock one after another
        (with eight writer processes on two cores each hand-over waited for the next one to
        be scheduled: most of an acknowledgement's latency)."""
        fcntl.flock(self._fd, fcntl.LOCK_SH)
        try:
            return self._read_synced() >= ticket
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _fsync_wal(self) -> None:
        try:
            fd = os.open(self._wal, os.O_RDONLY)
        except FileNotFoundError:
            # no WAL: the last connection checkpointed it into the database, which SQLite
            # fsyncs after a checkpoint; fsync the database to be sure
            fd = os.open(self._db, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        self.fsyncs += 1
        if not self._dir_synced:
            # the WAL's directory entry: NORMAL does not sync it when the WAL is created
            dir_fd = os.open(self._db.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
            self._dir_synced = True
