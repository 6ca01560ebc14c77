"""Records in both SQL backends, written once over their ``SQLDialect`` (issue 42: no second
copy): inserting, reads by id, rowid, hash, session and filters, pages of records, a
record's neighbours, new text, validity, access counts and index status.

What stays each backend's own (``sqlite/records.py``, ``postgres/records.py``): the rows of
its full-text index when a record comes, goes or gets a new text (FTS5 / tsvector),
deleting, fetching the neighbour windows (one compound statement / one lateral join), and
SQLite's unfiltered ``count`` (a trigger-kept counter).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from remem.schemas import ID_MAX_CHARS
from remem.store.base import ANY, MemoryMatch, OnConflict, RecordRow
from remem.store.filter_sql import filters_where
from remem.store.queries import FIRST_PAGE, RecordPage, SessionWindow, TextUpdate
from remem.store.rows import check_enums, check_value, row_to_record
from remem.store.sessions_sql import SQLSessions, upsert_session
from remem.types import Filters, Record


@dataclass(frozen=True)
class InsertBatch:
    """One ``insert_records`` call as a backend writes it: the rows, the time they are
    stamped with, whether a taken id is skipped (None in the result) rather than refused, and
    whether the records not 'skipped' go into the facts backlog too."""

    rows: Sequence[RecordRow]
    now: float
    skip: bool
    awaiting_facts: bool


class SQLRecords(SQLSessions):
    """The record methods both SQL backends answer with the same statements."""

    # What each backend does its own way: its full-text rows (FTS5 / tsvector) when a record
    # comes, goes or its text changes, and how it fetches the windows of ``neighbours``.
    def _insert_rows(self, c: Any, batch: InsertBatch, rev: int) -> list[int | None]:
        """Insert the records and their lexical rows (inside the caller's write, at revision
        ``rev``); an existing id is None with ``batch.skip``, else an error that rolls the
        write back."""
        raise NotImplementedError

    def _insert_one(self, batch: InsertBatch) -> list[int | None] | None:
        """A backend's shorter way to write one record (PostgreSQL: one statement), or None:
        the general one."""
        return None

    def delete(self, record_ids: Sequence[str]) -> int:
        raise NotImplementedError

    def _replace_tokens(self, c: Any, rowid: int, tokens: str) -> None:
        """Replace a record's own lexical tokens (inside the caller's write)."""
        raise NotImplementedError

    def _neighbour_rows(
        self, anchors: Sequence[Record], before: int, after: int, keep: str, params: list[Any]
    ) -> Iterator[tuple[int, Sequence[Any]]]:
        """(anchor rowid, record row) for up to ``before`` earlier and ``after`` later
        records of each anchor's session passing ``keep`` (bound with ``params``), nearest
        first."""
        raise NotImplementedError

    def insert_records(
        self,
        rows: Sequence[RecordRow],
        *,
        on_conflict: OnConflict = "error",
        awaiting_facts: bool = False,
    ) -> list[int | None]:
        """Insert (record fields, lexical tokens[, context tokens]) in one transaction.

        Returns the new rowids; ``None`` where ``on_conflict="skip"`` skipped an existing id.
        With ``on_conflict="error"`` an existing id aborts the whole batch (nothing written).
        ``awaiting_facts``: see ``RecordStore.insert_records``.
        """
        if not rows:
            return []
        for row in rows:  # before the transaction: a bad record costs no write lock
            check_enums(row[0])
        batch = InsertBatch(rows, time.time(), on_conflict == "skip", awaiting_facts)
        one = self._insert_one(batch)
        if one is not None:
            return one
        with self.write() as c:
            out = self._insert_rows(c, batch, self._bump_rev(c))
            for rowid, row in zip(out, rows, strict=True):
                fields = row[0]
                origin, parent = fields.get("origin_platform"), fields.get("parent_session")
                if rowid is not None and fields.get("session") and (origin or parent):
                    upsert_session(c, self._sql, fields["session"], origin, parent)
        return out

    # ---------------------------------------------------------------- reads
    def get(self, record_id: str) -> Record | None:
        found = self._records("WHERE r.id = ?", (record_id,))
        return found[0] if found else None

    def rowids_for_ids(self, ids: Sequence[str]) -> list[int]:
        out: list[int] = []
        for chunk in self._sql.chunks(ids):
            member, params = self._sql.member("id", chunk)
            out += [
                int(r[0]) for r in self.query(f"SELECT rowid FROM records WHERE {member}", params)
            ]
        return out

    def ids_where(self, filters: Filters | None) -> list[str]:
        where, params = filters_where(filters, self._sql)
        return [r[0] for r in self.query(f"SELECT r.id FROM records r WHERE 1=1{where}", params)]

    def existing_hashes(self, hashes: Sequence[str]) -> set[str]:
        found: set[str] = set()
        for chunk in self._sql.chunks(hashes):
            member, params = self._sql.member("content_hash", chunk)
            sql = f"SELECT DISTINCT content_hash FROM records WHERE {member}"
            found.update(r[0] for r in self.query(sql, params))
        return found

    def get_by_rowids(
        self, rowids: Iterable[int], filters: Filters | None = None, now: float | None = None
    ) -> dict[int, Record]:
        """Records by rowid that still exist *and* still pass the filters (the authority)."""
        d = self._sql
        ids = list(dict.fromkeys(int(r) for r in rowids))
        where, params = filters_where(filters, d, now=now, keyed=True)
        out: dict[int, Record] = {}
        for chunk in d.chunks(ids):
            member, bound = d.member("r.rowid", chunk, array="bigint")
            for record in self._records(f"WHERE {member}{where}", [*bound, *params]):
                out[record.rowid] = record  # type: ignore[index]
        return out

    def ids_with_prefix(self, prefix: str, limit: int = 20) -> list[str]:
        if len(prefix) > ID_MAX_CHARS:  # no id is longer, and SQLite refuses a LIKE pattern
            return []  # past 50,000 bytes ("LIKE or GLOB pattern too complex")
        d = self._sql
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.query(
            f"SELECT id FROM records WHERE id {d.like} {d.mark} ESCAPE '\\' "
            f"ORDER BY id{d.by_code_point} LIMIT {d.mark}",
            (escaped + "%", limit),
        )
        return [r[0] for r in rows]

    def neighbours(
        self, records: Sequence[Record], window: SessionWindow
    ) -> dict[int, list[Record]]:
        """See ``Store.neighbours`` (store/base.py), which says what the window holds."""
        where, params = filters_where(window.filters, self._sql, now=window.now, keyed=True)
        keep = (
            "r.message_kind NOT IN ('control', 'directive')"
            if window.context
            else "r.index_status != 'skipped'"
        )
        anchors = [r for r in records if r.session and r.rowid is not None]
        out: dict[int, list[Record]] = {r.rowid: [] for r in anchors if r.rowid is not None}
        if anchors:
            rows = self._neighbour_rows(anchors, window.before, window.after, keep + where, params)
            for anchor, row in rows:
                out[anchor].append(row_to_record(row))
        return out

    def count(self, filters: Filters | None = None, *, up_to: int | None = None) -> int:
        """Records passing ``filters``; with ``up_to``, counted no further than that."""
        where, params = filters_where(filters, self._sql)
        if up_to is not None:  # the scan stops at the limit
            sql = "SELECT count(*) FROM (SELECT 1 FROM records r WHERE 1=1{} LIMIT ?) s"
            return int(self.query_one(self._sql.sql(sql).format(where), [*params, up_to])[0])
        return int(self.query_one(f"SELECT count(*) FROM records r WHERE 1=1{where}", params)[0])

    def previous_texts(self, session: str, before: float, limit: int) -> list[Record]:
        """The last ``limit`` records of a session created before ``before``, oldest first."""
        newest_first = self._records(
            "WHERE r.session = ? AND r.created_at < ? AND r.index_status != 'skipped' "
            "ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?",
            (session, before, limit),
        )
        return newest_first[::-1]

    def list_records(self, page: RecordPage = FIRST_PAGE) -> list[Record]:
        """See ``RecordStore.list_records``."""
        d = self._sql
        where, params = filters_where(page.filters, d)
        order = "DESC" if page.newest_first else "ASC"
        return self._records(
            f"WHERE 1=1{where} ORDER BY r.created_at {order}, r.rowid {order} "
            f"LIMIT {d.mark} OFFSET {d.mark}",
            [*params, d.limit(page.limit), page.offset],
        )

    def iter_records(
        self, filters: Filters | None = None, batch: int = 1000, after: int = 0
    ) -> Iterator[Record]:
        """Every record passing the filters with rowid > after, in rowid order, page by page."""
        d = self._sql
        where, params = filters_where(filters, d)
        while True:
            page = self._records(
                f"WHERE r.rowid > {d.mark}{where} ORDER BY r.rowid LIMIT {d.mark}",
                [after, *params, batch],
            )
            if not page:
                return
            yield from page
            after = page[-1].rowid  # type: ignore[assignment]

    def current_memories(self, match: MemoryMatch) -> list[Record]:
        d = self._sql
        sql = "WHERE r.kind = 'memory' AND r.scope = ? AND (r.valid_to IS NULL OR r.valid_to > ?)"
        params: list[Any] = [match.scope, match.now]
        if match.content_hash is not None:
            sql += " AND r.content_hash = ?"
            params.append(match.content_hash)
        if match.metadata_equals is not None:
            sql += f" AND {d.json_equals}"
            params += [match.metadata_equals[0], match.metadata_equals[1]]
        if match.speaker_id is not ANY:
            sql += f" AND r.speaker_id {d.same} ?"
            params.append(match.speaker_id)
        sql += " ORDER BY r.created_at, r.rowid LIMIT ?"
        params.append(d.no_limit if match.limit is None else match.limit)
        return self._records(sql, params)

    def find_message(self, session: str, created_at: float) -> Record | None:
        """The message of a session at exactly this time (the newest if several)."""
        found = self._records(
            "WHERE r.session = ? AND r.created_at = ? ORDER BY r.rowid DESC LIMIT 1",
            (session, created_at),
        )
        return found[0] if found else None

    # ---------------------------------------------------------------- updates
    def _update_row(self, c: Any, rowid: int, now: float, **columns: Any) -> None:
        """Set these columns of one record, with the next revision and ``now`` as its update
        time (inside the caller's write; the names are this module's, never input)."""
        rev = self._bump_rev(c)
        sets = "".join(f"{name} = ?, " for name in columns)
        c.execute(
            self._sql.sql(f"UPDATE records SET {sets}rev = ?, updated_at = ? WHERE rowid = ?"),
            [*columns.values(), rev, now, rowid],
        )

    def update_text(self, change: TextUpdate) -> None:
        """See ``RecordStore.update_text``: the row and its lexical row in one write."""
        now = time.time()
        columns = {"text": change.text, "visible_text": change.visible_text}
        with self.write() as c:
            self._update_row(c, change.rowid, now, **columns, content_hash=change.content_hash)
            self._replace_tokens(c, change.rowid, change.tokens)

    def set_validity(self, rowid: int, valid_to: float | None, metadata: dict[str, Any]) -> None:
        """Close (or reopen, with None) a memory and replace its metadata, in one write."""
        now = time.time()
        with self.write() as c:
            metadata_json = json.dumps(metadata, ensure_ascii=False)
            self._update_row(c, rowid, now, valid_to=valid_to, metadata=metadata_json)

    def record_access(self, items: Sequence[tuple[int, int, float]]) -> None:
        """Add (rowid, count, last access time) to records' access statistics."""
        d = self._sql
        with self.write() as c:
            c.cursor().executemany(
                d.sql(
                    "UPDATE records SET access_count = access_count + ?, "
                    f"last_access = {d.greatest}(coalesce(last_access, 0), ?) WHERE rowid = ?"
                ),
                [(count, when, rowid) for rowid, count, when in items],
            )

    def mark_index_status(
        self, rowids: Sequence[int], status: str, error: str | None = None
    ) -> None:
        if not rowids:
            return
        check_value("index_status", status)
        now = time.time()
        d = self._sql
        with self.write() as c:
            rev = self._bump_rev(c)
            for chunk in d.chunks(rowids):
                member, bound = d.member("rowid", chunk, array="bigint")
                c.execute(
                    d.sql("UPDATE records SET index_status = ?, index_error = ?, rev = ?, ")
                    + f"updated_at = {d.mark} WHERE {member}",
                    [status, error, rev, now, *bound],
                )

    # ---------------------------------------------------------------- deletes
    def delete_session_after(self, session: str, after: float) -> list[str]:
        """Delete a session's records created after ``after``; returns their ids."""
        rows = self.query(
            self._sql.sql("SELECT id FROM records WHERE session = ? AND created_at > ?"),
            (session, after),
        )
        ids = [r[0] for r in rows]
        self.delete(ids)
        return ids
