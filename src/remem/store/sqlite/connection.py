"""The SQLite file: opening, migrating, transactions, counters added to in the meta table.

One file, WAL mode, a busy timeout so several processes can share the file. Every write is one
``BEGIN IMMEDIATE`` transaction: either all of it lands or none of it does, and it returns only
once it is on disk (it survives a killed process and a power loss): by group commit
(``durability.py``: writes that land together share one fsync; ``synchronous=NORMAL`` plus a
barrier) or, with ``store.group_commit = false`` or without ``flock``, ``synchronous=FULL``.
Writers of the file take turns through a lock of their own first (``writer_queue.py``), so a
waiter wakes when the lock is let go rather than on SQLite's busy handler's sleeps.
``transaction()`` makes several writes one: inside it, each write is a savepoint of the one open transaction, and reads see what the
block wrote so far.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from remem.errors import StoreBusyError, StoreError
from remem.store.migrations import LATEST_VERSION, MIGRATIONS
from remem.store.paths import index_dir, prepare_db_path
from remem.store.sql_base import SQLConnection
from remem.store.sql_dialect import SQLITE
from remem.store.sqlite.checkpoint import Checkpointer
from remem.store.sqlite.durability import (
    GROUP_COMMIT_AVAILABLE,
    GroupSync,
    bump_counter,
    bump_rev_and_ticket,
    ensure_ticket_counter,
    take_ticket,
)
from remem.store.sqlite.writer_queue import WRITER_QUEUE_AVAILABLE, WriterQueue
from remem.store.stats import StorageStats

log = logging.getLogger("remem")


def _writer_queue(path: Path) -> WriterQueue | None:
    """This file's writer queue, where ``flock`` exists and the lock file can be made (else
    writers wait in SQLite's busy handler, as before the queue)."""
    if not WRITER_QUEUE_AVAILABLE:
        return None
    try:
        return WriterQueue(path)
    except OSError as exc:
        log.warning("no writer queue for %s (%s): writers wait in SQLite's busy handler", path, exc)
        return None


class SQLiteConnection(SQLConnection):
    """The connection every part of the SQLite store shares (one lock guards it)."""

    _sql = SQLITE
    _STATS_RECORDS = "SELECT value FROM counters WHERE name = 'records'"  # kept by triggers
    _STATS_VECTORS = "SELECT model_id, dim, n FROM vector_counts ORDER BY model_id, dim"
    _STATS_SCHEMA = "PRAGMA user_version"

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout_ms: int = 10_000,
        cache_mb: int = 64,
        group_commit: bool = True,
        group_commit_window_ms: float = 0.0,
    ) -> None:
        self._path = prepare_db_path(path)
        self._sync: GroupSync | None = None
        self._checkpointer: Checkpointer | None = None
        grouped = group_commit and GROUP_COMMIT_AVAILABLE
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(
                str(self._path),
                timeout=busy_timeout_ms / 1000,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,  # guarded by self._lock
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open database {str(self._path)!r}: {exc}") from None
        self.local_writes = 0  # bumped on every commit of this connection
        # Savepoints open inside the current transaction. Only the thread holding self._lock
        # (an RLock, held for the whole transaction) ever sees a non-zero depth.
        self._depth = 0
        self._ticket: int | None = None  # this write's ticket, when _bump_rev took it
        self._busy_timeout_s = busy_timeout_ms / 1000
        # A second connection only asks whether anything was committed (change_token): the
        # vector channel asks it while the keyword search holds the main connection, and a
        # connection's data_version counts every other connection's commits, this process's
        # main connection included.
        self._watch: sqlite3.Connection | None = None
        self._watch_lock = threading.Lock()
        self._queue = _writer_queue(self._path)
        try:
            self._configure(busy_timeout_ms, cache_mb, grouped)
            self._migrate()
            self._watch = sqlite3.connect(
                str(self._path), timeout=busy_timeout_ms / 1000, check_same_thread=False
            )
            if grouped:
                self._sync = GroupSync(self._path, self._committed_ticket, group_commit_window_ms)
                # checkpoints on a thread, not in a writer's COMMIT (checkpoint.py)
                self._checkpointer = Checkpointer(self._path)
                self._conn.execute("PRAGMA wal_autocheckpoint = 0")
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            if is_busy(exc):
                raise self._busy_error() from None
            raise StoreError(
                f"cannot use {str(self._path)!r} as a remem database: {exc}; is it another "
                "program's file? choose another --db path"
            ) from None

    @property
    def path(self) -> Path:
        return self._path

    @property
    def index_root(self) -> Path:
        return index_dir(self._path)

    def _configure(self, busy_timeout_ms: int, cache_mb: int, grouped: bool) -> None:
        c = self._conn
        c.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        c.execute(f"PRAGMA cache_size = {-1024 * int(cache_mb)}")  # negative: in KiB
        mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(
                f"{str(self._path)!r} cannot use WAL journaling (got {mode!r}); put the "
                "database on a local file system"
            )
        # grouped: commits write the WAL, the barrier after them fsyncs it (durability.py)
        c.execute(f"PRAGMA synchronous = {'NORMAL' if grouped else 'FULL'}")
        c.execute("PRAGMA foreign_keys = ON")

    def _migrate(self) -> None:
        # foreign_keys can only change outside a transaction; a table rebuild needs it off
        self._conn.execute("PRAGMA foreign_keys = OFF")
        try:
            with self.write() as c:
                version = c.execute("PRAGMA user_version").fetchone()[0]
                if version > LATEST_VERSION:
                    raise StoreError(
                        f"{str(self._path)!r} has schema version {version}, newer than this "
                        f"remem understands ({LATEST_VERSION}); upgrade remem"
                    )
                pending = [m for m in MIGRATIONS if m[0] > version]
                for number, _title, script in pending:
                    for statement in split_sql(script):
                        c.execute(statement)
                    c.execute(f"PRAGMA user_version = {number}")
                ensure_ticket_counter(c)
                # Only after a migration: the check reads every row (1.8 s at 1M records), and
                # an up-to-date file is checked by `remem doctor` instead.
                broken = c.execute("PRAGMA foreign_key_check").fetchall() if pending else []
                if broken:
                    raise StoreError(
                        f"migrating {str(self._path)!r} left {len(broken)} broken references; "
                        "nothing was changed (run `remem doctor`)"
                    )
        finally:
            self._conn.execute("PRAGMA foreign_keys = ON")

    def schema_version(self) -> int:
        with self._lock:
            return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.close()
        with self._lock, suppress(sqlite3.Error):
            self._conn.close()
        if self._queue is not None:
            with self._lock:
                self._queue.close()
        if self._sync is not None:
            self._sync.close()
        with self._watch_lock, suppress(sqlite3.Error):
            if self._watch is not None:
                self._watch.close()

    def _busy_error(self) -> StoreBusyError:
        return StoreBusyError(
            f"the store {str(self._path)!r} is busy: another process held its lock for more "
            f"than {self._busy_timeout_s:g} s; retry, or raise store.busy_timeout_ms"
        )

    def _begin_immediate(self, c: sqlite3.Connection) -> None:
        """Take the write lock, retrying a busy answer until the busy timeout is spent
        (SQLite's own busy handler does not wait in every case, e.g. a lock upgrade)."""
        deadline = time.monotonic() + self._busy_timeout_s
        while True:
            try:
                c.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise
                if time.monotonic() >= deadline:
                    raise self._busy_error() from None
                time.sleep(0.02)

    def _begin_write(self, c: sqlite3.Connection) -> None:
        """The writer queue's lock (writer_queue.py: waiters wake when it is let go, not on
        SQLite's busy handler's sleeps), unless a stopped process holds it, then SQLite's."""
        queued = self._queue is not None and self._queue.acquire()
        try:
            self._begin_immediate(c)
        except BaseException:
            if queued and self._queue is not None:
                self._queue.release()
            raise

    def _committed_ticket(self) -> int:
        """The highest committed ticket (group commit), read on the watch connection so a
        writer waiting on the barrier never waits for the main connection's lock."""
        with self._watch_lock:
            watch = self._watch if self._watch is not None else self._conn
            row = watch.execute("SELECT value FROM counters WHERE name = 'commits'").fetchone()
        return int(row[0]) if row else 0

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction; rolled back entirely if the body raises, and returning
        only once it is durable (the group commit barrier waits outside the connection's
        lock, so other threads commit meanwhile and share the fsync). Inside an open
        ``transaction()`` it is a savepoint of that transaction instead: an error undoes this
        write alone, and nothing is committed until the outer block ends."""
        ticket = None
        with self._lock:
            c = self._conn
            if self._depth:
                with self._savepoint(c):
                    yield c
                return
            self._begin_write(c)
            self._depth = 1
            try:
                yield c
                if self._sync is not None:
                    ticket = self._ticket if self._ticket is not None else take_ticket(c)
                c.execute("COMMIT")
            except BaseException as exc:
                if c.in_transaction:
                    c.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError) and is_busy(exc):
                    raise self._busy_error() from None
                raise
            finally:
                self._depth = 0
                self._ticket = None
                if self._queue is not None:
                    self._queue.release()  # before the barrier: the next writer goes on
            self.local_writes += 1
        if ticket is not None and self._sync is not None:
            if self._checkpointer is not None:
                self._checkpointer.committed(ticket)
            self._wait_durable(ticket)

    def _wait_durable(self, ticket: int) -> None:
        assert self._sync is not None
        try:
            self._sync.wait_durable(ticket)
        except OSError as exc:
            raise StoreError(
                f"the write was committed to {str(self._path)!r} but could not be flushed to "
                f"disk ({exc}); it may be lost if the machine loses power now: check the disk"
            ) from None

    @contextmanager
    def _savepoint(self, c: sqlite3.Connection) -> Iterator[None]:
        name = f"remem_{self._depth}"
        c.execute(f"SAVEPOINT {name}")
        self._depth += 1
        try:
            yield
            c.execute(f"RELEASE {name}")
        except BaseException:
            c.execute(f"ROLLBACK TO {name}")
            c.execute(f"RELEASE {name}")
            raise
        finally:
            self._depth -= 1

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """Several writes as one (``Store.transaction``): one ``BEGIN IMMEDIATE`` ... COMMIT
        on this connection, holding its lock, so other threads wait and other processes see
        nothing until the block ends; an exception rolls all of it back."""
        with self.write():
            yield self

    @contextmanager
    def side_read(self) -> Iterator[sqlite3.Connection]:
        """A read transaction on a connection of its own, for reads that take seconds (a
        full vector read): the shared connection stays free for other threads."""
        try:
            conn = sqlite3.connect(
                str(self._path), timeout=self._busy_timeout_s, isolation_level=None
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open database {str(self._path)!r}: {exc}") from None
        try:
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("COMMIT")
        finally:
            conn.close()

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several SELECTs (inside an open ``transaction()``: that
        transaction, which sees its own writes)."""
        with self._lock:
            c = self._conn
            if self._depth:
                yield c
                return
            c.execute("BEGIN")
            try:
                yield c
            finally:
                c.execute("COMMIT")

    def query(self, sql: str, params: Any = ()) -> list[Any]:
        """All rows of one SELECT."""
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.OperationalError as exc:
                if is_busy(exc):
                    raise self._busy_error() from None
                raise

    def change_token(self) -> tuple[int, int]:
        """Changes whenever this or another process commits a write. Read before the data it
        guards: a commit in between makes the next token differ, so nothing stale is kept."""
        with self._watch_lock:
            watch = self._watch if self._watch is not None else self._conn  # (opening)
            return watch.execute("PRAGMA data_version").fetchone()[0], self.local_writes

    def _stats_storage(self, c: sqlite3.Connection) -> StorageStats:
        return {"file_bytes": file_bytes(self._path), "path": str(self._path)}

    def _bump_rev(self, c: sqlite3.Connection) -> int:  # type: ignore[override]
        """The next revision; in a grouped write's own transaction (not a savepoint, which
        may be rolled back alone) the commit's ticket is taken in the same statement, so
        ``write`` does not bump it again: one statement fewer on every write."""
        if self._sync is None or self._depth != 1 or self._ticket is not None:
            return bump_counter(c, "rev")
        rev, self._ticket = bump_rev_and_ticket(c)
        return rev

    # ---------------------------------------------------------------- meta
    def meta_add(self, namespace: str, key: str, amount: int) -> int:
        """Add to an integer counter kept in the meta table; returns the new value."""
        with self.write() as c:
            c.execute(
                "INSERT INTO meta (namespace, key, value) VALUES (?, ?, ?) "
                "ON CONFLICT (namespace, key) DO UPDATE SET value = CAST(value AS INTEGER) + ?",
                (namespace, key, str(amount), amount),
            )
            row = c.execute(
                "SELECT value FROM meta WHERE namespace = ? AND key = ?", (namespace, key)
            ).fetchone()
            return int(row[0])


def file_bytes(path: Path) -> int:
    """Bytes on disk of the database with its WAL and shared-memory files."""
    parts = (Path(f"{path}{suffix}") for suffix in ("", "-wal", "-shm"))
    return sum(p.stat().st_size for p in parts if p.exists())


def is_busy(exc: BaseException) -> bool:
    """SQLite's "database is locked" / "database is busy" (another connection holds a lock)."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def split_sql(script: str) -> list[str]:
    """Split a migration script into statements: drop ``--`` comment lines, then split on
    semicolons, joining pieces until SQLite calls the statement complete (a trigger's body
    holds semicolons of its own). Our migrations keep semicolons out of string literals."""
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    statements: list[str] = []
    pending = ""
    for piece in "\n".join(lines).split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                statements.append(pending.strip().removesuffix(";").strip())
            pending = ""
    if pending.strip(" \n;"):
        statements.append(pending.strip().removesuffix(";").strip())
    return statements
