"""Bulk vector reads for indexes: one model's vectors straight into a preallocated matrix.

~0.75 s of CPU per 100k 512-d vectors is Python's per-row cost in the sqlite3 module (SQLite
itself reads the blobs in 0.25 s), against 1 s and twice the memory for ``fetchall`` +
``b"".join``. Opening a big store fast therefore needs the snapshot files of
``remem.index.snapshot``, not a faster SQL read; this read is what builds them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

from remem.store.base import VectorRows, VectorState
from remem.store.queries import VectorRead
from remem.store.sql_base import counter

# Rows per fetchmany: big enough to amortise the call, small enough that the row tuples in
# flight stay a few MB.
_FETCH_ROWS = 4096


def read_vectors(conn: sqlite3.Connection, request: VectorRead) -> VectorRows:
    """The vectors ``request`` names (see ``VectorStore.read_vectors``). Call inside a read
    transaction so the count and the rows agree; without one a concurrent delete leaves the
    tail unfilled: it is trimmed, or with ``allocate`` an error."""
    model_id, dim, after_seq = request.model_id, request.dim, request.after_seq
    by_rowid, allocate = request.by_rowid, request.allocate
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
    scan = where
    if by_rowid and after_seq == 0:
        # Every vector of the model in rowid order (a snapshot build): walked along the
        # (record_rowid, model_id) unique index, streaming. Through the (model_id, seq) index
        # SQLite sorted them first, holding the rows' vectors in its sorter (37 MB more peak
        # for 25k 384-d vectors): `remem import` ends with this read, and its peak jumped there.
        scan = "WHERE +model_id = ? AND +seq > ? AND dim = ?"
    cursor = conn.execute(f"SELECT record_rowid, vec FROM vectors {scan} ORDER BY {order}", args)
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
    return VectorRows(rowids, matrix, int(max_seq))


def vector_state(conn: sqlite3.Connection, model_id: str) -> VectorState:
    # max(seq) over the (model_id, seq) index is one B-tree descent; dim is checked per row
    # only on the read itself (a model has one dimension).
    max_seq = conn.execute(
        "SELECT coalesce(max(seq), 0) FROM vectors WHERE model_id = ?", (model_id,)
    ).fetchone()[0]
    return VectorState(int(max_seq), counter(conn, "deletes"))


def vectors_at(
    conn: sqlite3.Connection, model_id: str, dim: int, rowids: Sequence[int], upto_seq: int
) -> dict[int, np.ndarray]:
    marks = ",".join("?" * len(rowids))
    rows = conn.execute(
        f"SELECT record_rowid, vec FROM vectors WHERE model_id = ? AND dim = ? AND seq <= ? "
        f"AND record_rowid IN ({marks})",
        (model_id, dim, upto_seq, *rowids),
    ).fetchall()
    return {r: np.frombuffer(v, np.float32) for r, v in rows}
