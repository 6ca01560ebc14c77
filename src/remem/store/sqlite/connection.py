"""The SQLite file: opening, migrating, transactions, counters added to in the meta table.

One file, WAL mode, a busy timeout so several processes can share the file. Every write is one
``BEGIN IMMEDIATE`` transaction: either all of it lands or none of it does, and it returns only
once it is on disk (it survives a killed process and a power loss): by group commit
(``durability.py``: writes that land together share one fsync; ``synchronous=NORMAL`` plus a
barrier) or, with ``store.group_commit = false`` or without ``flock``, ``synchronous=FULL``. ``transaction()`` makes several writes
one: inside it, each write is a savepoint of the one open transaction, and reads see what the
block wrote so far.
"""

from __future__ import annotations

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
from remem.store.sqlite import journal
from remem.store.sqlite.checkpoint import Checkpointer
from remem.store.sqlite.durability import (
    GROUP_COMMIT_AVAILABLE,
    GroupSync,
    bump_counter,
    bump_rev_and_ticket,
    ensure_ticket_counter,
    take_ticket,
)
from remem.store.sqlite.journal import Folder
from remem.store.stats import StorageStats


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
        journal: bool = False,
        fold_batch: int = 64,
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
        # The write journal (journal.py): whether this process appends to it (every process
        # folds it, whatever its own setting), and the change token at which it was last
        # seen empty, so a read asks the file only when something was written since.
        self._journal = journal
        self._fold_batch = max(1, int(fold_batch))
        self._journal_clear_at: tuple[int, int] | None = None
        self._folder: Folder | None = None
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
            self._fold_now(None)  # what a crash left in the journal
            if journal:
                self._folder = Folder(lambda: self._fold_now(self._fold_batch))
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
            with self.write(fold=False) as c:  # the journal may not exist yet
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
                for statement in journal.JOURNAL_DDL:
                    c.execute(statement)
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
        if self._folder is not None:
            self._folder.close()
            with suppress(sqlite3.Error, StoreError):
                self._fold_now(None)  # leave the journal empty (else the next open folds it)
        if self._checkpointer is not None:
            self._checkpointer.close()
        with self._lock, suppress(sqlite3.Error):
            self._conn.close()
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

    def _committed_ticket(self) -> int:
        """The highest committed ticket (group commit), read on the watch connection so a
        writer waiting on the barrier never waits for the main connection's lock."""
        with self._watch_lock:
            watch = self._watch if self._watch is not None else self._conn
            row = watch.execute("SELECT value FROM counters WHERE name = 'commits'").fetchone()
        return int(row[0]) if row else 0

    @contextmanager
    def write(self, *, fold: bool = True) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction; rolled back entirely if the body raises, and returning
        only once it is durable (the group commit barrier waits outside the connection's
        lock, so other threads commit meanwhile and share the fsync). Inside an open
        ``transaction()`` it is a savepoint of that transaction instead: an error undoes this
        write alone, and nothing is committed until the outer block ends. With the journal
        it first folds what is pending (``fold``: all but the journal's own appends), so the
        write finds every record acknowledged before it."""
        ticket = None
        with self._lock:
            c = self._conn
            if self._depth:
                with self._savepoint(c):
                    yield c
                return
            self._begin_immediate(c)
            self._depth = 1
            try:
                if fold:  # whatever this process's setting: another's may journal
                    self._fold_in(c, None)
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
        self._fold_for_read()
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
        self._fold_for_read()
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
        self._fold_for_read()
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.OperationalError as exc:
                if is_busy(exc):
                    raise self._busy_error() from None
                raise

    # ---------------------------------------------------------------- the journal
    def _fold_rows(self, c: sqlite3.Connection, rows: list[tuple[int, list[Any]]]) -> None:
        """Insert journal rows into the real tables (records.py), inside the caller's write."""
        raise NotImplementedError

    def _fold_in(self, c: sqlite3.Connection, limit: int | None) -> int:
        """Fold the first ``limit`` journal rows (None: all) inside the caller's write and
        delete them; how many."""
        rows = journal.pending(c, limit)
        if rows:
            self._fold_rows(c, rows)
            c.execute("DELETE FROM journal WHERE rowid <= ?", (rows[-1][0],))
        return len(rows)

    def _fold_now(self, limit: int | None) -> int:
        """One fold transaction of its own (no ticket, no barrier: journal.py says why)."""
        with self._lock:
            c = self._conn
            if self._depth or c.in_transaction:
                return 0  # the open transaction folded when it began
            self._begin_immediate(c)
            self._depth = 1
            try:
                n = self._fold_in(c, limit)
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
            if n:
                self.local_writes += 1
            return n

    def _fold_for_read(self, wait: bool = True) -> None:
        """Before a read outside a transaction: fold what the journal holds, so no read
        misses an acknowledged write. Nothing to ask when nothing was committed since the
        journal was last seen empty (the token is read *before* looking, so a write landing
        meanwhile changes it again). ``wait=False``: not if another thread holds the
        connection (a write it holds folded when it began)."""
        if self._token() == self._journal_clear_at:
            return
        if not self._lock.acquire(blocking=wait):
            return
        try:
            for _ in range(3):  # after a fold, look once more to remember "empty"
                if self._depth or self._conn.in_transaction:
                    return  # a transaction open on this thread folded when it began
                token = self._token()
                if token == self._journal_clear_at:
                    return
                found = self._conn.execute("SELECT EXISTS (SELECT 1 FROM journal)").fetchone()
                if not found[0]:
                    self._journal_clear_at = token
                    return
                self._fold_now(None)
        finally:
            self._lock.release()

    def change_token(self) -> tuple[int, int]:
        """Changes whenever this or another process commits a write. Read before the data it
        guards: a commit in between makes the next token differ, so nothing stale is kept.
        A write's journal row is folded first (when the connection is free), so the reads
        after it do not change the token again."""
        self._fold_for_read(wait=False)
        return self._token()

    def _token(self) -> tuple[int, int]:
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
