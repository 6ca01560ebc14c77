"""Records in the PostgreSQL store: insert, read, update, delete."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from remem.errors import ConflictError
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

# Several records' writes as one statement (``_records_together``): the group commit's
# transaction, in autocommit like ``_INSERT_ONE``, so one wait for the server and one commit
# for all of them. Every column travels as an array (``i``: a row per write, in arrival
# order); each write's check (``_INSERT_ASSUMING``'s, none when ``prev`` is NULL) decides
# whether it is written; the lexical rows, the facts marks and the term statistics are made
# for the records written (a taken id or a failed check writes nothing), the statistics
# added up per term in one upsert. A group holds no two writes of one id or one session
# (``_OneRecord.keys``): a write's check would not see the row of another in the same
# statement. Returns (position, rowid or NULL, check passed) per write.
_I_COLUMNS = [
    *((col, "double precision" if col in _REAL else "text") for col in INSERT_FIELDS),
    ("now", "double precision"),
    ("awaiting", "boolean"),
    ("own", "text"),  # the record's tokens, space-joined
    ("ctx", "text"),  # its context's
    ("doc", "text"),  # the tsvector literal
    ("len", "integer"),
    ("tok_terms", "text"),  # its own distinct terms: df_tok and df_any
    ("ctx_terms", "text"),  # its context's terms not its own: df_any only
    ("prev", "bigint"),  # the turn the write assumes is the latest before it, or NULL
    ("prev_hash", "text"),
]
_INSERT_GROUP = (
    "WITH v AS (SELECT w.shard, " + REV + " AS value "
    "FROM (SELECT write_shard() AS shard OFFSET 0) w), "
    "i AS (SELECT * FROM unnest("
    + ", ".join(f"%s::{kind}[]" for _, kind in _I_COLUMNS)
    + ") WITH ORDINALITY AS i("
    + ", ".join(f'"{name}"' for name, _ in _I_COLUMNS)
    + ", ord)), "
    "ok AS (SELECT i.ord, i.prev IS NULL OR EXISTS (SELECT 1 FROM ("
    "SELECT rowid, content_hash FROM records q WHERE q.session = i.session "
    "AND q.created_at < i.created_at AND q.index_status <> 'skipped' "
    "ORDER BY q.created_at DESC, q.rowid DESC LIMIT 1) p "
    "WHERE p.rowid = i.prev AND p.content_hash = i.prev_hash) AS fine FROM i), "
    f"r AS (INSERT INTO records ({', '.join(INSERT_FIELDS)}, rev, updated_at) "
    f"SELECT {', '.join(f'i.{col}' for col in INSERT_FIELDS)}, (SELECT value FROM v), i.now "
    "FROM i JOIN ok ON ok.ord = i.ord WHERE ok.fine ORDER BY i.ord "
    "ON CONFLICT (id) DO NOTHING RETURNING rowid, id), "
    "written AS (SELECT r.rowid, i.* FROM r JOIN i ON i.id = r.id), "
    "b AS (INSERT INTO facts_backlog (record_rowid) SELECT rowid FROM written WHERE awaiting), "
    "l AS (INSERT INTO lexical (rowid, tok, ctx, doc, len) SELECT rowid, "
    "string_to_array(own, ' '), string_to_array(ctx, ' '), doc::tsvector, len FROM written), "
    "t AS (INSERT INTO lexical_terms (term, shard, df_tok, df_any) "
    "SELECT u.term, (SELECT shard FROM v), sum(u.tok), count(*) FROM written CROSS JOIN "
    "LATERAL (SELECT x, 1 FROM unnest(string_to_array(written.tok_terms, ' ')) x UNION ALL "
    "SELECT x, 0 FROM unnest(string_to_array(written.ctx_terms, ' ')) x) u(term, tok) "
    f"WHERE u.term <> '' GROUP BY u.term ORDER BY u.term {ADD_TERMS}), "
    "c AS (UPDATE write_counts SET writes = writes + (SELECT count(*) FROM i), "
    "lex_rows = lex_rows + (SELECT count(*) FROM written), "
    "lex_terms = lex_terms + (SELECT coalesce(sum(len), 0) FROM written) "
    "WHERE shard = (SELECT shard FROM v)) "
    "SELECT i.ord, r.rowid, ok.fine FROM i JOIN ok ON ok.ord = i.ord "
    "LEFT JOIN r ON r.id = i.id ORDER BY i.ord"
)


@dataclass(frozen=True)
class _OneRecord:
    """One record's write, alone or in a group (``group_commit.py``): the row, the turn it
    assumes is its session's latest before it (``insert_assuming``; None: none), its time
    and whether it goes into the facts backlog."""

    row: RecordRow
    previous: PreviousTurn | None
    now: float
    awaiting_facts: bool

    def values(self) -> tuple[list[Any], list[str], list[str]]:
        """(the record's columns, its time, its facts mark, its tokens and context
        space-joined, its tsvector and length: the parameters ``_INSERT_ONE`` and
        ``_INSERT_GROUP`` share; its own and its context's terms)."""
        fields, row = self.row[0], self.row
        own, ctx = terms(row[1]), terms(row[2] if len(row) > 2 else "")
        values = [column_value(fields, col) for col in INSERT_FIELDS] + [
            self.now,
            self.awaiting_facts and fields.get("index_status") != "skipped",
            " ".join(own),
            " ".join(ctx),
            tsvector_text(own, ctx),
            len(own) + len(ctx),
        ]
        return values, own, ctx

    def keys(self) -> tuple[Any, ...]:
        """What no two writes of one group may share (``_INSERT_GROUP``)."""
        fields = self.row[0]
        session = fields.get("session")
        return (("id", fields["id"]),) + ((("session", session),) if session else ())


def _taken(record_id: str) -> ConflictError:
    """A taken id: the error SQLite's store raises for it too."""
    return ConflictError(
        "id",
        record_id,
        "a record with this id exists; choose another id or delete the old record first",
    )


class RecordsMixin(SQLRecords, PostgresConnection):
    """Insert, read, update and delete records."""

    def _insert_one(self, batch: InsertBatch) -> list[int | None] | None:
        """One record outside an open transaction, without a session's origin or parent to
        record (``_write_one``), committed when it returns; a taken id (refused without
        ``skip``) has then changed nothing but the write count."""
        rows = batch.rows
        if len(rows) != 1 or not self._alone(rows[0][0]):
            return None
        rowid, _ = self._write_one(_OneRecord(rows[0], None, batch.now, batch.awaiting_facts))
        if rowid is None and not batch.skip:
            raise _taken(rows[0][0]["id"])
        return [rowid]

    def insert_assuming(
        self, row: RecordRow, previous: PreviousTurn, *, awaiting_facts: bool = False
    ) -> int | None:
        """See ``ContextCheckingStore.insert_assuming``: a taken id is skipped (None)."""
        fields = row[0]
        check_enums(fields)
        if not self._alone(fields):
            raise ContextMoved("a message that names its session's origin or parent")
        rowid, fine = self._write_one(_OneRecord(row, previous, time.time(), awaiting_facts))
        if not fine:
            raise ContextMoved(f"the turn before it in session {fields['session']!r} changed")
        return rowid

    def _write_one(self, item: _OneRecord) -> tuple[int | None, bool]:
        """(rowid, or None for a taken id; whether the assumed turn was the latest), once
        committed: alone, or with the writes of other threads that arrive meanwhile
        (``store.group_commit``: ``group_commit.py``)."""
        self._check_open()
        if self._groups is None:
            return self._record_alone(item)
        written: tuple[int | None, bool] = self._groups.run(
            item, self._record_alone, self._records_together
        )
        return written

    def _record_alone(self, item: _OneRecord) -> tuple[int | None, bool]:
        """One statement, a transaction of its own (``_INSERT_ONE`` / ``_INSERT_ASSUMING``)."""
        if item.previous is None:
            got = self._one_statement(_INSERT_ONE, self._one_params(item))
            return (None if got is None else int(got[0])), True
        fields, previous = item.row[0], item.previous
        check = [fields["session"], fields["created_at"], previous.rowid, previous.content_hash]
        got = self._one_statement(_INSERT_ASSUMING, check + self._one_params(item))
        if got is None or not got[1]:
            return None, False
        return (None if got[0] is None else int(got[0])), True

    def _records_together(self, items: Sequence[_OneRecord]) -> list[tuple[int | None, bool]]:
        """Several records' writes as one statement and one commit (``_INSERT_GROUP``): each
        one's (rowid, or None for a taken id; whether its check passed)."""
        columns: list[list[Any]] = [[] for _ in _I_COLUMNS]
        for item in items:
            values, own, ctx = item.values()
            own_set = dict.fromkeys(own)
            previous = item.previous
            values += [
                " ".join(own_set),
                " ".join(t for t in dict.fromkeys(ctx) if t not in own_set),
                None if previous is None else previous.rowid,
                None if previous is None else previous.content_hash,
            ]
            for column, value in zip(columns, values, strict=True):
                column.append(value)
        rows = self._statement_rows(_INSERT_GROUP, columns)
        return [(None if rowid is None else int(rowid), bool(fine)) for _, rowid, fine in rows]

    def _alone(self, fields: dict[str, Any]) -> bool:
        """One record this statement can write: no session origin or parent to record, and
        not inside this thread's open transaction."""
        return (
            not fields.get("origin_platform")
            and not fields.get("parent_session")
            and self._tx_conn() is None
        )

    @staticmethod
    def _one_params(item: _OneRecord) -> list[Any]:
        """The parameters of ``_INSERT_ONE`` (after the check's, for ``_INSERT_ASSUMING``)."""
        values, own, ctx = item.values()
        stats = LexicalWriter()
        stats.add(0, own, ctx)
        return [
            *values,
            *term_rows(stats.term_deltas()),
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
