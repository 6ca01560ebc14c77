"""The PostgreSQL store's connections: the pool, migrations, transactions, meta counters.

One connection pool per store (psycopg_pool), every connection set to the store's schema and
able to send and receive ``vector`` values. Every write is one transaction (``write()``);
reads that must agree with each other share one snapshot (``read()``). ``transaction()`` makes
several writes one: the thread that opens it keeps one pooled connection, and every write and
read it makes until the block ends goes through that connection (a write as a savepoint).

``write()`` and ``read()`` run in psycopg's pipeline mode: their statements go out without
waiting for each other's results, and the client waits only where it reads a result (a
``RETURNING``, a ``SELECT``) and once for the ``COMMIT``. An acknowledged write is still one
whose ``COMMIT`` returned, at the server's ``synchronous_commit`` (issue 47: a write was ten
waits for the server, each one a wake-up of both processes on a busy machine; it is one).
A write that is one statement (one message: ``_one_statement``) goes out in autocommit, a
transaction of its own that the server commits at the statement's end.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from remem.errors import StoreError
from remem.store.migrations import LATEST_VERSION as SQLITE_VERSION
from remem.store.postgres.group_commit import GroupCommit
from remem.store.postgres.schema import LATEST_VERSION, MIGRATIONS, SHARD_LOCK_BASE, SHARDS
from remem.store.sql_base import SQLConnection
from remem.store.sql_dialect import POSTGRES
from remem.store.stats import StorageStats

try:
    import psycopg
    from pgvector.psycopg import register_vector
    from psycopg import sql
    from psycopg.conninfo import conninfo_to_dict, make_conninfo
    from psycopg.pq import TransactionStatus
    from psycopg_pool import ConnectionPool
except ImportError as exc:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"the PostgreSQL store needs psycopg and pgvector ({exc}); "
        "install them with: pip install 'remem[postgres]'"
    ) from None

assert SQLITE_VERSION == LATEST_VERSION, "one schema version for both backends"
log = logging.getLogger("remem.store.postgres")
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
# Two processes migrating at once: the second waits here, then finds nothing left to do.
_MIGRATION_LOCK = 0x72656D656D  # "remem"
# Held by every ``transaction()`` until it ends, with the store's schema as the second key:
# the transactions of all processes on one store run one at a time, as SQLite's one writer
# does, so a transaction's reads see every earlier transaction's commits (READ COMMITTED
# alone would let two of them read the same "current" row and both replace it). Stores in
# other schemas do not wait. (Two-key advisory locks never collide with one-key ones.)
_TRANSACTION_LOCK = 0x72656D  # "rem"
# Taken by the writes that stamp a revision through ``_bump_rev`` (with the schema's hash as
# the second key): they take turns, the rest of the writers do not wait for them.
_REVISION_LOCK = 0x726F64  # "rod"
# A record's revision: its transaction's id, past the values of the counter that schema
# version 11 replaced (``rev_base``). Ids are handed out in start order, not commit order:
# readers take ``CURRENT_REV`` as theirs, below every id of this store's writers still running.
REV = "pg_current_xact_id()::text::bigint + (SELECT value FROM counters WHERE name = 'rev_base')"
# Every write adds one to the write counter of its shard (``write_shard()``; the change token
# is their sum): concurrent writers never wait for each other's row here. A write does it
# first (schema version 12): taking the shard's advisory lock before the transaction has an
# id marks it as this store's writer for ``CURRENT_REV`` (the lock is taken before the UPDATE
# changes a row, which is what gives the transaction its id).
COUNT_WRITE = "UPDATE write_counts SET writes = writes + 1 WHERE shard = (SELECT write_shard())"
# The revision a reader takes as current (schema version 12): one below the oldest
# transaction its snapshot sees running that may stamp this store, so every record stamped
# at or below it is in the snapshot and none can commit there later. A transaction running
# that holds no shard lock of this store's is another's (another schema, database or
# application, an idle psql): it never stamps here, since every writer of this store takes
# its shard before its id (``COUNT_WRITE``), and it holds back nothing (version 11 took the
# oldest transaction on the whole server, so one left open froze every reader's revision).
# pg_locks is read after the snapshot was taken: a transaction of the snapshot no longer
# running then may have been a writer, so it counts as one; with every shard held (more
# than 64 writers at once, the rest write without a shard lock) the oldest of all counts.
CURRENT_REV = f"""
WITH s AS (SELECT pg_current_snapshot() AS snap),
held AS (
    SELECT locktype, virtualtransaction, transactionid::text::bigint AS xid, classid
    FROM pg_locks WHERE granted AND (locktype = 'transactionid' AND mode = 'ExclusiveLock'
        OR locktype = 'advisory' AND objsubid = 2
        AND classid BETWEEN {SHARD_LOCK_BASE} AND {SHARD_LOCK_BASE + SHARDS - 1}
        AND objid = hashtext(current_schema())::oid
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))),
writers AS (SELECT virtualtransaction FROM held WHERE locktype = 'advisory'),
others AS (
    SELECT xid FROM held WHERE locktype = 'transactionid'
    AND virtualtransaction NOT IN (SELECT virtualtransaction FROM writers))
SELECT CASE WHEN (SELECT count(*) FROM writers) >= {SHARDS} THEN pg_snapshot_xmin(snap)
    ELSE coalesce(
        (SELECT min(x) FROM pg_snapshot_xip(snap) AS x
         WHERE x::text::bigint % 4294967296 NOT IN (SELECT xid FROM others)),
        pg_snapshot_xmax(snap)) END::text::bigint
    - 1 + (SELECT value FROM counters WHERE name = 'rev_base')
FROM s
"""
# What the store's tables and indexes (with their TOAST data) take on the server.
SCHEMA_BYTES_SQL = (
    "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
    "WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'm')"
)


def _retryable(exc: BaseException) -> bool:
    """A grouped transaction's error that left nothing committed and came from what it
    wrote, not from the connection: each of its writes may run again alone
    (``group_commit.py``)."""
    if not isinstance(exc, Exception):
        return False  # an interrupt: no write of the group is tried again
    if isinstance(exc, psycopg.errors.TransactionRollback):
        return True  # a deadlock: two groups inserting the same ids in other orders
    # the server or the connection: each write alone would fail the same way
    return not isinstance(exc, StoreError | psycopg.OperationalError)


class _Cursor(psycopg.Cursor[Any]):
    """psycopg's cursor, with a ``rowcount`` that is right in pipeline mode too: psycopg
    knows a statement's row count only once the pipeline has synced (until then it says
    -1), so asking for it syncs the pipeline first."""

    @property
    def rowcount(self) -> int:
        if self.pgresult is None and self.connection.pgconn.pipeline_status:
            with self.connection.pipeline():  # entering a nested pipeline syncs
                pass
        return super().rowcount


def redact(url: str) -> str:
    """The URL without its password (for messages and ``stats()``)."""
    try:
        params = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://(unparsable URL)"
    params.pop("password", None)
    return make_conninfo("", **{k: v for k, v in params.items() if v is not None})


class PostgresConnection(SQLConnection):
    """The pool every part of the PostgreSQL store shares."""

    _sql = POSTGRES
    _STATS_RECORDS = "SELECT count(*) FROM records"
    _STATS_VECTORS = "SELECT model_id, dim, count(*) FROM vectors GROUP BY model_id, dim"
    _STATS_SCHEMA = "SELECT version FROM schema_version"

    def __init__(
        self,
        url: str,
        *,
        schema: str = "remem",
        pool_size: int = 4,
        group_commit: bool = True,
        writes_in_flight: int = 2,
    ) -> None:
        if not _SCHEMA_NAME.match(schema):
            raise StoreError(
                f"store schema {schema!r} is not a plain lower-case SQL name; use letters, "
                "digits and underscores"
            )
        self._url = url
        self._schema = schema
        self._lock = threading.Lock()
        self._closed = False
        self._open_tx = threading.local()  # .conn: this thread's connection in transaction()
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
                ext_schema = self._migrate(conn)
        except psycopg.OperationalError as exc:
            raise StoreError(
                f"cannot connect to PostgreSQL at {redact(url)!r}: {' '.join(str(exc).split())}; "
                "check "
                "the URL (postgresql://user:password@host:port/database) and that the server runs"
            ) from None
        self._search_path = sql.SQL("SET search_path TO {}, {}").format(
            sql.Identifier(schema), sql.Identifier(ext_schema)
        )
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True},
            configure=self._configure,
            timeout=30,  # waiting for a free connection (or a server that went away)
            open=True,
            name=f"remem-{schema}",
        )
        # Group commit (``group_commit.py``): one process's message writes that arrive while
        # ``writes_in_flight`` others run share the next statement and commit.
        self._groups = (
            # a write names what no other write of its group may share (``_OneRecord.keys``)
            GroupCommit(
                leaders=writes_in_flight, retryable=_retryable, keys=lambda item: item.keys()
            )
            if group_commit
            else None
        )

    def _configure(self, conn: psycopg.Connection[Any]) -> None:
        conn.cursor_factory = _Cursor
        conn.execute(self._search_path)
        register_vector(conn)
        try:
            # Filtered HNSW scans keep walking the graph until LIMIT rows pass the filters
            # (pgvector 0.8+; with an older one a selective filter falls back to exact).
            conn.execute("SET hnsw.iterative_scan = relaxed_order")
        except psycopg.Error as exc:
            log.info("no iterative HNSW scans on this server (%s)", exc)

    def _migrate(self, conn: psycopg.Connection[Any]) -> str:
        """Create the schema and apply pending migrations; returns the vector extension's
        schema (put on every connection's search path so the ``vector`` type resolves)."""
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            try:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except psycopg.errors.InsufficientPrivilege:
                raise StoreError(
                    "the database lacks the pgvector extension and this user may not create "
                    "it; ask an administrator to run `CREATE EXTENSION vector;` in it once"
                ) from None
            row = conn.execute(
                "SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'vector'"
            ).fetchone()
            ext_schema = str(row[0]) if row else "public"
            schema = sql.Identifier(self._schema)
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(schema))
            conn.execute(
                sql.SQL("SET LOCAL search_path TO {}, {}").format(
                    schema, sql.Identifier(ext_schema)
                )
            )
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            found = conn.execute("SELECT version FROM schema_version").fetchone()
            version = int(found[0]) if found else 0
            if version > LATEST_VERSION:
                raise StoreError(
                    f"the store {redact(self._url)!r} (schema {self._schema}) has schema "
                    f"version {version}, newer than this remem understands ({LATEST_VERSION}); "
                    "upgrade remem"
                )
            for number, _title, script in MIGRATIONS:
                if number > version:
                    conn.execute(script)  # our own constant SQL
                    version = number
            conn.execute("DELETE FROM schema_version")
            conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (version,))
        return ext_schema

    # ---------------------------------------------------------------- transactions
    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("the store is closed; open a new one")

    def _unavailable(self, exc: Exception) -> StoreError:
        return StoreError(
            f"the PostgreSQL store at {redact(self._url)!r} is unavailable: "
            f"{' '.join(str(exc).split())}; check that the server runs and accepts connections"
        )

    def _tx_conn(self) -> psycopg.Connection[Any] | None:
        """The connection of the transaction this thread has open, if any."""
        return getattr(self._open_tx, "conn", None)

    def _statement_rows(self, statement: str, params: Sequence[Any]) -> list[Any]:
        """``_one_statement`` for a statement that writes several records (a group commit's,
        ``group_commit.py``): every row it returns. A deadlock is raised as psycopg's error,
        not as the store being unavailable: the group's writes then run again alone."""
        self._check_open()
        try:
            with self._pool.connection() as conn:
                return conn.execute(statement, params).fetchall()
        except psycopg.errors.TransactionRollback:
            raise
        except psycopg.OperationalError as exc:
            raise self._unavailable(exc) from None

    def _one_statement(self, statement: str, params: Sequence[Any]) -> Any:
        """One statement that is a whole write (it counts itself, ``COUNT_WRITE``'s way) as
        a transaction of its own: sent in autocommit, so no BEGIN or COMMIT goes out or runs
        (issue 47: two statements fewer for the client and the server on every message).
        PostgreSQL commits it when it ends and rolls all of it back on any error, as a
        transaction would; its first row, or None."""
        self._check_open()
        try:
            with self._pool.connection() as conn:
                return conn.execute(statement, params).fetchone()
        except psycopg.OperationalError as exc:
            raise self._unavailable(exc) from None

    @contextmanager
    def write(self) -> Iterator[psycopg.Connection[Any]]:
        """One transaction; rolled back entirely if the body raises. Counts the write in
        its shard's row (``COUNT_WRITE``: no other running writer's). In pipeline mode (see
        the module's docstring): a statement's error may surface at a later statement's
        result or at the commit, and rolls everything back all the same. Inside this thread's
        open ``transaction()``: a savepoint of it instead (an error undoes this write alone,
        and the transaction commits or rolls back everything at its end)."""
        self._check_open()
        conn = self._tx_conn()
        try:
            if conn is not None:
                with conn.transaction():  # nested: a savepoint
                    yield conn
                return
            with self._pool.connection() as conn:
                yield from self._pipelined_write(conn)
        except psycopg.OperationalError as exc:
            raise self._unavailable(exc) from None

    @staticmethod
    def _pipelined_write(conn: psycopg.Connection[Any]) -> Iterator[psycopg.Connection[Any]]:
        """BEGIN, the change token, the body and COMMIT in one pipeline, synced once at the
        end. (psycopg's ``conn.transaction()`` syncs after BEGIN and before COMMIT in
        pipeline mode: two more round trips.) Anything short of a returned COMMIT rolls
        back."""
        committed = False
        try:
            with conn.pipeline():
                conn.execute("BEGIN")
                conn.execute(COUNT_WRITE)  # first: see COUNT_WRITE
                yield conn
                conn.execute("COMMIT")
            committed = True  # the pipeline has synced: the COMMIT has returned
        finally:
            if not committed and conn.info.transaction_status != TransactionStatus.IDLE:
                conn.rollback()

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """Several writes as one (``Store.transaction``): one transaction on one pooled
        connection, serialised with every other ``transaction()`` on this store by an
        advisory lock; an exception rolls all of it back, and so does the server when the
        process dies before the end."""
        self._check_open()
        if self._tx_conn() is not None:
            with self.write():  # nested: a savepoint of the open one
                yield self
            return
        try:
            with self._pool.connection() as conn, conn.transaction():
                conn.execute(
                    "SELECT pg_advisory_xact_lock(%s, hashtext(current_schema()))",
                    (_TRANSACTION_LOCK,),
                )
                conn.execute(COUNT_WRITE)  # before anything else: see COUNT_WRITE
                self._open_tx.conn = conn
                try:
                    yield self
                finally:
                    self._open_tx.conn = None
        except psycopg.OperationalError as exc:
            raise self._unavailable(exc) from None

    @contextmanager
    def read(self) -> Iterator[psycopg.Connection[Any]]:
        """One snapshot for several SELECTs (inside this thread's open ``transaction()``:
        that transaction, which sees its own writes)."""
        self._check_open()
        open_tx = self._tx_conn()
        if open_tx is not None:
            yield open_tx
            return
        try:
            # pipelined: the BEGIN goes out with the first SELECT
            with self._pool.connection() as conn, conn.pipeline():
                conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                try:
                    yield conn
                finally:
                    conn.execute("COMMIT")
        except psycopg.OperationalError as exc:
            raise self._unavailable(exc) from None

    def query(self, statement: Any, params: Any = ()) -> list[Any]:
        """All rows of one SELECT."""
        self._check_open()
        open_tx = self._tx_conn()
        if open_tx is not None:
            return open_tx.execute(statement, params).fetchall()
        try:
            with self._pool.connection() as conn:
                return conn.execute(statement, params).fetchall()
        except psycopg.OperationalError as exc:
            raise self._unavailable(exc) from None

    @staticmethod
    def _bump_rev(conn: psycopg.Connection[Any]) -> int:
        """This transaction's revision (``REV``), after the lock that makes the writes which
        ask for one (updates, vectors: not a new record's ``_insert_one``) take turns, so
        vectors' ``seq`` values commit in order (``index_delta`` reads them by seq)."""
        row = conn.execute(
            "SELECT pg_advisory_xact_lock(%s, hashtext(current_schema())), " + REV,
            (_REVISION_LOCK,),
        ).fetchone()
        return int(row[1])  # type: ignore[index]

    @staticmethod
    def _current_rev(c: psycopg.Connection[Any]) -> int:
        """The revision every later-committing write is stamped above (``CURRENT_REV``)."""
        row = c.execute(CURRENT_REV).fetchone()
        return int(row[0])  # type: ignore[index]

    def _stats_storage(self, c: psycopg.Connection[Any]) -> StorageStats:
        size = c.execute(SCHEMA_BYTES_SQL).fetchone()[0]  # type: ignore[index]
        return {"file_bytes": int(size), "path": f"{redact(self._url)} (schema {self._schema})"}

    # ---------------------------------------------------------------- lifecycle
    @property
    def path(self) -> Path | None:
        return None  # a server, not a file

    @property
    def index_root(self) -> Path | None:
        return None  # pgvector's own index

    @property
    def url(self) -> str:
        return self._url

    def schema_version(self) -> int:
        return int(self.query_one("SELECT version FROM schema_version")[0])

    def change_token(self) -> tuple[int, int]:
        """Changes whenever any process commits a write to this store."""
        row = self.query_one(
            "SELECT (SELECT sum(writes) FROM write_counts), "
            "(SELECT value FROM counters WHERE name = 'deletes')"
        )
        return int(row[0]), int(row[1])

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._pool.close()

    # ---------------------------------------------------------------- meta
    def meta_add(self, namespace: str, key: str, amount: int) -> int:
        """Add to an integer counter kept in the meta table; returns the new value."""
        with self.write() as c:
            row = c.execute(
                "INSERT INTO meta (namespace, key, value) VALUES (%s, %s, %s) "
                "ON CONFLICT (namespace, key) DO UPDATE "
                "SET value = (meta.value::bigint + %s)::text RETURNING value",
                (namespace, key, str(amount), amount),
            ).fetchone()
            return int(row[0])  # type: ignore[index]

    # ---------------------------------------------------------------- stats
