"""Records and sessions in the SQLite store."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from remem.errors import ConflictError
from remem.schemas import ID_MAX_CHARS
from remem.store import facts_sql, records_sql
from remem.store.base import ANY, OnConflict, RecordRow
from remem.store.rows import INSERT_FIELDS, check_enums, check_value, column_value, row_to_record
from remem.store.sqlite.connection import SQLiteConnection
from remem.store.sqlite.facts import SQLITE_FACTS
from remem.store.sqlite.filters import RECORD_COLUMNS, filters_sql, in_marks
from remem.types import Filters, Record, SessionInfo

CHUNK = 500  # ids per IN list: stays under SQLite's variable limit


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


DIALECT = records_sql.RecordsDialect(
    mark="?", no_limit=-1, columns=RECORD_COLUMNS, filters_sql=filters_sql
)


class RecordsMixin(SQLiteConnection):
    """Insert, read, update and delete records."""

    def insert_records(
        self, rows: Sequence[RecordRow], *, on_conflict: OnConflict = "error"
    ) -> list[int | None]:
        """Insert (record fields, lexical tokens[, context tokens]) in one transaction.

        Returns the new rowids; ``None`` where ``on_conflict="skip"`` skipped an existing id.
        With ``on_conflict="error"`` an existing id aborts the whole batch (nothing written).
        """
        out: list[int | None] = []
        now = time.time()
        sql = (
            f"INSERT INTO records ({','.join(INSERT_FIELDS)}, rev, updated_at) "
            f"VALUES ({in_marks((*INSERT_FIELDS, 'rev', 'updated_at'))})"
        )
        with self.write() as c:
            rev = self._bump_rev(c)
            for row in rows:
                fields, tokens = row[0], row[1]
                context = row[2] if len(row) > 2 else ""
                check_enums(fields)
                values = [column_value(fields, col) for col in INSERT_FIELDS]
                try:
                    cur = c.execute(sql, [*values, rev, now])
                except sqlite3.IntegrityError as exc:
                    if "UNIQUE" in str(exc) and "records.id" in str(exc):
                        if on_conflict == "skip":
                            out.append(None)
                            continue
                        raise ConflictError(
                            "id",
                            fields["id"],
                            "a record with this id exists; choose another id "
                            "or delete the old record first",
                        ) from None
                    raise
                rowid = cur.lastrowid
                c.execute(
                    "INSERT INTO records_fts (rowid, tokens, context) VALUES (?, ?, ?)",
                    (rowid, tokens, context),
                )
                out.append(rowid)
                origin, parent = fields.get("origin_platform"), fields.get("parent_session")
                if fields.get("session") and (origin or parent):
                    self._upsert_session(c, fields["session"], origin, parent)
        return out

    # ---------------------------------------------------------------- sessions
    def set_session(
        self, session: str, origin_platform: str | None = None, parent: str | None = None
    ) -> None:
        """Record a session's origin platform and/or parent (None leaves a value as it is)."""
        with self.write() as c:
            self._upsert_session(c, session, origin_platform, parent)

    def _upsert_session(
        self, c: sqlite3.Connection, session: str, origin: str | None, parent: str | None
    ) -> None:
        if parent == session:
            parent = None  # a session is not its own parent
        c.execute(
            "INSERT INTO sessions (id, origin_platform, parent, updated_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (id) DO UPDATE SET "
            "origin_platform = COALESCE(excluded.origin_platform, origin_platform), "
            "parent = COALESCE(excluded.parent, parent), updated_at = excluded.updated_at",
            (session, origin, parent, time.time()),
        )
        # The effective platform of this session and every session below it.
        below = c.execute(
            "WITH RECURSIVE below(id) AS (SELECT ? UNION SELECT s.id FROM sessions s "
            "JOIN below b ON s.parent = b.id) SELECT id FROM below",
            (session,),
        ).fetchall()
        for (sid,) in below:
            c.execute(
                "UPDATE sessions SET platform = ? WHERE id = ?", (_root_platform(c, sid), sid)
            )

    def session_info(self, session: str) -> SessionInfo | None:
        row = self.query_one(
            "SELECT id, origin_platform, parent, platform FROM sessions WHERE id = ?", (session,)
        )
        if row is None:
            return None
        return {"session": row[0], "origin_platform": row[1], "parent": row[2], "platform": row[3]}

    def sessions_on_platform(self, platform: str) -> list[str]:
        """Sessions whose effective (root's origin) platform is ``platform``."""
        return [r[0] for r in self.query("SELECT id FROM sessions WHERE platform = ?", (platform,))]

    def sessions_with_speaker(self, speaker_id: str) -> list[str]:
        """Sessions holding a message spoken by ``speaker_id``."""
        sql = (
            "SELECT DISTINCT session FROM records WHERE kind = 'message' AND speaker_id = ? "
            "AND session IS NOT NULL ORDER BY session"
        )
        return [r[0] for r in self.query(sql, (speaker_id,))]

    # ---------------------------------------------------------------- reads
    def get(self, record_id: str) -> Record | None:
        row = self.query_one(f"SELECT {RECORD_COLUMNS} FROM records WHERE id = ?", (record_id,))
        return row_to_record(row) if row else None

    def rowids_for_ids(self, ids: Sequence[str]) -> list[int]:
        out: list[int] = []
        for chunk in chunks(ids):
            sql = f"SELECT rowid FROM records WHERE id IN ({in_marks(chunk)})"
            out += [r[0] for r in self.query(sql, chunk)]
        return out

    def ids_with_prefix(self, prefix: str, limit: int = 20) -> list[str]:
        if len(prefix) > ID_MAX_CHARS:  # no id is longer, and SQLite refuses a LIKE pattern
            return []  # past 50,000 bytes ("LIKE or GLOB pattern too complex")
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.query(
            "SELECT id FROM records WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT ?",
            (escaped + "%", limit),
        )
        return [r[0] for r in rows]

    def ids_where(self, filters: Filters | None) -> list[str]:
        where, params = filters_sql(filters)
        return [r[0] for r in self.query(f"SELECT r.id FROM records r WHERE 1=1{where}", params)]

    def existing_hashes(self, hashes: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for chunk in chunks(hashes):
            sql = f"SELECT content_hash FROM records WHERE content_hash IN ({in_marks(chunk)})"
            found.update(r[0] for r in self.query(sql, chunk))
        return found

    def get_by_rowids(
        self, rowids: Iterable[int], filters: Filters | None = None, now: float | None = None
    ) -> dict[int, Record]:
        """Records by rowid that still exist *and* still pass the filters (the authority)."""
        ids = list(dict.fromkeys(int(r) for r in rowids))
        where, params = filters_sql(filters, now=now)
        out: dict[int, Record] = {}
        for chunk in chunks(ids):
            sql = (
                f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.rowid IN "
                f"({in_marks(chunk)}){where}"
            )
            for row in self.query(sql, [*chunk, *params]):
                out[row[0]] = row_to_record(row)
        return out

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
        its session, nearest first, passing the filters. Records without a session have none.

        By default only records that can be hits count (stored-only ones are skipped). With
        ``context`` the window is what a reader needs around a hit: stored-only messages
        (notices, media the bot sent, host injections) are in it; control and directive
        messages are skipped and do not use up the window."""
        where, params = filters_sql(filters, now=now)
        keep = (
            "r.message_kind NOT IN ('control', 'directive')"
            if context
            else "r.index_status != 'skipped'"
        )
        # One compound statement (two index-ordered, LIMITed lookups per record) instead of
        # two round trips per record: the statement count, not the lookups, was the cost.
        parts: list[str] = []
        args: list[Any] = []
        anchors = [r for r in records if r.session and r.rowid is not None]
        for rec in anchors[:200]:  # stays under SQLite's 500-term compound limit
            for op, order, limit in (("<", "DESC", before), (">", "ASC", after)):
                if limit <= 0:
                    continue
                parts.append(
                    f"SELECT * FROM (SELECT ? AS anchor, {RECORD_COLUMNS} FROM records r "
                    f"WHERE r.session = ? AND (r.created_at, r.rowid) {op} (?, ?) "
                    f"AND {keep}{where} "
                    f"ORDER BY r.created_at {order}, r.rowid {order} LIMIT ?)"
                )
                args += [rec.rowid, rec.session, rec.created_at, rec.rowid, *params, limit]
        out: dict[int, list[Record]] = {r.rowid: [] for r in anchors if r.rowid is not None}
        if parts:
            for row in self.query(" UNION ALL ".join(parts), args):
                out[row[0]].append(row_to_record(row[1:]))
        return out

    def previous_texts(self, session: str, before: float, limit: int) -> list[Record]:
        """The last ``limit`` records of a session created before ``before``, oldest first."""
        return records_sql.previous_texts(self.query, DIALECT, session, before, limit)

    def list_records(
        self,
        filters: Filters | None = None,
        *,
        limit: int | None = 50,
        offset: int = 0,
        newest_first: bool = True,
    ) -> list[Record]:
        return records_sql.list_records(
            self.query, DIALECT, filters, limit=limit, offset=offset, newest_first=newest_first
        )

    def iter_records(
        self, filters: Filters | None = None, batch: int = 1000, after: int = 0
    ) -> Iterator[Record]:
        """Every record passing the filters with rowid > after, in rowid order, page by page."""
        return records_sql.iter_records(self.query, DIALECT, filters, batch, after)

    def count(self, filters: Filters | None = None, *, up_to: int | None = None) -> int:
        where, params = filters_sql(filters)
        if not where:  # kept by triggers (schema 7): no scan
            n = int(self.query_one("SELECT value FROM counters WHERE name = 'records'")[0])
            return n if up_to is None else min(n, up_to)
        if up_to is not None:  # the scan stops at the limit
            sql = f"SELECT count(*) FROM (SELECT 1 FROM records r WHERE 1=1{where} LIMIT ?)"
            return int(self.query_one(sql, [*params, up_to])[0])
        return int(self.query_one(f"SELECT count(*) FROM records r WHERE 1=1{where}", params)[0])

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
        value and speaker (each only when given), oldest first."""
        sql = (
            f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.kind = 'memory' AND r.scope = ? "
            "AND (r.valid_to IS NULL OR r.valid_to > ?)"
        )
        params: list[Any] = [scope, now]
        if content_hash is not None:
            sql += " AND r.content_hash = ?"
            params.append(content_hash)
        if metadata_equals is not None:
            sql += " AND json_extract(r.metadata, ?) = ?"
            params += [f"$.{metadata_equals[0]}", metadata_equals[1]]
        if speaker_id is not ANY:
            sql += " AND r.speaker_id IS ?"
            params.append(speaker_id)
        sql += " ORDER BY r.created_at, r.rowid LIMIT ?"
        params.append(-1 if limit is None else limit)
        return [row_to_record(r) for r in self.query(sql, params)]

    def find_message(self, session: str, created_at: float) -> Record | None:
        """The message of a session at exactly this time (the newest if several)."""
        row = self.query_one(
            f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.session = ? AND "
            "r.created_at = ? ORDER BY r.rowid DESC LIMIT 1",
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
        """Replace a record's text, visible text and its own lexical tokens (the vector is left
        alone: the old one stays until a new one is written)."""
        now = time.time()
        with self.write() as c:
            rev = self._bump_rev(c)
            c.execute(
                "UPDATE records SET text = ?, visible_text = ?, content_hash = ?, rev = ?, "
                "updated_at = ? WHERE rowid = ?",
                (text, visible_text, content_hash, rev, now, rowid),
            )
            c.execute("UPDATE records_fts SET tokens = ? WHERE rowid = ?", (tokens, rowid))

    def set_validity(self, rowid: int, valid_to: float | None, metadata: dict[str, Any]) -> None:
        """Close (or reopen, with None) a memory and replace its metadata, in one write."""
        now = time.time()
        with self.write() as c:
            rev = self._bump_rev(c)
            c.execute(
                "UPDATE records SET valid_to = ?, metadata = ?, rev = ?, updated_at = ? "
                "WHERE rowid = ?",
                (valid_to, json.dumps(metadata, ensure_ascii=False), rev, now, rowid),
            )

    def record_access(self, items: Sequence[tuple[int, int, float]]) -> None:
        """Add (rowid, count, last access time) to records' access statistics."""
        with self.write() as c:
            c.executemany(
                "UPDATE records SET access_count = access_count + ?, "
                "last_access = max(coalesce(last_access, 0), ?) WHERE rowid = ?",
                [(count, when, rowid) for rowid, count, when in items],
            )

    def mark_index_status(
        self, rowids: Sequence[int], status: str, error: str | None = None
    ) -> None:
        if not rowids:
            return
        check_value("index_status", status)
        now = time.time()
        with self.write() as c:
            rev = self._bump_rev(c)
            for chunk in chunks(rowids):
                c.execute(
                    "UPDATE records SET index_status = ?, index_error = ?, rev = ?, "
                    f"updated_at = ? WHERE rowid IN ({in_marks(chunk)})",
                    [status, error, rev, now, *chunk],
                )

    # ---------------------------------------------------------------- deletes
    def delete(self, record_ids: Sequence[str]) -> int:
        """Delete records (and their vectors and lexical rows), and in the same transaction
        what they mean to facts (``FactStore``). Returns how many existed."""
        deleted = 0
        if not record_ids:
            return deleted
        with self.write() as c:
            for chunk in chunks(record_ids):
                sql = f"SELECT rowid FROM records WHERE id IN ({in_marks(chunk)})"
                rowids = [r[0] for r in c.execute(sql, chunk)]
                if not rowids:
                    continue
                marks = in_marks(rowids)
                c.execute(f"DELETE FROM records_fts WHERE rowid IN ({marks})", rowids)
                c.execute(f"DELETE FROM vectors WHERE record_rowid IN ({marks})", rowids)
                c.execute(f"DELETE FROM records WHERE rowid IN ({marks})", rowids)
                deleted += len(rowids)
            facts_sql.forget_records(c, SQLITE_FACTS, record_ids)
            if deleted:
                c.execute("UPDATE counters SET value = value + 1 WHERE name = 'deletes'")
        return deleted

    def delete_session_after(self, session: str, after: float) -> list[str]:
        """Delete a session's records created after ``after``; returns their ids."""
        rows = self.query(
            "SELECT id FROM records WHERE session = ? AND created_at > ?", (session, after)
        )
        ids = [r[0] for r in rows]
        self.delete(ids)
        return ids


def _root_platform(c: sqlite3.Connection, session: str) -> str | None:
    """The origin platform of the session's root (the nearest one up the chain that has one,
    when the root has none); a parent cycle stops where it repeats."""
    chain: list[str | None] = []
    seen: set[str] = set()
    current: str | None = session
    while current is not None and current not in seen and len(seen) < 64:
        seen.add(current)
        row = c.execute(
            "SELECT origin_platform, parent FROM sessions WHERE id = ?", (current,)
        ).fetchone()
        if row is None:
            break
        chain.append(row[0])
        current = row[1]
    return next((p for p in reversed(chain) if p), None)
