"""The write journal (issue 47): a message is acknowledged once it *alone* is durable.

Inserting a record writes seven indexes, an FTS5 row (a new FTS5 segment per commit: ~50 KB
of WAL) and the counters; on two cores that cost caps eight writer processes well below
2,000 acknowledged writes/s. With ``store.journal`` a single record written on its own is
appended instead to the ``journal`` table: one row holding the record as it will be stored
(its column values, lexical and context tokens, JSON), keyed by the rowid it will have, in
one transaction under the group commit (``durability.py``). That is the acknowledgement: the
row is on disk, so neither a killed process nor a power loss loses it.

A *fold* moves journal rows into the real tables (``records`` with its indexes, FTS5, the
facts backlog) with the store's own insert, in one transaction that also deletes the folded
rows: a fold lands whole or not at all, and one lost to a crash is simply done again. It
needs no barrier of its own: the WAL is a sequence, so a later acknowledgement's fsync
covers it, and a power loss that drops it drops it with its deletes. Folds run:

- before every read that is not already in a transaction (``fold_for_read``): a reader
  never misses an acknowledged write (one ``PRAGMA data_version`` read when nothing new
  was written since the journal was last seen empty);
- at the start of every other write, in its own transaction: a delete, an update or a
  direct insert finds the records acknowledged before it (and rowids or ids are never
  handed out twice);
- on a thread of the appending process (``Folder``), in batches of ``store.fold_batch``,
  once appends pause for a few milliseconds; on open (a crash's leftovers) and on close.

Ids stay unique across both tables: an append checks ``records`` and the journal's own
unique ``id`` inside its transaction. The rowid an append takes is the next after both
tables' largest, so the caller gets it at once (the embedding queue, the facts backlog).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from remem.store.rows import INSERT_FIELDS, STORED_FIELDS, column_value, row_to_record
from remem.types import Record

log = logging.getLogger("remem")

# Made on open when missing, not by a migration: the schema version is one for both backends
# (PostgreSQL has no journal), and a remem without the journal reading the file ignores the
# table, which a clean close leaves empty.
JOURNAL_DDL = (
    "CREATE TABLE IF NOT EXISTS journal ("
    " rowid INTEGER PRIMARY KEY,"  # the record's rowid once folded
    " id TEXT NOT NULL UNIQUE,"
    " session TEXT,"
    " created_at REAL NOT NULL,"
    " body TEXT NOT NULL)",  # JSON: [values, tokens, context, awaiting facts, time]
    "CREATE INDEX IF NOT EXISTS journal_session ON journal (session, created_at)",
)

_NEXT_ROWID = (
    "SELECT max(coalesce((SELECT max(rowid) FROM records), 0), "
    "coalesce((SELECT max(rowid) FROM journal), 0)) + 1"
)
_DEFAULTS: dict[str, Any] = {"access_count": 0, "last_access": None}
# The folder thread folds this long after the first append since its last fold. Not after a
# pause in this process's appends: with eight writer processes each one pauses whenever the
# others hold the lock, and folds of a few rows each cost a commit (an FTS5 segment) apiece.
FOLD_WAIT_S = 0.1


def id_taken(c: sqlite3.Connection, record_id: str) -> bool:
    """Whether a record or a journal row holds this id (inside the caller's transaction)."""
    row = c.execute(
        "SELECT EXISTS (SELECT 1 FROM records WHERE id = ?) "
        "OR EXISTS (SELECT 1 FROM journal WHERE id = ?)",
        (record_id, record_id),
    ).fetchone()
    return bool(row[0])


def append(c: sqlite3.Connection, row: Sequence[Any], awaiting_facts: bool, now: float) -> int:
    """Append one record row (fields, tokens[, context]) to the journal; its rowid-to-be.
    The caller checked its id (``id_taken``) in the same transaction."""
    fields, tokens = row[0], row[1]
    context = row[2] if len(row) > 2 else ""
    values = [column_value(fields, col) for col in INSERT_FIELDS]
    facts = awaiting_facts and fields.get("index_status") != "skipped"
    # ensure_ascii: a lone surrogate stays an escape, as the records table would refuse it
    body = json.dumps([values, tokens, context, facts, now], separators=(",", ":"))
    rowid = int(c.execute(_NEXT_ROWID).fetchone()[0])
    # a 'skipped' record is never a turn of context (previous_texts): no session to find it by
    session = (
        None if values[INSERT_FIELDS.index("index_status")] == "skipped" else fields.get("session")
    )
    c.execute(
        "INSERT INTO journal (rowid, id, session, created_at, body) VALUES (?, ?, ?, ?, ?)",
        (rowid, fields["id"], session, fields["created_at"], body),
    )
    return rowid


def pending(c: sqlite3.Connection, limit: int | None = None) -> list[tuple[int, list[Any]]]:
    """Journal rows in rowid order (all, or the first ``limit``): (rowid, decoded body)."""
    sql = "SELECT rowid, body FROM journal ORDER BY rowid"
    rows = c.execute(sql + " LIMIT ?", (limit,)) if limit else c.execute(sql)
    return [(int(rowid), json.loads(body)) for rowid, body in rows]


def session_records(c: sqlite3.Connection, session: str, before: float, limit: int) -> list[Record]:
    """The journal's last ``limit`` records of a session created before ``before`` that are
    not 'skipped' (not yet folded), newest first."""
    rows = c.execute(
        "SELECT rowid, body FROM journal WHERE session = ? AND created_at < ? "
        "ORDER BY created_at DESC, rowid DESC LIMIT ?",
        (session, before, limit),
    ).fetchall()
    out = []
    for rowid, body in rows:
        named = dict(zip(INSERT_FIELDS, json.loads(body)[0], strict=True))
        values = [named[n] if n in named else _DEFAULTS[n] for n in STORED_FIELDS]
        out.append(row_to_record((int(rowid), *values)))
    return out


class Folder:
    """Folds the journal on a thread of the process that appends, ``FOLD_WAIT_S`` after the
    first append since its last fold, in batches (``fold_batch``: one transaction each), at a lower OS
    priority where the platform allows, so acknowledgements come first."""

    def __init__(self, fold_batch: Any, name: str = "remem-journal-fold") -> None:
        self._fold_batch = fold_batch  # callable: fold one batch, return how many rows
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._started = False
        self._lock = threading.Lock()

    def kick(self) -> None:
        """An append landed: fold it soon."""
        with self._lock:
            if not self._started and not self._stop:
                self._started = True
                self._thread.start()
        self._wake.set()

    def close(self) -> None:
        with self._lock:
            self._stop = True
            started = self._started
        self._stopping.set()
        self._wake.set()
        if started:
            self._thread.join()

    def _run(self) -> None:
        with_nice()
        while not self._stop:
            self._wake.wait()
            # let the appends gather: one fold transaction for many of them
            self._wake.clear()
            self._stopping.wait(FOLD_WAIT_S)
            try:
                while not self._stop and self._fold_batch():
                    pass
            except Exception as exc:
                log.warning("folding the write journal failed (%s); the next read retries", exc)


def with_nice() -> None:
    """Lower this thread's OS priority (Linux: per thread) so acknowledgements win the CPU."""
    setpriority = getattr(os, "setpriority", None)
    if setpriority is None:
        return
    with suppress(OSError):
        setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
