"""The vector reads a file-backed snapshot index makes (``VectorStore.vector_state`` and
friends), over PostgreSQL.

Search on this backend asks the server's own HNSW index (``nearest.py``), so these reads
serve tools that walk a store's vectors generically (``remem copy``, an in-process index
built on purpose, the conformance suite). They follow the same rules as the SQLite store:
one snapshot per call, seq order for a delta, rowid order for a full read.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from remem.store.base import VectorRows, VectorState
from remem.store.postgres.vectors import VectorsMixin, as_array
from remem.store.queries import VectorRead
from remem.store.sql_base import counter


class SnapshotReadsMixin(VectorsMixin):
    def vector_state(self, model_id: str, dim: int) -> VectorState:
        with self.read() as c:
            row = c.execute(
                "SELECT coalesce(max(seq), 0) FROM vectors WHERE model_id = %s AND dim = %s",
                (model_id, dim),
            ).fetchone()
            deletes = counter(c, "deletes")
        return VectorState(int(row[0]) if row else 0, deletes)

    def read_vectors(self, request: VectorRead) -> VectorRows:
        with self.read() as c:
            rows = self._vector_rows(c, request.model_id, request.dim, request.after_seq)
        rowids, matrix = rows.rowids, rows.matrix
        if request.by_rowid:
            order = np.argsort(rowids, kind="stable")
            rowids, matrix = rowids[order], matrix[order]
        if request.allocate is not None:
            out_rowids, out_matrix = request.allocate(len(rowids))
            out_rowids[:] = rowids
            out_matrix[:] = matrix
            rowids, matrix = out_rowids, out_matrix
        return VectorRows(rowids, matrix, rows.max_seq)

    def vectors_at(
        self, model_id: str, dim: int, rowids: Sequence[int], upto_seq: int
    ) -> dict[int, np.ndarray]:
        if not rowids:
            return {}
        with self.read() as c, c.cursor(binary=True) as cur:
            rows = cur.execute(
                "SELECT record_rowid, vec FROM vectors WHERE model_id = %s AND dim = %s "
                "AND seq <= %s AND record_rowid = ANY(%s::bigint[])",
                (model_id, dim, upto_seq, list(rowids)),
            ).fetchall()
        return {int(rowid): as_array(vec) for rowid, vec in rows}
