"""Vectors by model in the SQLite store (float32 BLOBs; any index is derived from them)."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from remem.store.base import Allocate, IndexMetaRow, StoredVector, VectorRows, VectorState
from remem.store.rows import INDEX_META_FIELDS, row_to_record
from remem.store.sqlite import vector_reads
from remem.store.sqlite.connection import SQLiteConnection
from remem.store.sqlite.filters import RECORD_COLUMNS, filters_sql, in_marks
from remem.store.sqlite.records import chunks
from remem.types import Filters, Record


class VectorsMixin(SQLiteConnection):
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
                data = np.asarray(vec, dtype=np.float32)
                if not c.execute("SELECT 1 FROM records WHERE rowid = ?", (rowid,)).fetchone():
                    continue
                c.execute(
                    "DELETE FROM vectors WHERE record_rowid = ? AND model_id = ?", (rowid, model_id)
                )
                c.execute(
                    "INSERT INTO vectors (record_rowid, model_id, provider, model, dim, vec, "
                    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (rowid, model_id, provider, model, int(data.shape[0]), data.tobytes(), now),
                )
                if mark_indexed:
                    c.execute(
                        "UPDATE records SET index_status = 'indexed', index_error = NULL, "
                        "rev = ?, updated_at = ? WHERE rowid = ?",
                        (rev, now, rowid),
                    )
                else:  # still bump rev so in-memory indexes pick up the new vector's record
                    c.execute("UPDATE records SET rev = ? WHERE rowid = ?", (rev, rowid))
                written += 1
        return written

    def vectors_of(self, rowids: Sequence[int]) -> dict[int, list[StoredVector]]:
        """(model_id, provider, model, float32 bytes) per record."""
        out: dict[int, list[StoredVector]] = {}
        for chunk in chunks(rowids):
            sql = (
                "SELECT record_rowid, model_id, provider, model, vec FROM vectors WHERE "
                f"record_rowid IN ({in_marks(chunk)})"
            )
            for r in self.query(sql, chunk):
                out.setdefault(r[0], []).append((r[1], r[2], r[3], r[4]))
        return out

    def clear_vectors(self, filters: Filters | None = None, model_id: str | None = None) -> int:
        """Delete vectors (of one model, or all) of the records passing the filters; those
        records become pending again. Returns how many vectors were deleted."""
        where, params = filters_sql(filters)
        model_sql = " AND v.model_id = ?" if model_id else ""
        model_args = [model_id] if model_id else []
        with self.write() as c:
            rowids = [
                r[0]
                for r in c.execute(
                    "SELECT v.record_rowid FROM vectors v JOIN records r "
                    f"ON r.rowid = v.record_rowid WHERE 1=1{model_sql}{where}",
                    [*model_args, *params],
                )
            ]
            for chunk in chunks(rowids):
                marks = in_marks(chunk)
                c.execute(
                    f"DELETE FROM vectors WHERE record_rowid IN ({marks})"
                    + model_sql.replace("v.", ""),
                    [*chunk, *model_args],
                )
                # updated_at stays: it dates the text, and dropping a vector changes no text
                # (doctor's stale check compares the two)
                c.execute(
                    f"UPDATE records SET index_status = 'pending' WHERE rowid IN ({marks})",
                    chunk,
                )
            if rowids:
                c.execute("UPDATE counters SET value = value + 1 WHERE name = 'deletes'")
        return len(rowids)

    def drop_vectors_of_indexed(self, model_id: str) -> int:
        """Delete this model's vectors of indexed records; their status stays."""
        with self.write() as c:
            gone = c.execute(
                "DELETE FROM vectors WHERE model_id = ? AND record_rowid IN "
                "(SELECT rowid FROM records WHERE index_status = 'indexed')",
                (model_id,),
            ).rowcount
            if gone:
                c.execute("UPDATE counters SET value = value + 1 WHERE name = 'deletes'")
        return int(gone)

    def mark_indexed_with(self, model_id: str) -> None:
        """Records holding a vector of ``model_id`` are indexed (after other models' vectors
        were cleared, which marked them pending)."""
        with self.write() as c:
            c.execute(
                "UPDATE records SET index_status = 'indexed' WHERE rowid IN "
                "(SELECT record_rowid FROM vectors WHERE model_id = ?)",
                (model_id,),
            )

    def records_missing_vectors(
        self, model_id: str, *, limit: int = 1000, after_rowid: int = 0
    ) -> list[Record]:
        """Records without a vector of this model, in rowid order (resumable by rowid)."""
        rows = self.query(
            f"SELECT {RECORD_COLUMNS} FROM records r WHERE r.rowid > ? "
            "AND r.index_status != 'skipped' AND NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.record_rowid = r.rowid AND v.model_id = ?) "
            "ORDER BY r.rowid LIMIT ?",
            (after_rowid, model_id, limit),
        )
        return [row_to_record(r) for r in rows]

    def count_missing_vectors(self, model_id: str) -> int:
        row = self.query_one(
            "SELECT count(*) FROM records r WHERE r.index_status != 'skipped' AND NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.record_rowid = r.rowid AND v.model_id = ?)",
            (model_id,),
        )
        return int(row[0])

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

    # Vectors written before models were recorded (imports from older tools) carry model_id ''.
    def has_legacy_vectors(self) -> bool:
        return self.query_one("SELECT 1 FROM vectors WHERE model_id = '' LIMIT 1") is not None

    def legacy_vector_dims(self) -> set[int]:
        return {r[0] for r in self.query("SELECT DISTINCT dim FROM vectors WHERE model_id = ''")}

    def adopt_legacy_vectors(
        self, model_id: str, provider: str, model: str, dim: int | None = None
    ) -> int:
        """Label the legacy vectors (of ``dim``, or of every dim) as ``model_id``'s; where a
        record already has a vector of that model, that one wins and the legacy one goes.
        Re-inserted (new seq), so in-memory indexes pick them up. Returns how many moved."""
        dim_sql, dim_args = (" AND dim = ?", [dim]) if dim else ("", [])
        now = time.time()
        with self.write() as c:
            rev = self._bump_rev(c)
            rowids = [
                r[0]
                for r in c.execute(
                    f"SELECT record_rowid FROM vectors WHERE model_id = ''{dim_sql} AND "
                    "record_rowid NOT IN (SELECT record_rowid FROM vectors WHERE model_id = ?)",
                    [*dim_args, model_id],
                )
            ]
            c.execute(
                "INSERT INTO vectors (record_rowid, model_id, provider, model, dim, vec, "
                "created_at) SELECT record_rowid, ?, ?, ?, dim, vec, created_at FROM vectors "
                f"WHERE model_id = ''{dim_sql} AND record_rowid NOT IN "
                "(SELECT record_rowid FROM vectors WHERE model_id = ?)",
                [model_id, provider, model, *dim_args, model_id],
            )
            c.execute(f"DELETE FROM vectors WHERE model_id = ''{dim_sql}", dim_args)
            for chunk in chunks(rowids):
                c.execute(
                    "UPDATE records SET index_status = 'indexed', index_error = NULL, rev = ?, "
                    "updated_at = ? WHERE index_status != 'skipped' AND rowid IN "
                    f"({in_marks(chunk)})",
                    [rev, now, *chunk],
                )
        return len(rowids)

    def load_vectors(self, model_id: str, dim: int, after_seq: int = 0) -> VectorRows:
        """Vectors of one model with seq > after_seq (all of them by default), in seq order."""
        with self.read() as c:
            return vector_reads.read_vectors(c, model_id, dim, after_seq)

    def index_delta(
        self, model_id: str, dim: int, after_seq: int, after_rev: int
    ) -> tuple[VectorRows, list[IndexMetaRow], int, int]:
        """Everything an in-memory index needs to catch up, read in one snapshot:
        new vectors, the filter columns of records changed since ``after_rev``, the current rev
        and the delete counter (a changed counter means: reload from scratch)."""
        with self.read() as c:
            rev = c.execute("SELECT value FROM counters WHERE name = 'rev'").fetchone()[0]
            deletes = c.execute("SELECT value FROM counters WHERE name = 'deletes'").fetchone()[0]
            vectors = vector_reads.read_vectors(c, model_id, dim, after_seq)
            meta = c.execute(
                f"SELECT {', '.join(INDEX_META_FIELDS)} FROM records WHERE rev > ?", (after_rev,)
            ).fetchall()
        return vectors, meta, rev, deletes

    # ---------------------------------------------------------------- snapshot index reads
    def vector_state(self, model_id: str, dim: int) -> VectorState:
        with self.read() as c:
            return vector_reads.vector_state(c, model_id)

    def read_vectors(
        self,
        model_id: str,
        dim: int,
        after_seq: int = 0,
        *,
        by_rowid: bool = False,
        allocate: Allocate | None = None,
    ) -> VectorRows:
        if after_seq == 0:
            # A full read takes seconds: on a connection of its own, so the small reads and
            # writes of other threads do not wait for it.
            with self.side_read() as c:
                return vector_reads.read_vectors(
                    c, model_id, dim, by_rowid=by_rowid, allocate=allocate
                )
        with self.read() as c:
            return vector_reads.read_vectors(
                c, model_id, dim, after_seq, by_rowid=by_rowid, allocate=allocate
            )

    def live_rowids(self, model_id: str, dim: int, upto_seq: int) -> np.ndarray:
        with self.read() as c:
            return vector_reads.live_rowids(c, model_id, dim, upto_seq)

    def vectors_at(
        self, model_id: str, dim: int, rowids: Sequence[int], upto_seq: int
    ) -> dict[int, np.ndarray]:
        if not rowids:
            return {}
        with self.read() as c:
            return vector_reads.vectors_at(c, model_id, dim, rowids, upto_seq)

    def filter_rows(self, after_rev: int) -> tuple[list[IndexMetaRow], int]:
        with self.read() as c:
            return vector_reads.filter_rows(c, after_rev)
