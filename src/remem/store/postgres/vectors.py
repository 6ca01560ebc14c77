"""Vectors by model in the PostgreSQL store (pgvector ``vector`` values, one row per record
and model; the HNSW indexes over them are in ``nearest.py``)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg
from pgvector import Vector

from remem.store.base import IndexMetaRow, StoredVector, VectorRows
from remem.store.postgres.filters import RECORD_COLUMNS, filters_sql
from remem.store.postgres.records import RecordsMixin
from remem.store.rows import INDEX_META_FIELDS, row_to_record
from remem.types import Filters, Record


def as_array(value: Any) -> np.ndarray:
    """A stored vector as float32 numpy (the adapter gives arrays or ``Vector`` objects)."""
    if isinstance(value, Vector):
        value = value.to_numpy()
    return np.asarray(value, np.float32)


class VectorsMixin(RecordsMixin):
    def put_vectors(
        self,
        model_id: str,
        provider: str,
        model: str,
        items: Sequence[tuple[int, np.ndarray]],
        *,
        mark_indexed: bool = True,
    ) -> int:
        """Write one vector per record rowid for this model (replacing an older one; a rowid
        given twice keeps its last vector). Records deleted meanwhile are skipped. Returns
        how many vectors were written."""
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
                    "INSERT INTO vectors (record_rowid, model_id, provider, model, dim, vec, "
                    "created_at) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    [
                        (rowid, model_id, provider, model, len(data), Vector(data), now)
                        for rowid, data in (
                            (r, np.asarray(v, np.float32).ravel()) for r, v in latest.items()
                        )
                        if rowid in alive
                    ],
                )
            if mark_indexed:
                c.execute(
                    "UPDATE records SET index_status = 'indexed', index_error = NULL, rev = %s, "
                    "updated_at = %s WHERE rowid = ANY(%s::bigint[])",
                    (rev, now, rowids),
                )
            else:  # still bump rev so in-memory indexes pick up the new vector's record
                c.execute(
                    "UPDATE records SET rev = %s WHERE rowid = ANY(%s::bigint[])", (rev, rowids)
                )
            c.execute(
                "DELETE FROM claims WHERE model_id = %s AND rowid = ANY(%s::bigint[])",
                (model_id, rowids),
            )
        return len(rowids)

    def vectors_of(self, rowids: Sequence[int]) -> dict[int, list[StoredVector]]:
        """(model_id, provider, model, float32 bytes) per record."""
        out: dict[int, list[StoredVector]] = {}
        rows = self.query(
            "SELECT record_rowid, model_id, provider, model, vec FROM vectors "
            "WHERE record_rowid = ANY(%s::bigint[]) ORDER BY seq",
            (list(rowids),),
        )
        for r in rows:
            data = as_array(r[4]).tobytes()
            out.setdefault(int(r[0]), []).append((r[1], r[2], r[3], data))
        return out

    def clear_vectors(self, filters: Filters | None = None, model_id: str | None = None) -> int:
        """Delete vectors (of one model, or all) of the records passing the filters; those
        records become pending again. Returns how many vectors were deleted."""
        where, params = filters_sql(filters)
        model_sql = " AND v.model_id = %s" if model_id else ""
        model_args = [model_id] if model_id else []
        with self.write() as c:
            gone = c.execute(
                "DELETE FROM vectors v USING records r WHERE r.rowid = v.record_rowid"
                f"{model_sql}{where} RETURNING v.record_rowid",
                [*model_args, *params],
            ).fetchall()
            if gone:
                c.execute(
                    "UPDATE records SET index_status = 'pending', updated_at = %s "
                    "WHERE rowid = ANY(%s::bigint[])",
                    (time.time(), sorted({int(r[0]) for r in gone})),
                )
                self._bump_deletes(c)
        return len(gone)

    def drop_vectors_of_indexed(self, model_id: str) -> int:
        """Delete this model's vectors of indexed records; their status stays."""
        with self.write() as c:
            gone = c.execute(
                "DELETE FROM vectors v USING records r WHERE r.rowid = v.record_rowid "
                "AND v.model_id = %s AND r.index_status = 'indexed' RETURNING v.record_rowid",
                (model_id,),
            ).fetchall()
            if gone:
                self._bump_deletes(c)
        return len(gone)

    def mark_indexed_with(self, model_id: str) -> None:
        """Records holding a vector of ``model_id`` are indexed (after other models' vectors
        were cleared, which marked them pending)."""
        with self.write() as c:
            c.execute(
                "UPDATE records SET index_status = 'indexed' WHERE rowid IN "
                "(SELECT record_rowid FROM vectors WHERE model_id = %s)",
                (model_id,),
            )

    def records_missing_vectors(
        self, model_id: str, *, limit: int = 1000, after_rowid: int = 0
    ) -> list[Record]:
        """Records without a vector of this model, in rowid order (resumable by rowid)."""
        rows = self.query(
            f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.rowid > %s "
            "AND r.index_status != 'skipped' AND NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.record_rowid = r.rowid AND v.model_id = %s) "
            "ORDER BY r.rowid LIMIT %s",
            (after_rowid, model_id, limit),
        )
        return [row_to_record(r) for r in rows]

    def count_missing_vectors(self, model_id: str) -> int:
        row = self.query_one(
            "SELECT count(*) FROM records r WHERE r.index_status != 'skipped' AND NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.record_rowid = r.rowid AND v.model_id = %s)",
            (model_id,),
        )
        return int(row[0])

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

    # Vectors written before models were recorded (imports from older tools) carry model_id ''.
    def has_legacy_vectors(self) -> bool:
        return self.query_one("SELECT 1 FROM vectors WHERE model_id = '' LIMIT 1") is not None

    def legacy_vector_dims(self) -> set[int]:
        rows = self.query("SELECT DISTINCT dim FROM vectors WHERE model_id = ''")
        return {int(r[0]) for r in rows}

    def adopt_legacy_vectors(
        self, model_id: str, provider: str, model: str, dim: int | None = None
    ) -> int:
        """Label the legacy vectors (of ``dim``, or of every dim) as ``model_id``'s; where a
        record already has a vector of that model, that one wins and the legacy one goes.
        Re-inserted (new seq), so in-memory indexes pick them up. Returns how many moved."""
        dim_sql, dim_args = (" AND dim = %s", [dim]) if dim else ("", [])
        now = time.time()
        with self.write() as c:
            rev = self._bump_rev(c)
            moved = c.execute(
                "INSERT INTO vectors (record_rowid, model_id, provider, model, dim, vec, "
                "created_at) SELECT record_rowid, %s, %s, %s, dim, vec, created_at FROM vectors "
                f"WHERE model_id = ''{dim_sql} AND record_rowid NOT IN "
                "(SELECT record_rowid FROM vectors WHERE model_id = %s) ORDER BY seq "
                "RETURNING record_rowid",
                [model_id, provider, model, *dim_args, model_id],
            ).fetchall()
            c.execute(f"DELETE FROM vectors WHERE model_id = ''{dim_sql}", dim_args)
            rowids = [int(r[0]) for r in moved]
            c.execute(
                "UPDATE records SET index_status = 'indexed', index_error = NULL, rev = %s, "
                "updated_at = %s WHERE index_status != 'skipped' AND rowid = ANY(%s::bigint[])",
                (rev, now, rowids),
            )
        return len(rowids)

    @staticmethod
    def _load(c: psycopg.Connection[Any], model_id: str, dim: int, after_seq: int) -> VectorRows:
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

    def load_vectors(self, model_id: str, dim: int, after_seq: int = 0) -> VectorRows:
        """Vectors of one model with seq > after_seq (all of them by default)."""
        with self.read() as c:
            return self._load(c, model_id, dim, after_seq)

    def index_delta(
        self, model_id: str, dim: int, after_seq: int, after_rev: int
    ) -> tuple[VectorRows, list[IndexMetaRow], int, int]:
        """Everything an in-memory index needs to catch up, read in one snapshot: new
        vectors, the filter columns of records changed since ``after_rev``, the current rev
        and the delete counter (a changed counter means: reload from scratch)."""
        with self.read() as c:
            counters = dict(
                c.execute(
                    "SELECT name, value FROM counters WHERE name IN ('rev', 'deletes')"
                ).fetchall()
            )
            vectors = self._load(c, model_id, dim, after_seq)
            meta = c.execute(
                f"SELECT {', '.join(INDEX_META_FIELDS)} FROM records WHERE rev > %s",
                (after_rev,),
            ).fetchall()
        return vectors, meta, int(counters["rev"]), int(counters["deletes"])
