"""Vectors in both SQL backends, written once over their ``SQLDialect`` (issue 42): which
records lack a model's vector, marking records indexed, clearing vectors, and the vectors
written before models were recorded (model_id ''). How vectors are stored (float32 BLOBs / pgvector), written,
counted and read into an index stays each backend's own."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from remem.store.base import IndexMetaRow, StoredVector, VectorRows
from remem.store.filter_sql import filters_where
from remem.store.queries import Backlog
from remem.store.rows import INDEX_META_FIELDS
from remem.store.sql_base import SQLConnection, counter
from remem.types import Filters, Record

INSERT_VECTOR = (  # with "?" marks (``SQLDialect.sql``)
    "INSERT INTO vectors (record_rowid, model_id, provider, model, dim, vec, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


class SQLVectors(SQLConnection):
    @staticmethod
    def _vector_bytes(value: Any) -> bytes:
        """A stored vector as float32 bytes."""
        raise NotImplementedError  # each backend's own: a BLOB / a pgvector value

    def _stamp_vectored(
        self, c: Any, rowids: Sequence[int], rev: int, now: float, mark_indexed: bool
    ) -> None:
        """The records that just got a vector (``put_vectors``, in its write): 'indexed'
        (error cleared, ``updated_at`` now) or, ``mark_indexed`` False, only the new ``rev``,
        so in-memory indexes still pick up the new vector's record."""
        d = self._sql
        for chunk in d.chunks(list(rowids)):
            member, bound = d.member("rowid", chunk, array="bigint")
            if mark_indexed:
                sets = "index_status = 'indexed', index_error = NULL, rev = ?, updated_at = ?"
                c.execute(d.sql(f"UPDATE records SET {sets} WHERE ") + member, [rev, now, *bound])
            else:
                c.execute(d.sql("UPDATE records SET rev = ? WHERE ") + member, [rev, *bound])

    def vectors_of(self, rowids: Sequence[int]) -> dict[int, list[StoredVector]]:
        """(model_id, provider, model, float32 bytes) per record."""
        d = self._sql
        out: dict[int, list[StoredVector]] = {}
        for chunk in d.chunks(list(rowids)):
            member, bound = d.member("record_rowid", chunk, array="bigint")
            rows = self.query(
                "SELECT record_rowid, model_id, provider, model, vec FROM vectors "
                f"WHERE {member} ORDER BY seq",
                bound,
            )
            for r in rows:
                out.setdefault(int(r[0]), []).append((r[1], r[2], r[3], self._vector_bytes(r[4])))
        return out

    def clear_vectors(self, filters: Filters | None = None, model_id: str | None = None) -> int:
        """Delete vectors (of one model, or all) of the records passing the filters; those
        records become pending again. Returns how many vectors were deleted."""
        d = self._sql
        where, params = filters_where(filters, d)
        model_sql, model_args = (" AND v.model_id = ?", [model_id]) if model_id else ("", [])
        with self.write() as c:
            rowids = [
                int(r[0])
                for r in c.execute(
                    d.sql(
                        "SELECT v.record_rowid FROM vectors v JOIN records r "
                        f"ON r.rowid = v.record_rowid WHERE 1=1{model_sql}"
                    )
                    + where,
                    [*model_args, *params],
                )
            ]
            for chunk in d.chunks(rowids):
                member, bound = d.member("record_rowid", chunk, array="bigint")
                c.execute(
                    f"DELETE FROM vectors WHERE {member}" + d.sql(model_sql.replace("v.", "")),
                    [*bound, *model_args],
                )
                # updated_at stays: it dates the text, and dropping a vector changes no text
                # (``stale_vectors`` compares the two)
                member, bound = d.member("rowid", chunk, array="bigint")
                c.execute(f"UPDATE records SET index_status = 'pending' WHERE {member}", bound)
            if rowids:
                self._bump_deletes(c)
        return len(rowids)

    def drop_vectors_of_indexed(self, model_id: str) -> int:
        """Delete this model's vectors of indexed records; their status stays."""
        with self.write() as c:
            gone = c.execute(
                self._sql.sql(
                    "DELETE FROM vectors WHERE model_id = ? AND record_rowid IN "
                    "(SELECT rowid FROM records WHERE index_status = 'indexed')"
                ),
                (model_id,),
            ).rowcount
            if gone:
                self._bump_deletes(c)
        return int(gone)

    def mark_indexed_with(self, model_id: str) -> None:
        """Records holding a vector of ``model_id`` are indexed (after other models' vectors
        were cleared, which marked them pending)."""
        with self.write() as c:
            c.execute(
                self._sql.sql(
                    "UPDATE records SET index_status = 'indexed' WHERE rowid IN "
                    "(SELECT record_rowid FROM vectors WHERE model_id = ?)"
                ),
                (model_id,),
            )

    def records_missing_vectors(self, backlog: Backlog) -> list[Record]:
        """See ``Store.records_missing_vectors`` (resumable by rowid either way)."""
        model_id, limit = backlog.model_id, backlog.limit
        if backlog.before_rowid is None:
            where, order, bound = "r.rowid > ?", "r.rowid", backlog.after_rowid
        else:
            where, order, bound = "r.rowid < ?", "r.rowid DESC", backlog.before_rowid
        return self._records(
            f"WHERE {where} AND r.index_status != 'skipped' AND NOT EXISTS "
            "(SELECT 1 FROM vectors v WHERE v.record_rowid = r.rowid AND v.model_id = ?) "
            f"ORDER BY {order} LIMIT ?",
            (bound, model_id, limit),
        )

    def count_missing_vectors(self, model_id: str) -> int:
        row = self.query_one(
            self._sql.sql(
                "SELECT count(*) FROM records r WHERE r.index_status != 'skipped' AND NOT EXISTS "
                "(SELECT 1 FROM vectors v WHERE v.record_rowid = r.rowid AND v.model_id = ?)"
            ),
            (model_id,),
        )
        return int(row[0])

    # Vectors written before models were recorded (imports from older tools) carry model_id ''.
    def has_legacy_vectors(self) -> bool:
        return self.query_one("SELECT 1 FROM vectors WHERE model_id = '' LIMIT 1") is not None

    def legacy_vector_dims(self) -> set[int]:
        rows = self.query("SELECT DISTINCT dim FROM vectors WHERE model_id = ''")
        return {int(r[0]) for r in rows}

    def delete_vectors(self, seqs: Sequence[int]) -> None:
        d = self._sql
        with self.write() as c:
            for chunk in d.chunks(list(seqs)):
                member, bound = d.member("seq", chunk, array="bigint")
                c.execute(f"DELETE FROM vectors WHERE {member}", bound)
            self._bump_deletes(c)

    def stale_vectors(self, model_id: str) -> list[int]:
        """Rowids of records whose text changed after their ``model_id`` vector was made."""
        rowids = self._column(
            "SELECT r.rowid FROM records r JOIN vectors v ON v.record_rowid = r.rowid "
            "WHERE v.model_id = ? AND v.created_at < r.updated_at - 1 ORDER BY r.rowid",
            (model_id,),
        )
        return [int(rowid) for rowid in rowids]

    @staticmethod
    def _vector_rows(c: Any, model_id: str, dim: int, after_seq: int) -> VectorRows:
        """Vectors of one model and dim with seq > after_seq, in seq order, read in ``c``."""
        raise NotImplementedError  # each backend's own: BLOBs / pgvector values

    def load_vectors(self, model_id: str, dim: int, after_seq: int = 0) -> VectorRows:
        """Vectors of one model with seq > after_seq (all of them by default), in seq order."""
        with self.read() as c:
            return self._vector_rows(c, model_id, dim, after_seq)

    def index_delta(
        self, model_id: str, dim: int, after_seq: int, after_rev: int
    ) -> tuple[VectorRows, list[IndexMetaRow], int, int]:
        """Everything an in-memory index needs to catch up, read in one snapshot: new
        vectors, the filter columns of records changed since ``after_rev``, the current rev
        and the delete counter (a changed counter means: reload from scratch)."""
        with self.read() as c:
            rev, deletes = self._current_rev(c), counter(c, "deletes")
            vectors = self._vector_rows(c, model_id, dim, after_seq)
            meta = c.execute(
                f"SELECT {', '.join(INDEX_META_FIELDS)} FROM records WHERE rev > {self._sql.mark}",
                (after_rev,),
            ).fetchall()
        return vectors, meta, rev, deletes

    def adopt_legacy_vectors(
        self, model_id: str, provider: str, model: str, dim: int | None = None
    ) -> int:
        """Label the legacy vectors (of ``dim``, or of every dim) as ``model_id``'s; where a
        record already has a vector of that model, that one wins and the legacy one goes.
        Re-inserted (new seq), so in-memory indexes pick them up. Returns how many moved."""
        d = self._sql
        dim_sql, dim_args = (" AND dim = ?", [dim]) if dim else ("", [])
        legacy = (
            f"FROM vectors WHERE model_id = ''{dim_sql} AND record_rowid NOT IN "
            "(SELECT record_rowid FROM vectors WHERE model_id = ?)"
        )
        now = time.time()
        with self.write() as c:
            rev = self._bump_rev(c)
            moved = c.execute(d.sql(f"SELECT record_rowid {legacy}"), [*dim_args, model_id])
            rowids = [int(r[0]) for r in moved.fetchall()]
            c.execute(
                d.sql(
                    "INSERT INTO vectors (record_rowid, model_id, provider, model, dim, vec, "
                    f"created_at) SELECT record_rowid, ?, ?, ?, dim, vec, created_at {legacy} "
                    "ORDER BY seq"
                ),
                [model_id, provider, model, *dim_args, model_id],
            )
            c.execute(d.sql(f"DELETE FROM vectors WHERE model_id = ''{dim_sql}"), dim_args)
            for chunk in d.chunks(rowids):
                member, bound = d.member("rowid", chunk, array="bigint")
                c.execute(
                    d.sql(
                        "UPDATE records SET index_status = 'indexed', index_error = NULL, "
                        "rev = ?, updated_at = ? WHERE index_status != 'skipped' AND "
                    )
                    + member,
                    [rev, now, *bound],
                )
        return len(rowids)

    # ---------------------------------------------------------------- snapshot index reads
    def live_rowids(self, model_id: str, dim: int, upto_seq: int) -> np.ndarray:
        with self.read() as c:
            rows = c.execute(
                self._sql.sql(
                    "SELECT record_rowid FROM vectors WHERE model_id = ? AND dim = ? "
                    "AND seq <= ? ORDER BY record_rowid"
                ),
                (model_id, dim, upto_seq),
            ).fetchall()
        return np.fromiter((r[0] for r in rows), np.int64, len(rows))

    def filter_rows(self, after_rev: int) -> tuple[list[IndexMetaRow], int]:
        with self.read() as c:
            rev = self._current_rev(c)
            rows = c.execute(
                f"SELECT {', '.join(INDEX_META_FIELDS)} FROM records "
                f"WHERE rev > {self._sql.mark} ORDER BY rev, rowid",
                (after_rev,),
            ).fetchall()
        return [tuple(r) for r in rows], rev
