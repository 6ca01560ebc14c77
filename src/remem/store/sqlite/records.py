"""Records and sessions in the SQLite store."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from remem.errors import ConflictError
from remem.store import facts_sql
from remem.store.records_sql import InsertBatch, SQLRecords
from remem.store.rows import INSERT_FIELDS, column_value
from remem.store.sql_dialect import SQLITE
from remem.store.sqlite.connection import SQLiteConnection
from remem.store.sqlite.filters import RECORD_COLUMNS, filters_sql, in_marks
from remem.types import Filters, Record


class RecordsMixin(SQLRecords, SQLiteConnection):
    """Insert, read, update and delete records."""

    def _insert_rows(self, c: sqlite3.Connection, batch: InsertBatch, rev: int) -> list[int | None]:
        out: list[int | None] = []
        sql = (
            f"INSERT INTO records ({','.join(INSERT_FIELDS)}, rev, updated_at) "
            f"VALUES ({in_marks((*INSERT_FIELDS, 'rev', 'updated_at'))})"
        )
        for row in batch.rows:
            fields, tokens = row[0], row[1]
            context = row[2] if len(row) > 2 else ""
            values = [column_value(fields, col) for col in INSERT_FIELDS]
            try:
                cur = c.execute(sql, [*values, rev, batch.now])
            except sqlite3.IntegrityError as exc:
                if "UNIQUE" in str(exc) and "records.id" in str(exc):
                    if batch.skip:
                        out.append(None)
                        continue
                    raise ConflictError(
                        "id",
                        fields["id"],
                        "a record with this id exists; choose another id "
                        "or delete the old record first",
                    ) from None
                raise
            c.execute(
                "INSERT INTO records_fts (rowid, tokens, context) VALUES (?, ?, ?)",
                (cur.lastrowid, tokens, context),
            )
            if batch.awaiting_facts and fields.get("index_status") != "skipped":
                c.execute("INSERT INTO facts_backlog (record_rowid) VALUES (?)", (cur.lastrowid,))
            out.append(cur.lastrowid)
        return out

    # ---------------------------------------------------------------- reads
    def _neighbour_rows(
        self, anchors: Sequence[Record], before: int, after: int, keep: str, params: list[Any]
    ) -> Iterator[tuple[int, Sequence[Any]]]:
        # One compound statement (two index-ordered, LIMITed lookups per record) instead of
        # two round trips per record: the statement count, not the lookups, was the cost.
        parts: list[str] = []
        args: list[Any] = []
        for rec in anchors[:200]:  # stays under SQLite's 500-term compound limit
            for op, order, limit in (("<", "DESC", before), (">", "ASC", after)):
                if limit <= 0:
                    continue
                parts.append(
                    f"SELECT * FROM (SELECT ? AS anchor, {RECORD_COLUMNS} FROM records r "
                    f"WHERE r.session = ? AND (r.created_at, r.rowid) {op} (?, ?) AND {keep} "
                    f"ORDER BY r.created_at {order}, r.rowid {order} LIMIT ?)"
                )
                args += [rec.rowid, rec.session, rec.created_at, rec.rowid, *params, limit]
        if parts:
            for row in self.query(" UNION ALL ".join(parts), args):
                yield row[0], row[1:]

    def count(self, filters: Filters | None = None, *, up_to: int | None = None) -> int:
        if filters_sql(filters)[0]:
            return super().count(filters, up_to=up_to)
        # kept by triggers (schema 7): no scan
        n = int(self.query_one("SELECT value FROM counters WHERE name = 'records'")[0])
        return n if up_to is None else min(n, up_to)

    # ---------------------------------------------------------------- updates
    def _replace_tokens(self, c: sqlite3.Connection, rowid: int, tokens: str) -> None:
        c.execute("UPDATE records_fts SET tokens = ? WHERE rowid = ?", (tokens, rowid))

    # ---------------------------------------------------------------- deletes
    def delete(self, record_ids: Sequence[str]) -> int:
        """Delete records (and their vectors and lexical rows), and in the same transaction
        what they mean to facts (``FactStore``). Returns how many existed."""
        deleted = 0
        if not record_ids:
            return deleted
        with self.write() as c:
            for chunk in SQLITE.chunks(record_ids):
                sql = f"SELECT rowid FROM records WHERE id IN ({in_marks(chunk)})"
                rowids = [r[0] for r in c.execute(sql, chunk)]
                if not rowids:
                    continue
                marks = in_marks(rowids)
                c.execute(f"DELETE FROM records_fts WHERE rowid IN ({marks})", rowids)
                c.execute(f"DELETE FROM vectors WHERE record_rowid IN ({marks})", rowids)
                c.execute(f"DELETE FROM records WHERE rowid IN ({marks})", rowids)
                deleted += len(rowids)
            facts_sql.forget_records(c, SQLITE, record_ids)
            if deleted:
                self._bump_deletes(c)
        return deleted
