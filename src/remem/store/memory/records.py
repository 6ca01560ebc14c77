"""Records in the in-memory store: insert (checked as the SQL schema checks), and reads."""

from __future__ import annotations

import json
import time
from bisect import bisect_right, insort
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from remem.errors import ConflictError, ValidationError
from remem.store.base import ANY, MemoryMatch, OnConflict, RecordRow
from remem.store.memory.sessions import SessionsMixin
from remem.store.memory.state import StoredRow, first
from remem.store.queries import FIRST_PAGE, RecordPage
from remem.store.rows import INSERT_FIELDS, STORED_FIELDS, check_enums, column_value
from remem.types import INDEX_STATUSES, KINDS, MESSAGE_KINDS, Filters, Record

# What the SQL schema enforces: columns that must hold a value, and the allowed values.
REQUIRED = ("id", "kind", "text", "scope", "importance", "created_at", "content_hash")
ALLOWED = {"kind": KINDS, "index_status": INDEX_STATUSES, "message_kind": MESSAGE_KINDS}
REAL_COLUMNS = ("importance", "created_at", "event_time", "valid_from", "valid_to")
AFTER_ALL = float("inf")  # sorts after every rowid at one created_at


def stored_values(fields: dict[str, Any]) -> dict[str, Any]:
    """The columns a SQL row would hold for these prepared fields; a value the schema would
    refuse raises ``ValidationError`` naming the field."""
    values = {name: column_value(fields, name) for name in INSERT_FIELDS}
    for name in REQUIRED:
        if values[name] is None:
            raise ValidationError(name, None, "give a value: every record needs one")
    for name, allowed in ALLOWED.items():
        if values[name] not in allowed:
            raise ValidationError(name, values[name], f"use one of {', '.join(allowed)}")
    for name in REAL_COLUMNS:
        if values[name] is not None:
            try:
                values[name] = float(values[name])
            except (TypeError, ValueError):
                raise ValidationError(name, values[name], "give a number") from None
    values.update(access_count=0, last_access=None)
    return {name: values[name] for name in STORED_FIELDS}


class RecordsMixin(SessionsMixin):
    def insert_records(
        self,
        rows: Sequence[RecordRow],
        *,
        on_conflict: OnConflict = "error",
        awaiting_facts: bool = False,
    ) -> list[int | None]:
        """Insert (record fields, lexical tokens[, context tokens]) as one write; with
        ``awaiting_facts`` the records not 'skipped' wait for their facts.

        Returns the new rowids; ``None`` where ``on_conflict="skip"`` skipped an existing id.
        With ``on_conflict="error"`` an existing id aborts the whole batch (nothing written).
        """
        with self._write():
            planned: list[tuple[dict[str, Any], RecordRow] | None] = []
            taken: set[str] = set()
            for row in rows:
                check_enums(row[0])
                values = stored_values(row[0])
                if values["id"] in self._by_id or values["id"] in taken:
                    if on_conflict == "skip":
                        planned.append(None)
                        continue
                    raise ConflictError(
                        "id",
                        values["id"],
                        "a record with this id exists; choose another id "
                        "or delete the old record first",
                    )
                taken.add(values["id"])
                planned.append((values, row))
            rev, now = self._bump_rev(), time.time()
            out = [
                None if item is None else self._add_row(item[0], item[1], rev, now)
                for item in planned
            ]
            if awaiting_facts:
                self._awaiting_facts.update(
                    rowid
                    for rowid, item in zip(out, planned, strict=True)
                    if rowid is not None
                    and item is not None
                    and item[0]["index_status"] != "skipped"
                )
            return out

    def _add_row(self, values: dict[str, Any], row: RecordRow, rev: int, now: float) -> int:
        rowid = self._next_rowid
        self._next_rowid += 1
        self._rows[rowid] = StoredRow(values, rev, now)
        self._by_id[values["id"]] = rowid
        session = values["session"]
        if session is not None:
            insort(self._timelines.setdefault(session, []), (values["created_at"], rowid))
        self._lexical.put(rowid, row[1], row[2] if len(row) > 2 else "")
        fields = row[0]
        origin, parent = fields.get("origin_platform"), fields.get("parent_session")
        if session and (origin or parent):
            self._upsert_session(session, origin, parent)
        return rowid

    # ---------------------------------------------------------------- reads
    def get(self, record_id: str) -> Record | None:
        with self._read():
            rowid = self._by_id.get(record_id)
            return None if rowid is None else self._record(rowid)

    def rowids_for_ids(self, ids: Sequence[str]) -> list[int]:
        with self._read():
            return [self._by_id[i] for i in dict.fromkeys(ids) if i in self._by_id]

    def ids_with_prefix(self, prefix: str, limit: int = 20) -> list[str]:
        """Ids starting with ``prefix``, ASCII letters matched in either case (as SQL LIKE)."""
        wanted = _ascii_lower(prefix)
        with self._read():
            found = sorted(i for i in self._by_id if _ascii_lower(i).startswith(wanted))
        return first(found, limit)

    def ids_where(self, filters: Filters | None) -> list[str]:
        with self._read():
            return [r.values["id"] for r in self._matching(self._predicate(filters))]

    def existing_hashes(self, hashes: Sequence[str]) -> set[str]:
        wanted = set(hashes)
        with self._read():
            return {
                r.values["content_hash"]
                for r in self._rows.values()
                if r.values["content_hash"] in wanted
            }

    def get_by_rowids(
        self, rowids: Iterable[int], filters: Filters | None = None, now: float | None = None
    ) -> dict[int, Record]:
        """Records by rowid that still exist *and* still pass the filters (the authority)."""
        with self._read():
            passes = self._predicate(filters, now)
            return {
                rowid: self._record(rowid)
                for rowid in dict.fromkeys(int(r) for r in rowids)
                if rowid in self._rows and passes(self._rows[rowid].values)
            }

    def _matching(self, passes: Callable[[dict[str, Any]], bool]) -> list[StoredRow]:
        return [row for row in self._rows.values() if passes(row.values)]

    def _sorted_rowids(
        self, passes: Callable[[dict[str, Any]], bool], newest_first: bool = False
    ) -> list[int]:
        """Rowids of passing rows in (created_at, rowid) order."""
        keys = [
            (row.values["created_at"], rowid)
            for rowid, row in self._rows.items()
            if passes(row.values)
        ]
        return [rowid for _, rowid in sorted(keys, reverse=newest_first)]

    def list_records(self, page: RecordPage = FIRST_PAGE) -> list[Record]:
        with self._read():
            rowids = self._sorted_rowids(self._predicate(page.filters), page.newest_first)
            return [self._record(r) for r in first(rowids, page.limit, page.offset)]

    def iter_records(
        self, filters: Filters | None = None, batch: int = 1000, after: int = 0
    ) -> Iterator[Record]:
        """Every record passing the filters with rowid > after, in rowid order, page by page
        (the lock is held per page, not while the caller works)."""
        while True:
            with self._read():
                passes = self._predicate(filters)
                rowids = list(self._rows)  # ascending: rowids only grow
                page: list[Record] = []
                for rowid in rowids[bisect_right(rowids, after) :]:
                    if passes(self._rows[rowid].values):
                        page.append(self._record(rowid))
                        if len(page) == batch:
                            break
            if not page:
                return
            yield from page
            after = page[-1].rowid or 0

    def count(self, filters: Filters | None = None, *, up_to: int | None = None) -> int:
        with self._read():
            if filters is None:
                n = len(self._rows)
            else:
                n = len(self._matching(self._predicate(filters)))
        return n if up_to is None else min(n, up_to)

    def current_memories(self, match: MemoryMatch) -> list[Record]:
        m = match

        def wanted(v: dict[str, Any]) -> bool:
            return (
                v["kind"] == "memory"
                and v["scope"] == m.scope
                and (v["valid_to"] is None or v["valid_to"] > m.now)
                and (m.content_hash is None or v["content_hash"] == m.content_hash)
                and (m.speaker_id is ANY or v["speaker_id"] == m.speaker_id)
                and (m.metadata_equals is None or _metadata_is(v["metadata"], *m.metadata_equals))
            )

        with self._read():
            rowids = self._sorted_rowids(wanted)
            return [self._record(r) for r in first(rowids, m.limit)]


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _ascii_lower(text: str) -> str:
    return text.translate(_ASCII_LOWER)


def _metadata_is(metadata: str, key: str, value: str) -> bool:
    """Whether the JSON metadata holds the string ``value`` under ``key`` (as SQL's
    ``json_extract(metadata, '$.key') = value``: a number or true never equals text)."""
    found = json.loads(metadata).get(key) if metadata != "{}" else None
    return isinstance(found, str) and found == value
