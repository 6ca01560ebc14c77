"""What the shared SQL of ``remem.store`` needs of a SQL backend's connection class.

``SQLiteConnection`` and ``PostgresConnection`` both derive from ``SQLConnection`` and
implement it; the mixins written once over an ``SQLDialect`` (``records_sql.SQLRecords``,
``sessions_sql.SQLSessions``, ``vectors_sql.SQLVectors``) derive from it too, so in a
store class the backend's connection supplies these methods to them. The meta table's reads
and writes are written here once.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, ClassVar, Literal

from remem.store.rows import row_to_record
from remem.store.sql_dialect import SQLDialect
from remem.store.stats import GroupCounts, StorageStats, StoreStats, record_groups, sum_groups
from remem.types import Record

Counter = Literal["rev", "deletes", "records", "commits"]


def counter(c: Any, name: Counter) -> int:
    """A value of the ``counters`` table (read in ``c``)."""
    return int(c.execute(f"SELECT value FROM counters WHERE name = '{name}'").fetchone()[0])


class SQLConnection:
    _sql: ClassVar[SQLDialect]  # the backend's dialect
    # statements ``stats`` asks that differ by backend: the record count, the vectors per
    # model and dim (SQLite reads both from trigger-kept counts), the schema version
    _STATS_RECORDS: ClassVar[str]
    _STATS_VECTORS: ClassVar[str]
    _STATS_SCHEMA: ClassVar[str]

    def write(self) -> AbstractContextManager[Any]:
        """One write transaction (or a savepoint of this thread's open one)."""
        raise NotImplementedError

    def read(self) -> AbstractContextManager[Any]:
        """One snapshot to read from (inside a transaction: that transaction)."""
        raise NotImplementedError

    def query(self, sql: Any, params: Any = ()) -> list[Any]:
        """All rows of one statement."""
        raise NotImplementedError

    def _records(self, tail: str, params: Any = ()) -> list[Record]:
        """The records of ``SELECT <record columns> FROM records r <tail>`` (written with
        ``?`` marks, or holding the dialect's own)."""
        d = self._sql
        rows = self.query(d.sql(f"SELECT {d.columns} FROM records r {tail}"), params)
        return [row_to_record(row) for row in rows]

    def _column(self, statement: str, params: Any = ()) -> list[Any]:
        """The first value of every row of one statement written with ``?`` marks."""
        return [row[0] for row in self.query(self._sql.sql(statement), params)]

    def query_one(self, sql: Any, params: Any = ()) -> Any:
        """The first row of one statement, or None."""
        rows = self.query(sql, params)
        return rows[0] if rows else None

    @staticmethod
    def _bump_rev(c: Any) -> int:
        """The next revision number (inside the caller's write)."""
        raise NotImplementedError

    @staticmethod
    def _current_rev(c: Any) -> int:
        """The revision a reader has seen everything up to (read in its snapshot ``c``):
        every write that commits later stamps a higher one."""
        return counter(c, "rev")

    def _stats_storage(self, c: Any) -> StorageStats:
        """``file_bytes`` and ``path`` for ``stats`` (read in its snapshot ``c``)."""
        raise NotImplementedError

    @staticmethod
    def _bump_deletes(c: Any) -> None:
        """Count a delete: in-memory indexes built before it reload."""
        c.execute("UPDATE counters SET value = value + 1 WHERE name = 'deletes'")

    # ---------------------------------------------------------------- meta
    def meta_get(self, namespace: str, key: str) -> str | None:
        row = self.query_one(
            self._sql.sql("SELECT value FROM meta WHERE namespace = ? AND key = ?"),
            (namespace, key),
        )
        return row[0] if row else None

    def meta_set(self, namespace: str, key: str, value: str | None) -> None:
        with self.write() as c:
            if value is None:
                c.execute(
                    self._sql.sql("DELETE FROM meta WHERE namespace = ? AND key = ?"),
                    (namespace, key),
                )
            else:
                c.execute(
                    self._sql.sql(
                        "INSERT INTO meta (namespace, key, value) VALUES (?, ?, ?) "
                        "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value"
                    ),
                    (namespace, key, value),
                )

    # ---------------------------------------------------------------- stats
    def stats(self) -> StoreStats:
        with self.read() as c:

            def one(statement: str) -> Any:
                return c.execute(statement).fetchone()[0]

            def group(columns: tuple[str, ...]) -> GroupCounts:
                listed = ", ".join(columns)  # constants of stats.py, never input
                rows = c.execute(f"SELECT {listed}, count(*) FROM records GROUP BY {listed}")
                return sum_groups(columns, rows)

            dropped = c.execute(
                "SELECT value FROM meta WHERE namespace = 'indexing' AND key = 'dropped'"
            ).fetchone()
            return {
                "records": one(self._STATS_RECORDS),
                **record_groups(group),
                "vectors": [
                    {"model_id": m, "dim": d, "count": n}
                    for m, d, n in c.execute(self._STATS_VECTORS)
                ],
                "index_errors": one(
                    "SELECT count(*) FROM records WHERE index_error IS NOT NULL "
                    "AND index_status != 'skipped'"
                ),
                "queue_dropped_total": int(dropped[0]) if dropped else 0,
                "sessions": one(
                    "SELECT count(DISTINCT session) FROM records WHERE session IS NOT NULL"
                ),
                "facts": one("SELECT count(*) FROM facts"),
                "schema_version": one(self._STATS_SCHEMA),
                **self._stats_storage(c),
            }
