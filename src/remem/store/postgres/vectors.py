"""Vectors by model in the PostgreSQL store (pgvector ``vector`` values, one row per record
and model; the HNSW indexes over them are in ``nearest.py``)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import psycopg
from pgvector import Vector

from remem.store.base import VectorRows
from remem.store.postgres.records import RecordsMixin
from remem.store.queries import VectorWrite
from remem.store.sql_dialect import POSTGRES
from remem.store.vectors_sql import INSERT_VECTOR, SQLVectors


def as_array(value: Any) -> np.ndarray:
    """A stored vector as float32 numpy (the adapter gives arrays or ``Vector`` objects)."""
    if isinstance(value, Vector):
        value = value.to_numpy()
    return np.asarray(value, np.float32)


class VectorsMixin(SQLVectors, RecordsMixin):
    def put_vectors(self, batch: VectorWrite) -> int:
        """See ``VectorStore.put_vectors``: the records locked in rowid order, the vectors in
        one ``executemany``."""
        model_id, provider, model = batch.model_id, batch.provider, batch.model
        items, mark_indexed = batch.items, batch.mark_indexed
        latest = {int(rowid): vec for rowid, vec in items}
        if not latest:
            return 0
        now = time.time()
        with self.write() as c:
            rev = self._bump_rev(c)  # also orders seq by commit (index_delta reads by seq)
            rowids = [
                int(r[0])
                for r in c.execute(
                    "SELECT rowid FROM records WHERE rowid = ANY(%s::bigint[]) "
                    "ORDER BY rowid FOR UPDATE",
                    (list(latest),),
                )
            ]
            if not rowids:
                return 0
            c.execute(
                "DELETE FROM vectors WHERE model_id = %s AND record_rowid = ANY(%s::bigint[])",
                (model_id, rowids),
            )
            alive = set(rowids)
            with c.cursor() as cur:
                cur.executemany(
                    POSTGRES.sql(INSERT_VECTOR),
                    [
                        (rowid, model_id, provider, model, len(data), Vector(data), now)
                        for rowid, data in (
                            (r, np.asarray(v, np.float32).ravel()) for r, v in latest.items()
                        )
                        if rowid in alive
                    ],
                )
            self._stamp_vectored(c, rowids, rev, now, mark_indexed)
            c.execute(
                "DELETE FROM claims WHERE model_id = %s AND rowid = ANY(%s::bigint[])",
                (model_id, rowids),
            )
        return len(rowids)

    def vector_stats(self) -> list[tuple[str, int, int]]:
        """(model_id, dim, count) for every model that has vectors, most vectors first."""
        rows = self.query(
            "SELECT model_id, dim, count(*) FROM vectors GROUP BY model_id, dim "
            "ORDER BY count(*) DESC, model_id, dim"
        )
        return [(r[0], int(r[1]), int(r[2])) for r in rows]

    def vector_count(self, model_id: str) -> int:
        row = self.query_one("SELECT count(*) FROM vectors WHERE model_id = %s", (model_id,))
        return int(row[0])

    @staticmethod
    def _vector_bytes(value: Any) -> bytes:
        return as_array(value).tobytes()

    @staticmethod
    def _vector_rows(
        c: psycopg.Connection[Any], model_id: str, dim: int, after_seq: int
    ) -> VectorRows:
        with c.cursor(binary=True) as cur:
            rows = cur.execute(
                "SELECT seq, record_rowid, vec FROM vectors WHERE model_id = %s AND dim = %s "
                "AND seq > %s ORDER BY seq",
                (model_id, dim, after_seq),
            ).fetchall()
        if not rows:
            return VectorRows(np.empty(0, np.int64), np.empty((0, dim), np.float32), after_seq)
        rowids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        matrix = np.vstack([as_array(r[2]) for r in rows]).reshape(-1, dim)
        return VectorRows(rowids, matrix, int(rows[-1][0]))
