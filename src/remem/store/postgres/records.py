"""Records in the PostgreSQL store: insert, read, update, delete."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import psycopg

from remem.errors import ValidationError
from remem.store import facts_sql
from remem.store.memory.lexical_index import terms
from remem.store.postgres.connection import REV, PostgresConnection
from remem.store.postgres.filters import RECORD_COLUMNS
from remem.store.postgres.lexical import ADD_TERMS, TERM_ROWS, LexicalWriter, tsvector_text
from remem.store.records_sql import InsertBatch, SQLRecords
from remem.store.rows import INSERT_FIELDS, column_value
from remem.store.sql_dialect import POSTGRES
from remem.types import Record

_INSERT = (
    f"INSERT INTO records ({', '.join(INSERT_FIELDS)}, rev, updated_at) "
    f"VALUES ({', '.join(['%s'] * (len(INSERT_FIELDS) + 2))}) "
    "ON CONFLICT (id) DO NOTHING RETURNING rowid"
)
# The same, also marking the record as waiting for its facts when the last parameter is true:
# one statement, so the mark costs no wait for the server of its own
_INSERT_AWAITING_FACTS = (
    f"WITH r AS ({_INSERT}), "
    "b AS (INSERT INTO facts_backlog (record_rowid) SELECT rowid FROM r WHERE %s) "
    "SELECT rowid FROM r"
)


# One record written by one statement (``_insert_one``): the record stamped with its
# transaction's revision, its mark in the facts backlog, its lexical row and the statistics
# BM25 keeps, each of the last three only when the record was written (an id taken: nothing),
# and the write counted: the statistics and the count in this transaction's shard. Sent as
# a transaction of its own (``_one_statement``: no BEGIN or COMMIT), the write waits for the
# server once, and for no other writer's row lock (schema version 11).
_INSERT_ONE = (
    # the shard (this store's writer mark, see ``COUNT_WRITE``) before the id: the fenced
    # subquery's row is made before the projection over it asks for the id
    f"WITH v AS (SELECT w.shard, {REV} AS value "
    "FROM (SELECT write_shard() AS shard OFFSET 0) w), "
    f"r AS (INSERT INTO records ({', '.join(INSERT_FIELDS)}, rev, updated_at) "
    f"VALUES ({', '.join(['%s'] * len(INSERT_FIELDS))}, (SELECT value FROM v), %s) "
    "ON CONFLICT (id) DO NOTHING RETURNING rowid), "
    "b AS (INSERT INTO facts_backlog (record_rowid) SELECT rowid FROM r WHERE %s), "
    "l AS (INSERT INTO lexical (rowid, tok, ctx, doc, len) SELECT rowid, "
    "string_to_array(%s, ' '), string_to_array(%s, ' '), %s::tsvector, %s FROM r), "
    f"t AS (INSERT INTO lexical_terms (term, shard, df_tok, df_any) {TERM_ROWS} "
    f"WHERE EXISTS (SELECT 1 FROM r) {ADD_TERMS}), "
    "c AS (UPDATE write_counts SET writes = writes + 1, "
    "lex_rows = lex_rows + CASE WHEN EXISTS (SELECT 1 FROM r) THEN %s ELSE 0 END, "
    "lex_terms = lex_terms + CASE WHEN EXISTS (SELECT 1 FROM r) THEN %s ELSE 0 END "
    "WHERE shard = (SELECT shard FROM v)) "
    "SELECT rowid FROM r"
)


def _taken(record_id: str) -> ValidationError:
    return ValidationError(
        "id",
        record_id,
        "a record with this id exists; choose another id or delete the old record first",
    )


class RecordsMixin(SQLRecords, PostgresConnection):
    """Insert, read, update and delete records."""

    def _insert_one(self, batch: InsertBatch) -> list[int | None] | None:
        """One record outside an open transaction, without a session's origin or parent to
        record: ``_INSERT_ONE``, committed when it returns; a taken id (refused without
        ``skip``) has then changed nothing but the write count."""
        rows = batch.rows
        fields = rows[0][0] if len(rows) == 1 else {}
        if (
            len(rows) != 1
            or fields.get("origin_platform")
            or fields.get("parent_session")
            or self._tx_conn() is not None
        ):
            return None
        own, ctx = terms(rows[0][1]), terms(rows[0][2] if len(rows[0]) > 2 else "")
        stats = LexicalWriter()
        stats.add(0, own, ctx)
        by_term = stats.term_deltas()
        params = [column_value(fields, col) for col in INSERT_FIELDS] + [
            batch.now,
            batch.awaiting_facts and fields.get("index_status") != "skipped",
            " ".join(own),
            " ".join(ctx),
            tsvector_text(own, ctx),
            len(own) + len(ctx),
            list(by_term),
            [d[0] for d in by_term.values()],
            [d[1] for d in by_term.values()],
            1,
            len(own) + len(ctx),
        ]
        got = self._one_statement(_INSERT_ONE, params)
        if got is None and not batch.skip:
            raise _taken(fields["id"])
        return [None if got is None else int(got[0])]

    def _insert_rows(
        self, c: psycopg.Connection[Any], batch: InsertBatch, rev: int
    ) -> list[int | None]:
        rows, now, skip = batch.rows, batch.now, batch.skip
        out: list[int | None] = []
        params = [[column_value(row[0], col) for col in INSERT_FIELDS] + [rev, now] for row in rows]
        sql = _INSERT
        if batch.awaiting_facts:
            sql = _INSERT_AWAITING_FACTS
            for values, row in zip(params, rows, strict=True):
                values.append(row[0].get("index_status") != "skipped")
        with c.cursor() as cur:
            cur.executemany(sql, params, returning=True)
            for row in rows:
                got = cur.fetchone()
                if got is None and not skip:
                    raise _taken(row[0]["id"])
                out.append(None if got is None else int(got[0]))
                cur.nextset()
        lexical = LexicalWriter()
        lexical.insert(
            c,
            [
                (rowid, row[1], row[2] if len(row) > 2 else "")
                for rowid, row in zip(out, rows, strict=True)
                if rowid is not None
            ],
        )
        lexical.flush(c)
        return out

    # ---------------------------------------------------------------- reads
    def _neighbour_rows(
        self, anchors: Sequence[Record], before: int, after: int, keep: str, params: list[Any]
    ) -> Iterator[tuple[int, Sequence[Any]]]:
        arrays = [
            [r.rowid for r in anchors],
            [r.session for r in anchors],
            [r.created_at for r in anchors],
        ]
        for op, order, limit in (("<", "DESC", before), (">", "ASC", after)):
            if limit <= 0:
                continue
            rows = self.query(
                f"SELECT a.anchor, x.* FROM unnest(%s::bigint[], %s::text[], %s::float8[]) "
                "WITH ORDINALITY AS a(anchor, session, t, ord) CROSS JOIN LATERAL ("
                f"SELECT {RECORD_COLUMNS}, row_number() OVER "
                f"(ORDER BY r.created_at {order}, r.rowid {order}) AS pos FROM records r "
                f"WHERE r.session = a.session AND (r.created_at, r.rowid) {op} (a.t, a.anchor) "
                f"AND {keep} ORDER BY r.created_at {order}, r.rowid {order} LIMIT %s) x "
                "ORDER BY a.ord, x.pos",
                [*arrays, *params, limit],
            )
            for row in rows:
                yield int(row[0]), row[1:-1]  # without the position

    # ---------------------------------------------------------------- updates
    def _replace_tokens(self, c: psycopg.Connection[Any], rowid: int, tokens: str) -> None:
        """The record's own tokens (its context stays)."""
        old = c.execute("SELECT ctx FROM lexical WHERE rowid = %s", (rowid,)).fetchone()
        if old is not None:
            lexical = LexicalWriter()
            lexical.forget(c, [rowid])
            lexical.insert(c, [(rowid, tokens, " ".join(old[0]))])
            lexical.flush(c)

    # ---------------------------------------------------------------- deletes
    def delete(self, record_ids: Sequence[str]) -> int:
        """Delete records (and their vectors, lexical rows and claims), and in the same
        transaction what they mean to facts (``FactStore``). Returns how many existed."""
        if not record_ids:
            return 0
        lexical = LexicalWriter()
        with self.write() as c:
            rowids = [
                int(r[0])
                for r in c.execute(
                    "SELECT rowid FROM records WHERE id = ANY(%s::text[]) ORDER BY rowid FOR UPDATE",
                    (list(record_ids),),
                )
            ]
            if rowids:
                lexical.forget(c, rowids)
                lexical.flush(c)
                c.execute("DELETE FROM records WHERE rowid = ANY(%s::bigint[])", (rowids,))
                self._bump_deletes(c)
            facts_sql.forget_records(c, POSTGRES, record_ids)
        return len(rowids)
