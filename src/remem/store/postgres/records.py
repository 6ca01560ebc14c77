"""Records in the PostgreSQL store: insert, read, update, delete."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from remem.errors import ValidationError
from remem.store import facts_sql, records_sql
from remem.store.base import ANY, OnConflict, RecordRow
from remem.store.postgres.filters import RECORD_COLUMNS, filters_sql
from remem.store.postgres.lexical import LexicalWriter
from remem.store.postgres.sessions import SessionsMixin, upsert_session
from remem.store.rows import INSERT_FIELDS, check_enums, check_value, column_value, row_to_record
from remem.store.sql_dialect import POSTGRES
from remem.types import Filters, Record

_INSERT = (
    f"INSERT INTO records ({', '.join(INSERT_FIELDS)}, rev, updated_at) "
    f"VALUES ({', '.join(['%s'] * (len(INSERT_FIELDS) + 2))}) "
    "ON CONFLICT (id) DO NOTHING RETURNING rowid"
)


class RecordsMixin(SessionsMixin):
    """Insert, read, update and delete records."""

    def insert_records(
        self, rows: Sequence[RecordRow], *, on_conflict: OnConflict = "error"
    ) -> list[int | None]:
        """Insert (record fields, lexical tokens[, context tokens]) in one transaction.

        Returns the new rowids; ``None`` where ``on_conflict="skip"`` skipped an existing id.
        With ``on_conflict="error"`` an existing id aborts the whole batch (nothing written).
        """
        out: list[int | None] = []
        if not rows:
            return out
        for row in rows:
            check_enums(row[0])
        now = time.time()
        lexical = LexicalWriter()
        with self.write() as c:
            rev = self._bump_rev(c)
            params = [
                [column_value(row[0], col) for col in INSERT_FIELDS] + [rev, now] for row in rows
            ]
            with c.cursor() as cur:
                cur.executemany(_INSERT, params, returning=True)
                for row in rows:
                    got = cur.fetchone()
                    if got is None and on_conflict != "skip":
                        raise ValidationError(
                            "id",
                            row[0]["id"],
                            "a record with this id exists; choose another id "
                            "or delete the old record first",
                        )
                    out.append(None if got is None else int(got[0]))
                    cur.nextset()
            lexical.insert(
                c,
                [
                    (rowid, row[1], row[2] if len(row) > 2 else "")
                    for rowid, row in zip(out, rows, strict=True)
                    if rowid is not None
                ],
            )
            lexical.flush(c)
            for rowid, row in zip(out, rows, strict=True):
                fields = row[0]
                origin, parent = fields.get("origin_platform"), fields.get("parent_session")
                if rowid is not None and fields.get("session") and (origin or parent):
                    upsert_session(c, fields["session"], origin, parent)
        return out

    # ---------------------------------------------------------------- reads
    def get(self, record_id: str) -> Record | None:
        row = self.query_one(
            f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.id = %s", (record_id,)
        )
        return row_to_record(row) if row else None

    def rowids_for_ids(self, ids: Sequence[str]) -> list[int]:
        rows = self.query("SELECT rowid FROM records WHERE id = ANY(%s::text[])", (list(ids),))
        return [int(r[0]) for r in rows]

    def ids_with_prefix(self, prefix: str, limit: int = 20) -> list[str]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.query(
            "SELECT id FROM records WHERE id ILIKE %s ESCAPE '\\' ORDER BY id COLLATE \"C\" "
            "LIMIT %s",
            (escaped + "%", limit),
        )
        return [r[0] for r in rows]

    def ids_where(self, filters: Filters | None) -> list[str]:
        where, params = filters_sql(filters)
        return [r[0] for r in self.query(f"SELECT r.id FROM records r WHERE true{where}", params)]

    def existing_hashes(self, hashes: Sequence[str]) -> set[str]:
        rows = self.query(
            "SELECT DISTINCT content_hash FROM records WHERE content_hash = ANY(%s::text[])",
            (list(hashes),),
        )
        return {r[0] for r in rows}

    def get_by_rowids(
        self, rowids: Iterable[int], filters: Filters | None = None, now: float | None = None
    ) -> dict[int, Record]:
        """Records by rowid that still exist *and* still pass the filters (the authority)."""
        ids = list(dict.fromkeys(int(r) for r in rowids))
        if not ids:
            return {}
        where, params = filters_sql(filters, now=now)
        rows = self.query(
            f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.rowid = ANY(%s::bigint[]){where}",
            [ids, *params],
        )
        return {int(row[0]): row_to_record(row) for row in rows}

    def neighbours(
        self,
        records: Sequence[Record],
        before: int,
        after: int,
        filters: Filters | None = None,
        now: float | None = None,
        *,
        context: bool = False,
    ) -> dict[int, list[Record]]:
        """For each record (by rowid): up to ``before`` earlier and ``after`` later records of
        its session, nearest first, passing the filters (see the SQLite store for which
        records count with and without ``context``)."""
        where, params = filters_sql(filters, now=now)
        keep = (
            "r.message_kind NOT IN ('control', 'directive')"
            if context
            else "r.index_status != 'skipped'"
        )
        anchors = [r for r in records if r.session and r.rowid is not None]
        out: dict[int, list[Record]] = {r.rowid: [] for r in anchors if r.rowid is not None}
        if not anchors:
            return out
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
                f"AND {keep}{where} ORDER BY r.created_at {order}, r.rowid {order} LIMIT %s) x "
                "ORDER BY a.ord, x.pos",
                [*arrays, *params, limit],
            )
            for row in rows:
                out[int(row[0])].append(row_to_record(row[1:-1]))
        return out

    def previous_texts(self, session: str, before: float, limit: int) -> list[Record]:
        """The last ``limit`` records of a session created before ``before``, oldest first."""
        return records_sql.previous_texts(self.query, POSTGRES, session, before, limit)

    def list_records(
        self,
        filters: Filters | None = None,
        *,
        limit: int | None = 50,
        offset: int = 0,
        newest_first: bool = True,
    ) -> list[Record]:
        return records_sql.list_records(
            self.query, POSTGRES, filters, limit=limit, offset=offset, newest_first=newest_first
        )

    def iter_records(
        self, filters: Filters | None = None, batch: int = 1000, after: int = 0
    ) -> Iterator[Record]:
        """Every record passing the filters with rowid > after, in rowid order, page by page."""
        return records_sql.iter_records(self.query, POSTGRES, filters, batch, after)

    def count(self, filters: Filters | None = None, *, up_to: int | None = None) -> int:
        where, params = filters_sql(filters)
        if up_to is not None:  # the scan stops at the limit
            sql = f"SELECT count(*) FROM (SELECT 1 FROM records r WHERE true{where} LIMIT %s) s"
            return int(self.query_one(sql, [*params, up_to])[0])
        return int(self.query_one(f"SELECT count(*) FROM records r WHERE true{where}", params)[0])

    def current_memories(
        self,
        scope: str,
        now: float,
        *,
        content_hash: str | None = None,
        metadata_equals: tuple[str, str] | None = None,
        speaker_id: str | None = ANY,
        limit: int | None = None,
    ) -> list[Record]:
        """Memories of ``scope`` still valid at ``now`` with this content hash, metadata
        value (a JSON string, not a number) and speaker (each only when given), oldest first."""
        sql = (
            f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.kind = 'memory' AND r.scope = %s "
            "AND (r.valid_to IS NULL OR r.valid_to > %s)"
        )
        params: list[Any] = [scope, now]
        if content_hash is not None:
            sql += " AND r.content_hash = %s"
            params.append(content_hash)
        if metadata_equals is not None:
            sql += " AND (r.metadata::jsonb -> %s) = to_jsonb(%s::text)"
            params += [metadata_equals[0], metadata_equals[1]]
        if speaker_id is not ANY:
            sql += " AND r.speaker_id IS NOT DISTINCT FROM %s"
            params.append(speaker_id)
        sql += " ORDER BY r.created_at, r.rowid LIMIT %s"
        params.append(limit)
        return [row_to_record(r) for r in self.query(sql, params)]

    def find_message(self, session: str, created_at: float) -> Record | None:
        """The message of a session at exactly this time (the newest if several)."""
        row = self.query_one(
            f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.session = %s AND "
            "r.created_at = %s ORDER BY r.rowid DESC LIMIT 1",
            (session, created_at),
        )
        return row_to_record(row) if row else None

    # ---------------------------------------------------------------- updates
    def update_text(
        self,
        rowid: int,
        text: str,
        content_hash: str,
        tokens: str,
        *,
        visible_text: str | None = None,
    ) -> None:
        """Replace a record's text, visible text and its own lexical tokens (the context and
        the vector stay: the old vector serves until a new one is written)."""
        now = time.time()
        lexical = LexicalWriter()
        with self.write() as c:
            rev = self._bump_rev(c)
            c.execute(
                "UPDATE records SET text = %s, visible_text = %s, content_hash = %s, rev = %s, "
                "updated_at = %s WHERE rowid = %s",
                (text, visible_text, content_hash, rev, now, rowid),
            )
            old = c.execute("SELECT ctx FROM lexical WHERE rowid = %s", (rowid,)).fetchone()
            if old is not None:
                lexical.forget(c, [rowid])
                lexical.insert(c, [(rowid, tokens, " ".join(old[0]))])
                lexical.flush(c)

    def set_validity(self, rowid: int, valid_to: float | None, metadata: dict[str, Any]) -> None:
        """Close (or reopen, with None) a memory and replace its metadata, in one write."""
        with self.write() as c:
            rev = self._bump_rev(c)
            c.execute(
                "UPDATE records SET valid_to = %s, metadata = %s, rev = %s, updated_at = %s "
                "WHERE rowid = %s",
                (valid_to, json.dumps(metadata, ensure_ascii=False), rev, time.time(), rowid),
            )

    def record_access(self, items: Sequence[tuple[int, int, float]]) -> None:
        """Add (rowid, count, last access time) to records' access statistics."""
        with self.write() as c, c.cursor() as cur:
            cur.executemany(
                "UPDATE records SET access_count = access_count + %s, "
                "last_access = greatest(coalesce(last_access, 0), %s) WHERE rowid = %s",
                [(count, when, rowid) for rowid, count, when in items],
            )

    def mark_index_status(
        self, rowids: Sequence[int], status: str, error: str | None = None
    ) -> None:
        if not rowids:
            return
        check_value("index_status", status)
        with self.write() as c:
            rev = self._bump_rev(c)
            c.execute(
                "UPDATE records SET index_status = %s, index_error = %s, rev = %s, "
                "updated_at = %s WHERE rowid = ANY(%s::bigint[])",
                (status, error, rev, time.time(), list(rowids)),
            )

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

    def delete_session_after(self, session: str, after: float) -> list[str]:
        """Delete a session's records created after ``after``; returns their ids."""
        rows = self.query(
            "SELECT id FROM records WHERE session = %s AND created_at > %s", (session, after)
        )
        ids = [r[0] for r in rows]
        self.delete(ids)
        return ids
