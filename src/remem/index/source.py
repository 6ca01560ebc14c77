"""What a vector index needs from a store, and a fast SQLite implementation of it.

The index is derived data: it reads one model's vectors from the store, never writes them. It
needs five things, all cheap except the full read:

- a change token that moves whenever anyone commits (a search that sees the same token skips
  every other question);
- the state of one model's vectors: the highest sequence number (every insert takes a new one,
  a replaced vector too) and the delete counter (bumped by every delete of records or vectors);
- the vectors with a sequence number above N, as one contiguous float32 matrix;
- the rowids of the vectors still present up to sequence N (asked only after a delete);
- the vectors of a few records (probes, asked when a snapshot is opened).

``SQLiteVectorSource`` answers from the store's file over its own connection, so an index build
in a background thread never waits on the store's lock. It reads the vectors straight into a
preallocated matrix: ~0.75 s of CPU per 100k 512-d vectors is Python's per-row cost in the
sqlite3 module (SQLite itself reads the blobs in 0.25 s), against 1 s and twice the memory for
``fetchall`` + ``b"".join``. Opening a store fast therefore needs the snapshot files of
``remem.index.snapshot``, not a faster SQL read.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from remem.store.rows import INDEX_META_FIELDS

INDEX_META_COLUMNS = ", ".join(INDEX_META_FIELDS)

# Rows per fetchmany: big enough to amortise the call, small enough that the row tuples in
# flight stay a few MB.
_FETCH_ROWS = 4096


@dataclass(frozen=True, slots=True)
class VectorState:
    """Where one model's vectors stand: the newest sequence number and the delete counter."""

    max_seq: int
    deletes: int


@dataclass(slots=True)
class VectorBatch:
    """Vectors of one model: rowids[i] is the record of matrix[i]."""

    rowids: np.ndarray  # int64
    matrix: np.ndarray  # float32 (n, dim), C-contiguous
    max_seq: int  # the highest sequence number read (the ``after_seq`` asked when none)

    def __len__(self) -> int:
        return len(self.rowids)


# Given the row count, the arrays to read into: (rowids int64 (n,), matrix float32 (n, dim)),
# e.g. memory-mapped files, so a snapshot build never holds the matrix in anonymous memory.
Allocate = Callable[[int], tuple[np.ndarray, np.ndarray]]


class FilterSource(Protocol):
    """The records' filter columns as a vector index keeps them (``FilteredVectorIndex``)."""

    def change_token(self) -> Hashable: ...
    def filter_rows(self, after_rev: int) -> tuple[list[tuple], int]: ...


class VectorSource(Protocol):
    """The store as a vector index sees it (one model, one dimension at a time)."""

    def change_token(self) -> Hashable: ...
    def vector_state(self, model_id: str, dim: int) -> VectorState: ...
    def read_vectors(
        self,
        model_id: str,
        dim: int,
        after_seq: int = 0,
        *,
        by_rowid: bool = False,
        allocate: Allocate | None = None,
    ) -> VectorBatch: ...
    def live_rowids(self, model_id: str, dim: int, upto_seq: int) -> np.ndarray: ...
    def vectors_at(
        self, model_id: str, dim: int, rowids: list[int], upto_seq: int
    ) -> dict[int, np.ndarray]: ...


def read_vectors(
    conn: sqlite3.Connection,
    model_id: str,
    dim: int,
    after_seq: int = 0,
    *,
    by_rowid: bool = False,
    allocate: Allocate | None = None,
) -> VectorBatch:
    """Vectors of ``model_id`` with seq > after_seq, read into one preallocated matrix.

    In sequence order by default (a delta: later rows replace earlier ones of the same record);
    ``by_rowid`` sorts by record rowid instead (a full read for a snapshot, whose rowids must be
    sorted). ``allocate`` supplies the arrays to fill (default: new ones in memory). Call
    inside a read transaction when the count and the rows must agree; without one a concurrent
    delete leaves the tail unfilled: it is trimmed, or with ``allocate`` an error.
    """
    where = "WHERE model_id = ? AND seq > ? AND dim = ?"
    args = (model_id, after_seq, dim)
    count, max_seq = conn.execute(
        f"SELECT count(*), coalesce(max(seq), ?) FROM vectors {where}", (after_seq, *args)
    ).fetchone()
    if allocate is None:
        rowids, matrix = np.empty(count, np.int64), np.empty((count, dim), np.float32)
    else:
        rowids, matrix = allocate(count)
    flat = matrix.reshape(-1).view(np.uint8)
    row_bytes = dim * 4
    order = "record_rowid" if by_rowid else "seq"
    cursor = conn.execute(f"SELECT record_rowid, vec FROM vectors {where} ORDER BY {order}", args)
    filled = 0
    while rows := cursor.fetchmany(_FETCH_ROWS):
        rows = rows[: count - filled]
        if not rows:
            break
        ids, blobs = zip(*rows, strict=True)
        end = filled + len(rows)
        rowids[filled:end] = ids
        flat[filled * row_bytes : end * row_bytes] = np.frombuffer(b"".join(blobs), np.uint8)
        filled = end
    if filled < count:
        if allocate is not None:
            raise RuntimeError(f"{count - filled} vectors were deleted during the read")
        matrix, rowids = matrix[:filled], rowids[:filled]
    return VectorBatch(rowids, matrix, int(max_seq))


def filter_rows(conn: sqlite3.Connection, after_rev: int) -> tuple[list[tuple], int]:
    """(rows of INDEX_META_COLUMNS of the records changed after ``after_rev``, current rev),
    read in one snapshot (call inside a read transaction)."""
    rev = conn.execute("SELECT value FROM counters WHERE name = 'rev'").fetchone()[0]
    rows = conn.execute(
        f"SELECT {INDEX_META_COLUMNS} FROM records WHERE rev > ?", (after_rev,)
    ).fetchall()
    return rows, int(rev)


def vector_state(conn: sqlite3.Connection, model_id: str, dim: int) -> VectorState:
    # max(seq) over the (model_id, seq) index is one B-tree descent; dim is checked per row
    # only on the read itself (a model has one dimension).
    max_seq = conn.execute(
        "SELECT coalesce(max(seq), 0) FROM vectors WHERE model_id = ?", (model_id,)
    ).fetchone()[0]
    deletes = conn.execute("SELECT value FROM counters WHERE name = 'deletes'").fetchone()[0]
    return VectorState(int(max_seq), int(deletes))


def live_rowids(conn: sqlite3.Connection, model_id: str, dim: int, upto_seq: int) -> np.ndarray:
    """Sorted rowids of the model's vectors with seq <= upto_seq that still exist."""
    rows = conn.execute(
        "SELECT record_rowid FROM vectors WHERE model_id = ? AND dim = ? AND seq <= ? "
        "ORDER BY record_rowid",
        (model_id, dim, upto_seq),
    ).fetchall()
    return np.fromiter((r[0] for r in rows), np.int64, len(rows))


def vectors_at(
    conn: sqlite3.Connection, model_id: str, dim: int, rowids: list[int], upto_seq: int
) -> dict[int, np.ndarray]:
    """The vectors of these records with seq <= upto_seq (a few: probes that a snapshot was
    made from this database)."""
    marks = ",".join("?" * len(rowids))
    rows = conn.execute(
        f"SELECT record_rowid, vec FROM vectors WHERE model_id = ? AND dim = ? AND seq <= ? "
        f"AND record_rowid IN ({marks})",
        (model_id, dim, upto_seq, *rowids),
    ).fetchall()
    return {r: np.frombuffer(v, np.float32) for r, v in rows}


class SQLiteVectorSource:
    """``VectorSource`` and ``FilterSource`` over a remem SQLite file, with its own read
    connection."""

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = 10_000) -> None:
        self.path = Path(path)
        self._timeout = busy_timeout_ms / 1000
        self._lock = threading.Lock()
        self._conn = self._connect()

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(
            str(self.path),
            timeout=self._timeout,
            isolation_level=None,
            check_same_thread=False,  # the shared one is guarded by self._lock
        )

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def change_token(self) -> Hashable:
        # data_version moves when another connection (this process's store included) commits.
        with self._lock:
            return self._conn.execute("PRAGMA data_version").fetchone()[0]

    def filter_rows(self, after_rev: int) -> tuple[list[tuple], int]:
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                return filter_rows(self._conn, after_rev)
            finally:
                self._conn.execute("COMMIT")

    def vector_state(self, model_id: str, dim: int) -> VectorState:
        with self._lock:
            return vector_state(self._conn, model_id, dim)

    def read_vectors(
        self,
        model_id: str,
        dim: int,
        after_seq: int = 0,
        *,
        by_rowid: bool = False,
        allocate: Allocate | None = None,
    ) -> VectorBatch:
        if after_seq == 0:
            # A full read takes seconds: on a connection of its own, so the small reads of
            # searches in other threads do not wait for it.
            conn = self._connect()
            try:
                return _in_snapshot(conn, model_id, dim, after_seq, by_rowid, allocate)
            finally:
                conn.close()
        with self._lock:
            return _in_snapshot(self._conn, model_id, dim, after_seq, by_rowid, allocate)

    def live_rowids(self, model_id: str, dim: int, upto_seq: int) -> np.ndarray:
        with self._lock:
            return live_rowids(self._conn, model_id, dim, upto_seq)

    def vectors_at(
        self, model_id: str, dim: int, rowids: list[int], upto_seq: int
    ) -> dict[int, np.ndarray]:
        with self._lock:
            return vectors_at(self._conn, model_id, dim, rowids, upto_seq)


def _in_snapshot(
    conn: sqlite3.Connection,
    model_id: str,
    dim: int,
    after_seq: int,
    by_rowid: bool,
    allocate: Allocate | None,
) -> VectorBatch:
    conn.execute("BEGIN")
    try:
        return read_vectors(conn, model_id, dim, after_seq, by_rowid=by_rowid, allocate=allocate)
    finally:
        conn.execute("COMMIT")
