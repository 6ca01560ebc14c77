"""The SQLite store: the source of truth of the embedded default.

One file, WAL mode, ``synchronous=FULL`` (a committed write survives power loss), a busy
timeout so several processes can share the file. Every write is one ``BEGIN IMMEDIATE``
transaction: either all of it lands or none of it does.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from remem.errors import StoreError
from remem.store.migrations import LATEST_VERSION, MIGRATIONS
from remem.store.paths import prepare_db_path
from remem.types import Filters, Record

RECORD_COLUMNS = (
    "rowid, id, kind, text, role, scope, session, platform, group_id, group_name, speaker_id, "
    "speaker_label, mentions, category, importance, created_at, event_time, valid_from, "
    "valid_to, access_count, last_access, source_ids, content_hash, metadata, source, "
    "index_status, index_error, visible_text, session_type, session_label, message_kind"
)
# The columns an in-memory vector index keeps to apply filters without asking SQLite.
INDEX_META_COLUMNS = "rowid, kind, scope, session, role, created_at, platform, category, valid_to"
_INSERT_COLUMNS = (
    "id", "kind", "text", "role", "scope", "session", "platform", "group_id", "group_name",
    "speaker_id", "speaker_label", "mentions", "category", "importance", "created_at",
    "event_time", "valid_from", "valid_to", "source_ids", "content_hash", "metadata", "source",
    "index_status", "index_error", "visible_text", "session_type", "session_label",
    "message_kind",
)  # fmt: skip


@dataclass(slots=True)
class VectorRows:
    """Vectors of one model read from the store, for building the in-memory index."""

    rowids: np.ndarray  # int64, records.rowid
    matrix: np.ndarray  # float32 (n, dim)
    max_seq: int


def fts_match_expression(tokens: Iterable[str]) -> str:
    """An FTS5 MATCH expression that ORs the tokens; quoting stops any FTS syntax in text."""
    quoted = ['"' + t.replace('"', '""') + '"' for t in tokens if t]
    return " OR ".join(quoted)


def _json(text: str, empty: Any) -> Any:
    # Most records carry no mentions, sources or metadata: skip the parser for those.
    return empty.copy() if text in ("[]", "{}") else json.loads(text)


def _row_to_record(row: Sequence[Any]) -> Record:
    return Record(
        rowid=row[0],
        id=row[1],
        kind=row[2],
        text=row[3],
        role=row[4],
        scope=row[5],
        session=row[6],
        platform=row[7],
        group_id=row[8],
        group_name=row[9],
        speaker_id=row[10],
        speaker_label=row[11],
        mentions=_json(row[12], []),
        category=row[13],
        importance=row[14],
        created_at=row[15],
        event_time=row[16],
        valid_from=row[17],
        valid_to=row[18],
        access_count=row[19],
        last_access=row[20],
        source_ids=_json(row[21], []),
        content_hash=row[22],
        metadata=_json(row[23], {}),
        source=row[24],
        index_status=row[25],
        index_error=row[26],
        visible_text=row[27],
        session_type=row[28],
        session_label=row[29],
        message_kind=row[30],
    )


def filters_sql(
    filters: Filters | None, alias: str = "r", now: float | None = None
) -> tuple[str, list[Any]]:
    """A WHERE fragment (starting with ' AND', or empty) and its parameters."""
    if filters is None:
        return "", []
    parts: list[str] = []
    params: list[Any] = []

    def _in(column: str, values: list[str]) -> None:
        parts.append(f"{alias}.{column} IN ({','.join('?' * len(values))})")
        params.extend(values)

    if filters.kinds is not None:
        _in("kind", filters.kinds)
    if filters.scopes is not None:
        _in("scope", filters.scopes)
    if filters.sessions is not None:
        _in("session", filters.sessions)
    if filters.roles is not None:
        _in("role", filters.roles)
    if filters.exclude_roles:
        marks = ",".join("?" * len(filters.exclude_roles))
        parts.append(f"({alias}.role IS NULL OR {alias}.role NOT IN ({marks}))")
        params.extend(filters.exclude_roles)
    if filters.exclude_ids:
        parts.append(f"{alias}.id NOT IN ({','.join('?' * len(filters.exclude_ids))})")
        params.extend(filters.exclude_ids)
    if filters.ids is not None:
        _in("id", filters.ids)
    if filters.since is not None:
        parts.append(f"{alias}.created_at >= ?")
        params.append(filters.since)
    if filters.until is not None:
        parts.append(f"{alias}.created_at <= ?")
        params.append(filters.until)
    if filters.platform is not None:
        if filters.platform_by_session:
            # recorded on the platform, or in a session whose origin (root's) platform it is
            parts.append(f"({alias}.platform = ? OR {alias}.session IN "
                         "(SELECT id FROM sessions WHERE platform = ?))")  # fmt: skip
            params += [filters.platform, filters.platform]
        else:
            parts.append(f"{alias}.platform = ?")
            params.append(filters.platform)
    if filters.category is not None:
        parts.append(f"{alias}.category = ?")
        params.append(filters.category)
    if not filters.include_superseded:
        parts.append(f"({alias}.valid_to IS NULL OR {alias}.valid_to > ?)")
        params.append(time.time() if now is None else now)
    if not parts:
        return "", []
    return " AND " + " AND ".join(parts), params


class SQLiteStore:
    """Records, their lexical index and their vectors in one SQLite file."""

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = 10_000) -> None:
        self.path = prepare_db_path(path)
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(
                str(self.path),
                timeout=busy_timeout_ms / 1000,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,  # guarded by self._lock
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open database {str(self.path)!r}: {exc}") from None
        self.local_writes = 0  # bumped on every commit of this connection
        self._doc_count: tuple[tuple[int, int], int] | None = None
        try:
            self._configure(busy_timeout_ms)
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise StoreError(
                f"cannot use {str(self.path)!r} as a remem database: {exc}; is it another "
                "program's file? choose another --db path"
            ) from None

    # ---------------------------------------------------------------- connection
    def _configure(self, busy_timeout_ms: int) -> None:
        c = self._conn
        c.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        mode = c.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise StoreError(
                f"{str(self.path)!r} cannot use WAL journaling (got {mode!r}); put the database "
                "on a local file system"
            )
        c.execute("PRAGMA synchronous = FULL")
        c.execute("PRAGMA foreign_keys = ON")

    def _migrate(self) -> None:
        # foreign_keys can only change outside a transaction; a table rebuild needs it off
        self._conn.execute("PRAGMA foreign_keys = OFF")
        try:
            with self.write() as c:
                version = c.execute("PRAGMA user_version").fetchone()[0]
                if version > LATEST_VERSION:
                    raise StoreError(
                        f"{str(self.path)!r} has schema version {version}, newer than this "
                        f"remem understands ({LATEST_VERSION}); upgrade remem"
                    )
                for number, _title, script in MIGRATIONS:
                    if number <= version:
                        continue
                    for statement in _split_sql(script):
                        c.execute(statement)
                    c.execute(f"PRAGMA user_version = {number}")
                broken = c.execute("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise StoreError(
                        f"migrating {str(self.path)!r} left {len(broken)} broken references; "
                        "nothing was changed (run `remem doctor`)"
                    )
        finally:
            self._conn.execute("PRAGMA foreign_keys = ON")

    def schema_version(self) -> int:
        with self._lock:
            return self._conn.execute("PRAGMA user_version").fetchone()[0]

    def close(self) -> None:
        with self._lock, suppress(sqlite3.Error):
            self._conn.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction; rolled back entirely if the body raises."""
        with self._lock:
            c = self._conn
            c.execute("BEGIN IMMEDIATE")
            try:
                yield c
            except BaseException:
                c.execute("ROLLBACK")
                raise
            else:
                c.execute("COMMIT")
                self.local_writes += 1

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several SELECTs."""
        with self._lock:
            c = self._conn
            c.execute("BEGIN")
            try:
                yield c
            finally:
                c.execute("COMMIT")

    def change_token(self) -> tuple[int, int]:
        """Changes whenever this or another process commits a write."""
        with self._lock:
            data_version = self._conn.execute("PRAGMA data_version").fetchone()[0]
            return data_version, self.local_writes

    @staticmethod
    def _bump_rev(c: sqlite3.Connection) -> int:
        c.execute("UPDATE counters SET value = value + 1 WHERE name = 'rev'")
        return c.execute("SELECT value FROM counters WHERE name = 'rev'").fetchone()[0]

    # ---------------------------------------------------------------- records
    def insert_records(
        self, rows: Sequence[tuple[dict[str, Any], str] | tuple[dict[str, Any], str, str]],
        *, on_conflict: str = "error",
    ) -> list[int | None]:  # fmt: skip
        """Insert (record fields, lexical tokens[, context tokens]) in one transaction.

        Returns the new rowids; ``None`` where ``on_conflict="skip"`` skipped an existing id.
        With ``on_conflict="error"`` an existing id aborts the whole batch (nothing written).
        """
        out: list[int | None] = []
        now = time.time()
        placeholders = ",".join("?" * (len(_INSERT_COLUMNS) + 2))
        sql = (
            f"INSERT INTO records ({','.join(_INSERT_COLUMNS)}, rev, updated_at) "
            f"VALUES ({placeholders})"
        )
        with self.write() as c:
            rev = self._bump_rev(c)
            for row in rows:
                fields, tokens = row[0], row[1]
                context = row[2] if len(row) > 2 else ""
                values = [_column_value(fields, col) for col in _INSERT_COLUMNS]
                try:
                    cur = c.execute(sql, [*values, rev, now])
                except sqlite3.IntegrityError as exc:
                    if "UNIQUE" in str(exc) and "records.id" in str(exc):
                        if on_conflict == "skip":
                            out.append(None)
                            continue
                        from remem.errors import ValidationError

                        raise ValidationError(
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
                if fields.get("session") and (
                    fields.get("origin_platform") or fields.get("parent_session")
                ):
                    self._upsert_session(c, fields["session"], fields.get("origin_platform"),
                                         fields.get("parent_session"))  # fmt: skip
        return out

    # ---------------------------------------------------------------- sessions
    def set_session(self, session: str, origin_platform: str | None = None,
                    parent: str | None = None) -> None:  # fmt: skip
        """Record a session's origin platform and/or parent (None leaves a value as it is)."""
        with self.write() as c:
            self._upsert_session(c, session, origin_platform, parent)

    def _upsert_session(self, c: sqlite3.Connection, session: str, origin: str | None,
                        parent: str | None) -> None:  # fmt: skip
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
        below = [r[0] for r in c.execute(
            "WITH RECURSIVE below(id) AS (SELECT ? UNION SELECT s.id FROM sessions s "
            "JOIN below b ON s.parent = b.id) SELECT id FROM below", (session,))]  # fmt: skip
        for sid in below:
            c.execute("UPDATE sessions SET platform = ? WHERE id = ?",
                      (self._root_platform(c, sid), sid))  # fmt: skip

    @staticmethod
    def _root_platform(c: sqlite3.Connection, session: str) -> str | None:
        """The origin platform of the session's root (the nearest one up the chain that has
        one, when the root has none); a parent cycle stops where it repeats."""
        chain: list[str | None] = []
        seen: set[str] = set()
        current: str | None = session
        while current is not None and current not in seen and len(seen) < 64:
            seen.add(current)
            row = c.execute("SELECT origin_platform, parent FROM sessions WHERE id = ?",
                            (current,)).fetchone()  # fmt: skip
            if row is None:
                break
            chain.append(row[0])
            current = row[1]
        return next((p for p in reversed(chain) if p), None)

    def session_info(self, session: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT id, origin_platform, parent, platform FROM sessions WHERE id = ?",
                (session,),
            ).fetchone()
        if row is None:
            return None
        return {"session": row[0], "origin_platform": row[1], "parent": row[2],
                "platform": row[3]}  # fmt: skip

    def sessions_on_platform(self, platform: str) -> list[str]:
        """Sessions whose effective (root's origin) platform is ``platform``."""
        with self._lock:
            return [r[0] for r in self._conn.execute(
                "SELECT id FROM sessions WHERE platform = ?", (platform,))]  # fmt: skip

    def get(self, record_id: str) -> Record | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {RECORD_COLUMNS} FROM records WHERE id = ?", (record_id,)
            ).fetchone()
        return _row_to_record(row) if row else None

    def rowids_for_ids(self, ids: Sequence[str]) -> list[int]:
        out: list[int] = []
        with self._lock:
            for start in range(0, len(ids), 500):
                chunk = list(ids[start : start + 500])
                out += [
                    r[0]
                    for r in self._conn.execute(
                        f"SELECT rowid FROM records WHERE id IN ({','.join('?' * len(chunk))})",
                        chunk,
                    )
                ]
        return out

    def ids_with_prefix(self, prefix: str, limit: int = 20) -> list[str]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self._lock:
            rows = self._conn.execute(
                "SELECT id FROM records WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT ?",
                (escaped + "%", limit),
            ).fetchall()
        return [r[0] for r in rows]

    def get_by_rowids(
        self, rowids: Iterable[int], filters: Filters | None = None, now: float | None = None
    ) -> dict[int, Record]:
        """Records by rowid that still exist *and* still pass the filters (the authority)."""
        ids = list(dict.fromkeys(int(r) for r in rowids))
        if not ids:
            return {}
        where, params = filters_sql(filters, now=now)
        out: dict[int, Record] = {}
        with self._lock:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                sql = (
                    f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.rowid IN "
                    f"({','.join('?' * len(chunk))}){where}"
                )
                for row in self._conn.execute(sql, [*chunk, *params]):
                    out[row[0]] = _row_to_record(row)
        return out

    def neighbours(
        self, records: Sequence[Record], before: int, after: int,
        filters: Filters | None = None, now: float | None = None, *, context: bool = False,
    ) -> dict[int, list[Record]]:  # fmt: skip
        """For each record (by rowid): up to ``before`` earlier and ``after`` later records of
        its session, nearest first, passing the filters. Records without a session have none.

        By default only records that can be hits count (stored-only ones are skipped). With
        ``context`` the window is what a reader needs around a hit: stored-only messages
        (notices, media the bot sent, host injections) are in it; control and directive
        messages are skipped and do not use up the window."""
        where, params = filters_sql(filters, now=now)
        keep = ("r.message_kind NOT IN ('control', 'directive')" if context
                else "r.index_status != 'skipped'")  # fmt: skip
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
        if not parts:
            return out
        with self._lock:
            for row in self._conn.execute(" UNION ALL ".join(parts), args):
                out[row[0]].append(_row_to_record(row[1:]))
        return out

    def previous_texts(self, session: str, before: float, limit: int) -> list[Record]:
        """The last ``limit`` records of a session created before ``before``, oldest first."""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.session = ? AND r.created_at < ? "
                "AND r.index_status != 'skipped' "
                "ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?",
                (session, before, limit),
            ).fetchall()
        return [_row_to_record(r) for r in reversed(rows)]

    def list_records(
        self,
        filters: Filters | None = None,
        *,
        limit: int | None = 50,
        offset: int = 0,
        newest_first: bool = True,
    ) -> list[Record]:
        where, params = filters_sql(filters)
        order = "DESC" if newest_first else "ASC"
        sql = f"SELECT {RECORD_COLUMNS} FROM records r WHERE 1=1{where} "
        sql += f"ORDER BY r.created_at {order}, r.rowid {order} LIMIT ? OFFSET ?"
        with self._lock:
            rows = self._conn.execute(sql, [*params, -1 if limit is None else limit, offset])
            return [_row_to_record(r) for r in rows.fetchall()]

    def iter_records(self, filters: Filters | None = None, batch: int = 1000, after: int = 0):
        """Every record passing the filters with rowid > after, in rowid order, page by page."""
        where, params = filters_sql(filters)
        while True:
            with self._lock:
                rows = self._conn.execute(
                    f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.rowid > ?{where} "
                    "ORDER BY r.rowid LIMIT ?",
                    [after, *params, batch],
                ).fetchall()
            if not rows:
                return
            yield from (_row_to_record(r) for r in rows)
            after = rows[-1][0]

    def vectors_of(self, rowids: Sequence[int]) -> dict[int, list[tuple[str, str, str, bytes]]]:
        """(model_id, provider, model, float32 bytes) per record."""
        out: dict[int, list[tuple[str, str, str, bytes]]] = {}
        with self._lock:
            for start in range(0, len(rowids), 500):
                chunk = list(rowids[start : start + 500])
                for r in self._conn.execute(
                    "SELECT record_rowid, model_id, provider, model, vec FROM vectors WHERE "
                    f"record_rowid IN ({','.join('?' * len(chunk))})",
                    chunk,
                ):
                    out.setdefault(r[0], []).append((r[1], r[2], r[3], r[4]))
        return out

    def existing_hashes(self, hashes: Sequence[str]) -> set[str]:
        found: set[str] = set()
        with self._lock:
            for start in range(0, len(hashes), 500):
                chunk = list(hashes[start : start + 500])
                found.update(
                    r[0]
                    for r in self._conn.execute(
                        "SELECT content_hash FROM records WHERE content_hash IN "
                        f"({','.join('?' * len(chunk))})",
                        chunk,
                    )
                )
        return found

    def count(self, filters: Filters | None = None) -> int:
        where, params = filters_sql(filters)
        with self._lock:
            return self._conn.execute(
                f"SELECT count(*) FROM records r WHERE 1=1{where}", params
            ).fetchone()[0]

    def delete(self, record_ids: Sequence[str]) -> int:
        """Delete records (and their vectors and lexical rows). Returns how many existed."""
        if not record_ids:
            return 0
        deleted = 0
        with self.write() as c:
            for start in range(0, len(record_ids), 500):
                chunk = list(record_ids[start : start + 500])
                marks = ",".join("?" * len(chunk))
                rowids = [
                    r[0]
                    for r in c.execute(f"SELECT rowid FROM records WHERE id IN ({marks})", chunk)
                ]
                if not rowids:
                    continue
                rmarks = ",".join("?" * len(rowids))
                c.execute(f"DELETE FROM records_fts WHERE rowid IN ({rmarks})", rowids)
                c.execute(f"DELETE FROM vectors WHERE record_rowid IN ({rmarks})", rowids)
                c.execute(f"DELETE FROM records WHERE rowid IN ({rmarks})", rowids)
                deleted += len(rowids)
            if deleted:
                c.execute("UPDATE counters SET value = value + 1 WHERE name = 'deletes'")
        return deleted

    def find_message(self, session: str, created_at: float) -> Record | None:
        """The message of a session at exactly this time (the newest if several)."""
        with self._lock:
            row = self._conn.execute(
                f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.session = ? AND "
                "r.created_at = ? ORDER BY r.rowid DESC LIMIT 1",
                (session, created_at),
            ).fetchone()
        return _row_to_record(row) if row else None

    def update_text(self, rowid: int, text: str, content_hash: str, tokens: str, *,
                    visible_text: str | None = None) -> None:  # fmt: skip
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
            c.execute("UPDATE records SET valid_to = ?, metadata = ?, rev = ?, updated_at = ? "
                      "WHERE rowid = ?",
                      (valid_to, json.dumps(metadata, ensure_ascii=False), rev, now, rowid))  # fmt: skip

    def memory_duplicate(self, scope: str, content_hash: str, norm_hash: str,
                         now: float) -> tuple[Record, str] | None:  # fmt: skip
        """A still-valid memory of ``scope`` with the same text ("exact") or the same
        normalised text ("normalised", ``metadata.norm``), if any."""
        with self._lock:
            for how, sql, arg in (
                ("exact", "r.content_hash = ?", content_hash),
                ("normalised", "json_extract(r.metadata, '$.norm') = ?", norm_hash),
            ):
                row = self._conn.execute(
                    f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.kind = 'memory' AND "
                    f"r.scope = ? AND {sql} AND (r.valid_to IS NULL OR r.valid_to > ?) LIMIT 1",
                    (scope, arg, now),
                ).fetchone()
                if row is not None:
                    return _row_to_record(row), how
        return None

    def current_with_subject(self, scope: str, subject: str, speaker_id: str | None,
                             now: float) -> list[Record]:  # fmt: skip
        """Memories of one scope about ``subject`` (metadata) from the same speaker that are
        still valid at ``now``, oldest first."""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.kind = 'memory' AND r.scope = ? "
                "AND json_extract(r.metadata, '$.subject') = ? AND r.speaker_id IS ? "
                "AND (r.valid_to IS NULL OR r.valid_to > ?) ORDER BY r.created_at, r.rowid",
                (scope, subject, speaker_id, now),
            ).fetchall()
        return [_row_to_record(r) for r in rows]

    def delete_session_after(self, session: str, after: float) -> list[str]:
        """Delete a session's records created after ``after``; returns their ids."""
        with self._lock:
            ids = [
                r[0]
                for r in self._conn.execute(
                    "SELECT id FROM records WHERE session = ? AND created_at > ?", (session, after)
                )
            ]
        self.delete(ids)
        return ids

    def ids_where(self, filters: Filters | None) -> list[str]:
        where, params = filters_sql(filters)
        with self._lock:
            return [r[0] for r in self._conn.execute(
                f"SELECT r.id FROM records r WHERE 1=1{where}", params)]  # fmt: skip

    def clear_vectors(self, filters: Filters | None = None, model_id: str | None = None) -> int:
        """Delete vectors (of one model, or all) of the records passing the filters; those
        records become pending again. Returns how many vectors were deleted."""
        where, params = filters_sql(filters)
        model_sql = " AND v.model_id = ?" if model_id else ""
        model_args = [model_id] if model_id else []
        now = time.time()
        with self.write() as c:
            rowids = [r[0] for r in c.execute(
                f"SELECT v.record_rowid FROM vectors v JOIN records r ON r.rowid = v.record_rowid "
                f"WHERE 1=1{model_sql}{where}", [*model_args, *params])]  # fmt: skip
            for start in range(0, len(rowids), 500):
                chunk = rowids[start : start + 500]
                marks = ",".join("?" * len(chunk))
                c.execute(f"DELETE FROM vectors WHERE record_rowid IN ({marks}){model_sql.replace('v.', '')}",
                          [*chunk, *model_args])  # fmt: skip
                c.execute(f"UPDATE records SET index_status = 'pending', updated_at = ? "
                          f"WHERE rowid IN ({marks})", [now, *chunk])  # fmt: skip
            if rowids:
                c.execute("UPDATE counters SET value = value + 1 WHERE name = 'deletes'")
        return len(rowids)

    def clear_vectors_status_fix(self, model_id: str) -> None:
        """After old vectors are dropped, records holding a vector of ``model_id`` are
        indexed again (clear_vectors marked them pending)."""
        with self.write() as c:
            c.execute(
                "UPDATE records SET index_status = 'indexed' WHERE rowid IN "
                "(SELECT record_rowid FROM vectors WHERE model_id = ?)",
                (model_id,),
            )

    def deletes_counter(self) -> int:
        with self._lock:
            return self._conn.execute(
                "SELECT value FROM counters WHERE name = 'deletes'"
            ).fetchone()[0]

    # ---------------------------------------------------------------- lexical
    def lexical_search(
        self, tokens: Sequence[str], filters: Filters | None, limit: int,
        now: float | None = None, context_weight: float = 0.0,
        max_df: float = 1.0, prune_min_docs: int = 0,
    ) -> list[tuple[int, float]]:  # fmt: skip
        """(rowid, bm25 score) best first; scores are positive, higher is better.

        ``context_weight`` > 0 also matches the context column (the turns before a message)
        with that BM25 column weight; 0 searches the message's own tokens only. In a store of
        at least ``prune_min_docs`` records, query tokens found in more than ``max_df`` of
        them are left out: they add almost nothing to BM25 but make it visit most rows.
        """
        tokens = list(tokens)
        if not tokens:
            return []
        if max_df < 1.0 and prune_min_docs > 0:
            tokens = self._prune_common(tokens, max_df, prune_min_docs)
        match = fts_match_expression(tokens)
        if context_weight <= 0:
            match = "{tokens} : (" + match + ")"
        rank = f"-bm25(records_fts, 1.0, {float(context_weight)!r})"
        where, params = filters_sql(filters, now=now)
        if where:
            sql = (
                f"SELECT f.rowid, {rank} AS s FROM records_fts f "
                "JOIN records r ON r.rowid = f.rowid "
                f"WHERE records_fts MATCH ?{where} ORDER BY s DESC LIMIT ?"
            )
        else:
            sql = (
                f"SELECT rowid, {rank} AS s FROM records_fts "
                "WHERE records_fts MATCH ? ORDER BY s DESC LIMIT ?"
            )
        with self._lock:
            rows = self._conn.execute(sql, [match, *params, limit]).fetchall()
        return [(int(r[0]), float(r[1])) for r in rows]

    def _prune_common(self, tokens: list[str], max_df: float, min_docs: int) -> list[str]:
        with self._lock:
            token = self.change_token()
            if self._doc_count is None or self._doc_count[0] != token:
                n = self._conn.execute("SELECT count(*) FROM records").fetchone()[0]
                self._doc_count = (token, n)
            n = self._doc_count[1]
            if n < min_docs:
                return tokens
            marks = ",".join("?" * len(tokens))
            df = dict(
                self._conn.execute(
                    f"SELECT term, doc FROM records_vocab WHERE term IN ({marks})", tokens
                ).fetchall()
            )
        kept = [t for t in tokens if df.get(t, 0) <= max_df * n]
        if not kept:  # every token is common: keep the rarest
            kept = [min(tokens, key=lambda t: df.get(t, 0))]
        return kept

    # ---------------------------------------------------------------- vectors
    def put_vectors(
        self,
        model_id: str,
        provider: str,
        model: str,
        items: Sequence[tuple[int, np.ndarray]],
        *,
        mark_indexed: bool = True,
    ) -> int:
        """Write one vector per record rowid for this model (replacing an older one).

        Records deleted meanwhile are skipped. Returns how many vectors were written.
        """
        if not items:
            return 0
        now = time.time()
        written = 0
        with self.write() as c:
            rev = self._bump_rev(c)
            for rowid, vec in items:
                vec = np.asarray(vec, dtype=np.float32)
                exists = c.execute("SELECT 1 FROM records WHERE rowid = ?", (rowid,)).fetchone()
                if not exists:
                    continue
                c.execute(
                    "DELETE FROM vectors WHERE record_rowid = ? AND model_id = ?", (rowid, model_id)
                )
                c.execute(
                    "INSERT INTO vectors (record_rowid, model_id, provider, model, dim, vec, "
                    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (rowid, model_id, provider, model, int(vec.shape[0]), vec.tobytes(), now),
                )
                if mark_indexed:
                    c.execute(
                        "UPDATE records SET index_status = 'indexed', index_error = NULL, rev = ?, "
                        "updated_at = ? WHERE rowid = ?",
                        (rev, now, rowid),
                    )
                else:  # still bump rev so in-memory indexes pick up the new vector's record
                    c.execute("UPDATE records SET rev = ? WHERE rowid = ?", (rev, rowid))
                written += 1
        return written

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
        now = time.time()
        with self.write() as c:
            rev = self._bump_rev(c)
            for start in range(0, len(rowids), 500):
                chunk = list(rowids[start : start + 500])
                c.execute(
                    f"UPDATE records SET index_status = ?, index_error = ?, rev = ?, updated_at = ? "
                    f"WHERE rowid IN ({','.join('?' * len(chunk))})",
                    [status, error, rev, now, *chunk],
                )

    def records_missing_vectors(
        self, model_id: str, *, limit: int = 1000, after_rowid: int = 0
    ) -> list[Record]:
        """Records without a vector of this model, in rowid order (resumable by rowid)."""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.rowid > ? "
                "AND r.index_status != 'skipped' AND NOT EXISTS "
                "(SELECT 1 FROM vectors v WHERE v.record_rowid = r.rowid AND v.model_id = ?) "
                "ORDER BY r.rowid LIMIT ?",
                (after_rowid, model_id, limit),
            ).fetchall()
        return [_row_to_record(r) for r in rows]

    def count_missing_vectors(self, model_id: str) -> int:
        with self._lock:
            return self._conn.execute(
                "SELECT count(*) FROM records r WHERE r.index_status != 'skipped' AND NOT EXISTS "
                "(SELECT 1 FROM vectors v WHERE v.record_rowid = r.rowid AND v.model_id = ?)",
                (model_id,),
            ).fetchone()[0]

    def vector_stats(self) -> list[tuple[str, int, int]]:
        """(model_id, dim, count) for every model that has vectors."""
        with self._lock:
            return [
                (r[0], r[1], r[2])
                for r in self._conn.execute(
                    "SELECT model_id, dim, count(*) FROM vectors GROUP BY model_id, dim "
                    "ORDER BY count(*) DESC"
                )
            ]

    # Vectors written before models were recorded (imports from older tools) carry model_id ''.
    def has_legacy_vectors(self) -> bool:
        with self._lock:
            return self._conn.execute(
                "SELECT 1 FROM vectors WHERE model_id = '' LIMIT 1").fetchone() is not None  # fmt: skip

    def legacy_vector_dims(self) -> set[int]:
        with self._lock:
            return {r[0] for r in self._conn.execute(
                "SELECT DISTINCT dim FROM vectors WHERE model_id = ''")}  # fmt: skip

    def adopt_legacy_vectors(self, model_id: str, provider: str, model: str,
                             dim: int | None = None) -> int:  # fmt: skip
        """Label the legacy vectors (of ``dim``, or of every dim) as ``model_id``'s; where a
        record already has a vector of that model, that one wins and the legacy one goes.
        Re-inserted (new seq), so in-memory indexes pick them up. Returns how many moved."""
        dim_sql, dim_args = (" AND dim = ?", [dim]) if dim else ("", [])
        now = time.time()
        with self.write() as c:
            rev = self._bump_rev(c)
            rowids = [r[0] for r in c.execute(
                f"SELECT record_rowid FROM vectors WHERE model_id = ''{dim_sql} AND record_rowid "
                "NOT IN (SELECT record_rowid FROM vectors WHERE model_id = ?)",
                [*dim_args, model_id])]  # fmt: skip
            c.execute(
                "INSERT INTO vectors (record_rowid, model_id, provider, model, dim, vec, "
                "created_at) SELECT record_rowid, ?, ?, ?, dim, vec, created_at FROM vectors "
                f"WHERE model_id = ''{dim_sql} AND record_rowid NOT IN "
                "(SELECT record_rowid FROM vectors WHERE model_id = ?)",
                [model_id, provider, model, *dim_args, model_id],
            )
            c.execute(f"DELETE FROM vectors WHERE model_id = ''{dim_sql}", dim_args)
            for start in range(0, len(rowids), 500):
                chunk = rowids[start : start + 500]
                c.execute("UPDATE records SET index_status = 'indexed', index_error = NULL, "
                          f"rev = ?, updated_at = ? WHERE index_status != 'skipped' AND rowid IN "
                          f"({','.join('?' * len(chunk))})", [rev, now, *chunk])  # fmt: skip
        moved = len(rowids)
        return moved

    def vector_count(self, model_id: str) -> int:
        with self._lock:
            return self._conn.execute(
                "SELECT count(*) FROM vectors WHERE model_id = ?", (model_id,)
            ).fetchone()[0]

    def load_vectors(self, model_id: str, dim: int, after_seq: int = 0) -> VectorRows:
        """Vectors of one model with seq > after_seq (all of them by default)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq, record_rowid, vec FROM vectors WHERE model_id = ? AND seq > ? "
                "AND dim = ? ORDER BY seq",
                (model_id, after_seq, dim),
            ).fetchall()
        if not rows:
            return VectorRows(np.empty(0, np.int64), np.empty((0, dim), np.float32), after_seq)
        rowids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype=np.float32).reshape(-1, dim)
        return VectorRows(rowids, matrix, int(rows[-1][0]))

    def index_delta(
        self, model_id: str, dim: int, after_seq: int, after_rev: int
    ) -> tuple[VectorRows, list[tuple], int, int]:
        """Everything an in-memory index needs to catch up, read in one snapshot:
        new vectors, the filter columns of records changed since ``after_rev``, the current rev
        and the delete counter (a changed counter means: reload from scratch)."""
        with self.read() as c:
            rev = c.execute("SELECT value FROM counters WHERE name = 'rev'").fetchone()[0]
            deletes = c.execute("SELECT value FROM counters WHERE name = 'deletes'").fetchone()[0]
            vectors = self.load_vectors(model_id, dim, after_seq)
            meta = c.execute(
                f"SELECT {INDEX_META_COLUMNS} FROM records WHERE rev > ?", (after_rev,)
            ).fetchall()
        return vectors, meta, rev, deletes

    # ---------------------------------------------------------------- metadata
    def meta_get(self, namespace: str, key: str) -> str | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT value FROM meta WHERE namespace = ? AND key = ?", (namespace, key)
            ).fetchone()
        return row[0] if row else None

    def meta_set(self, namespace: str, key: str, value: str | None) -> None:
        with self.write() as c:
            if value is None:
                c.execute("DELETE FROM meta WHERE namespace = ? AND key = ?", (namespace, key))
            else:
                c.execute(
                    "INSERT INTO meta (namespace, key, value) VALUES (?, ?, ?) "
                    "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value",
                    (namespace, key, value),
                )

    def meta_add(self, namespace: str, key: str, amount: int) -> int:
        """Add to an integer counter kept in the meta table; returns the new value."""
        with self.write() as c:
            c.execute(
                "INSERT INTO meta (namespace, key, value) VALUES (?, ?, ?) "
                "ON CONFLICT (namespace, key) DO UPDATE SET value = CAST(value AS INTEGER) + ?",
                (namespace, key, str(amount), amount),
            )
            return int(c.execute("SELECT value FROM meta WHERE namespace = ? AND key = ?",
                                 (namespace, key)).fetchone()[0])  # fmt: skip

    # ---------------------------------------------------------------- stats
    def stats(self) -> dict[str, Any]:
        with self.read() as c:
            total = c.execute("SELECT count(*) FROM records").fetchone()[0]

            def group(column: str) -> dict[str, int]:
                return {
                    (k if k is not None else "(none)"): n
                    for k, n in c.execute(
                        f"SELECT {column}, count(*) FROM records GROUP BY {column} "
                        "ORDER BY count(*) DESC"
                    )
                }

            data = {
                "records": total,
                "by_kind": group("kind"),
                "by_scope": group("scope"),
                "by_role": group("role"),
                "by_category": group("category"),
                "index_status": group("index_status"),
                "vectors": [
                    {"model_id": m, "dim": d, "count": n}
                    for m, d, n in c.execute(
                        "SELECT model_id, dim, count(*) FROM vectors GROUP BY model_id, dim"
                    )
                ],
                "index_errors": c.execute(
                    "SELECT count(*) FROM records WHERE index_error IS NOT NULL "
                    "AND index_status != 'skipped'"
                ).fetchone()[0],
                "queue_dropped_total": int(
                    (
                        c.execute(
                            "SELECT value FROM meta WHERE namespace = 'indexing' AND "
                            "key = 'dropped'"
                        ).fetchone()
                        or ["0"]
                    )[0]
                ),
                "sessions": c.execute(
                    "SELECT count(DISTINCT session) FROM records WHERE session IS NOT NULL"
                ).fetchone()[0],
                "schema_version": c.execute("PRAGMA user_version").fetchone()[0],
            }
        size = 0
        for suffix in ("", "-wal", "-shm"):
            p = Path(str(self.path) + suffix)
            if p.exists():
                size += p.stat().st_size
        data["file_bytes"] = size
        data["path"] = str(self.path)
        return data


def _column_value(fields: dict[str, Any], column: str) -> Any:
    value = fields.get(column)
    if column in ("mentions", "source_ids"):
        return json.dumps(list(value or []), ensure_ascii=False)
    if column == "metadata":
        return json.dumps(value or {}, ensure_ascii=False)
    if column == "index_status":
        return value or "pending"
    if column == "message_kind":
        return value or "chat"
    return value


def _split_sql(script: str) -> list[str]:
    """Split a migration script into statements: drop ``--`` comment lines, then split on
    semicolons (our migrations keep semicolons out of string literals)."""
    lines = [line for line in script.splitlines() if not line.strip().startswith("--")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]
