"""Records in the PostgreSQL store: insert, read, update, delete."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg

from remem.errors import ValidationError
from remem.store import facts_sql
from remem.store.base import ContextMoved, PreviousTurn, RecordRow
from remem.store.memory.lexical_index import terms
from remem.store.postgres.connection import REV, PostgresConnection
from remem.store.postgres.filters import RECORD_COLUMNS
from remem.store.postgres.lexical import (
    ADD_TERMS,
    TERM_ROWS,
    LexicalWriter,
    term_rows,
    tsvector_text,
)
from remem.store.records_sql import InsertBatch, SQLRecords
from remem.store.rows import INSERT_FIELDS, check_enums, column_value
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
#
# ``assuming``: the writer took the message's context from the turn it wrote last in the
# session instead of reading it (``ContextCheckingStore``): the statement first checks that
# that turn, unchanged, is still the session's latest before this one, and writes (and
# counts) nothing when it is not. A cast on every value: an INSERT ... SELECT does not type
# its parameters from the columns as VALUES does.
_REAL = frozenset({"importance", "created_at", "event_time", "valid_from", "valid_to"})
_PREVIOUS_TURN = (
    "SELECT rowid, content_hash FROM records WHERE session = %s AND created_at < %s "
    "AND index_status <> 'skipped' ORDER BY created_at DESC, rowid DESC LIMIT 1"
)


def _insert_one_sql(assuming: bool) -> str:
    if assuming:
        checked = (
            f"ok AS (SELECT EXISTS (SELECT 1 FROM ({_PREVIOUS_TURN}) p "
            "WHERE p.rowid = %s AND p.content_hash = %s) AS fine), "
        )
        values = ", ".join(
            f"%s::{'double precision' if col in _REAL else 'text'}" for col in INSERT_FIELDS
        )
        insert = (
            f"SELECT {values}, (SELECT value FROM v), %s::double precision "
            "WHERE (SELECT fine FROM ok)"
        )
        counted, result = (
            "CASE WHEN (SELECT fine FROM ok) THEN 1 ELSE 0 END",
            ("SELECT (SELECT rowid FROM r), (SELECT fine FROM ok)"),
        )
    else:
        checked = ""
        insert = f"VALUES ({', '.join(['%s'] * len(INSERT_FIELDS))}, (SELECT value FROM v), %s)"
        counted, result = "1", "SELECT rowid FROM r"
    return (
        # the shard (this store's writer mark, see ``COUNT_WRITE``) before the id: the fenced
        # subquery's row is made before the projection over it asks for the id
        f"WITH {checked}v AS (SELECT w.shard, {REV} AS value "
        "FROM (SELECT write_shard() AS shard OFFSET 0) w), "
        f"r AS (INSERT INTO records ({', '.join(INSERT_FIELDS)}, rev, updated_at) {insert} "
        "ON CONFLICT (id) DO NOTHING RETURNING rowid), "
        "b AS (INSERT INTO facts_backlog (record_rowid) SELECT rowid FROM r WHERE %s), "
        "l AS (INSERT INTO lexical (rowid, tok, ctx, doc, len) SELECT rowid, "
        "string_to_array(%s, ' '), string_to_array(%s, ' '), %s::tsvector, %s FROM r), "
        f"t AS (INSERT INTO lexical_terms (term, shard, df_tok, df_any) {TERM_ROWS} "
        f"WHERE EXISTS (SELECT 1 FROM r) {ADD_TERMS}), "
        f"c AS (UPDATE write_counts SET writes = writes + {counted}, "
        "lex_rows = lex_rows + CASE WHEN EXISTS (SELECT 1 FROM r) THEN %s ELSE 0 END, "
        "lex_terms = lex_terms + CASE WHEN EXISTS (SELECT 1 FROM r) THEN %s ELSE 0 END "
        "WHERE shard = (SELECT shard FROM v)) "
        f"{result}"
    )


_INSERT_ONE = _insert_one_sql(assuming=False)
_INSERT_ASSUMING = _insert_one_sql(assuming=True)


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
        if len(rows) != 1 or not self._alone(rows[0][0]):
            return None
        got = self._one_statement(_INSERT_ONE, self._one_params(batch))
        if got is None and not batch.skip:
            raise _taken(rows[0][0]["id"])
        return [None if got is None else int(got[0])]

    def insert_assuming(
        self, row: RecordRow, previous: PreviousTurn, *, awaiting_facts: bool = False
    ) -> int | None:
        """See ``ContextCheckingStore.insert_assuming``: a taken id is skipped (None)."""
        fields = row[0]
        check_enums(fields)
        if not self._alone(fields):
            raise ContextMoved("a message that names its session's origin or parent")
        batch = InsertBatch([row], time.time(), True, awaiting_facts)
        check = [fields["session"], fields["created_at"], previous.rowid, previous.content_hash]
        got = self._one_statement(_INSERT_ASSUMING, check + self._one_params(batch))
        if got is None or not got[1]:
            raise ContextMoved(f"the turn before it in session {fields['session']!r} changed")
        return None if got[0] is None else int(got[0])

    def _alone(self, fields: dict[str, Any]) -> bool:
        """One record this statement can write: no session origin or parent to record, and
        not inside this thread's open transaction."""
        return (
            not fields.get("origin_platform")
            and not fields.get("parent_session")
            and self._tx_conn() is None
        )

    @staticmethod
    def _one_params(batch: InsertBatch) -> list[Any]:
        """The parameters of ``_INSERT_ONE`` (after the check's, for ``_INSERT_ASSUMING``)."""
        row = batch.rows[0]
        fields = row[0]
        own, ctx = terms(row[1]), terms(row[2] if len(row) > 2 else "")
        stats = LexicalWriter()
        stats.add(0, own, ctx)
        by_term = stats.term_deltas()
        return [column_value(fields, col) for col in INSERT_FIELDS] + [
            batch.now,
            batch.awaiting_facts and fields.get("index_status") != "skipped",
            " ".join(own),
            " ".join(ctx),
            tsvector_text(own, ctx),
            len(own) + len(ctx),
            *term_rows(by_term),
            1,  # lex_rows: one lexical row
            len(own) + len(ctx),
        ]

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
