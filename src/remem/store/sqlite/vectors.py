"""Vectors by model in the SQLite store (float32 BLOBs; any index is derived from them)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence

import numpy as np

from remem.store.base import VectorRows, VectorState
from remem.store.queries import VectorRead, VectorWrite
from remem.store.sqlite import vector_reads
from remem.store.sqlite.connection import SQLiteConnection
from remem.store.vectors_sql import INSERT_VECTOR, SQLVectors


class VectorsMixin(SQLVectors, SQLiteConnection):
    def put_vectors(self, batch: VectorWrite) -> int:
        """See ``VectorStore.put_vectors``: one statement a vector."""
        model_id, provider, model = batch.model_id, batch.provider, batch.model
        items, mark_indexed = batch.items, batch.mark_indexed
        if not items:
            return 0
        now = time.time()
        written: list[int] = []
        with self.write() as c:
            rev = self._bump_rev(c)
            for rowid, vec in items:
                data = np.asarray(vec, dtype=np.float32)
                if not c.execute("SELECT 1 FROM records WHERE rowid = ?", (rowid,)).fetchone():
                    continue
                c.execute(
                    "DELETE FROM vectors WHERE record_rowid = ? AND model_id = ?", (rowid, model_id)
                )
                c.execute(
                    INSERT_VECTOR,
                    (rowid, model_id, provider, model, int(data.shape[0]), data.tobytes(), now),
                )
                written.append(rowid)
            self._stamp_vectored(c, written, rev, now, mark_indexed)
        return len(written)

    def vector_stats(self) -> list[tuple[str, int, int]]:
        """(model_id, dim, count) for every model that has vectors, most vectors first. Read
        from the counts that triggers keep (schema 7), not by scanning the vectors."""
        rows = self.query("SELECT model_id, dim, n FROM vector_counts ORDER BY n DESC, model_id")
        return [(r[0], r[1], r[2]) for r in rows]

    def vector_count(self, model_id: str) -> int:
        row = self.query_one(
            "SELECT coalesce(sum(n), 0) FROM vector_counts WHERE model_id = ?", (model_id,)
        )
        return int(row[0])

    @staticmethod
    def _vector_bytes(value: bytes) -> bytes:
        return value  # stored as float32 bytes

    @staticmethod
    def _vector_rows(c: sqlite3.Connection, model_id: str, dim: int, after_seq: int) -> VectorRows:
        return vector_reads.read_vectors(c, VectorRead(model_id, dim, after_seq))

    # ---------------------------------------------------------------- snapshot index reads
    def vector_state(self, model_id: str, dim: int) -> VectorState:
        with self.read() as c:
            return vector_reads.vector_state(c, model_id)

    def read_vectors(self, request: VectorRead) -> VectorRows:
        if request.after_seq == 0:
            # A full read takes seconds: on a connection of its own, so the small reads and
            # writes of other threads do not wait for it.
            with self.side_read() as c:
                return vector_reads.read_vectors(c, request)
        with self.read() as c:
            return vector_reads.read_vectors(c, request)

    def vectors_at(
        self, model_id: str, dim: int, rowids: Sequence[int], upto_seq: int
    ) -> dict[int, np.ndarray]:
        if not rowids:
            return {}
        with self.read() as c:
            return vector_reads.vectors_at(c, model_id, dim, rowids, upto_seq)
