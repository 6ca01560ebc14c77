"""Vectors by model in the in-memory store (float32 bytes, as the SQLite store keeps them)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from functools import partial

import numpy as np

from remem.errors import ValidationError
from remem.store.base import IndexMetaRow, StoredVector, VectorRows, VectorState
from remem.store.memory.state import MemoryState
from remem.store.queries import Backlog, VectorRead, VectorWrite
from remem.store.rows import INDEX_META_FIELDS
from remem.types import Filters, Record


def _float32(rowid: int, vec: np.ndarray) -> np.ndarray:
    data = np.asarray(vec, dtype=np.float32)
    if data.ndim != 1 or data.shape[0] == 0:
        raise ValidationError(
            f"vector of record {rowid}", data.shape, "give one non-empty row of numbers"
        )
    return data


class VectorsMixin(MemoryState):
    def put_vectors(self, batch: VectorWrite) -> int:
        """See ``VectorStore.put_vectors``."""
        model_id, provider, model = batch.model_id, batch.provider, batch.model
        items, mark_indexed = batch.items, batch.mark_indexed
        if not items:
            return 0
        vectors = [(rowid, _float32(rowid, vec)) for rowid, vec in items]
        now = time.time()
        written = 0
        with self._write():
            rev = self._bump_rev()
            for rowid, data in vectors:
                row = self._rows.get(rowid)
                if row is None:
                    continue
                self._add_vector(
                    rowid, model_id, provider, model, data.tobytes(), int(data.shape[0]), now
                )
                row.rev = rev  # in-memory indexes pick up the new vector's record
                if mark_indexed:
                    row.values.update(index_status="indexed", index_error=None)
                    row.updated_at = now
                written += 1
        return written

    def vectors_of(self, rowids: Sequence[int]) -> dict[int, list[StoredVector]]:
        """(model_id, provider, model, float32 bytes) per record, by model id."""
        out: dict[int, list[StoredVector]] = {}
        with self._read():
            for rowid in dict.fromkeys(rowids):
                models = self._record_vectors.get(rowid, {})
                for model_id in sorted(models):
                    v = self._vectors[models[model_id]]
                    out.setdefault(rowid, []).append((v.model_id, v.provider, v.model, v.data))
        return out

    def clear_vectors(self, filters: Filters | None = None, model_id: str | None = None) -> int:
        """Delete vectors (of one model, or all) of the records passing the filters; those
        records become pending again. Returns how many vectors were deleted."""
        with self._write():
            passes = self._predicate(filters)
            doomed = [
                v
                for v in self._vectors.values()
                if (not model_id or v.model_id == model_id) and passes(self._rows[v.rowid].values)
            ]
            for vector in doomed:
                self._remove_vector(vector.seq)
                row = self._rows[vector.rowid]
                row.values["index_status"] = "pending"  # updated_at dates the text: unchanged
            if doomed:
                self._deletes += 1
        return len(doomed)

    def drop_vectors_of_indexed(self, model_id: str) -> int:
        """Delete this model's vectors of indexed records; their status stays."""
        with self._write():
            doomed = [
                v
                for v in self._vectors.values()
                if v.model_id == model_id
                and self._rows[v.rowid].values["index_status"] == "indexed"
            ]
            for vector in doomed:
                self._remove_vector(vector.seq)
            if doomed:
                self._deletes += 1
        return len(doomed)

    def mark_indexed_with(self, model_id: str) -> None:
        """Records holding a vector of ``model_id`` are indexed (after other models' vectors
        were cleared, which marked them pending)."""
        with self._write():
            for rowid, models in self._record_vectors.items():
                if model_id in models:
                    self._rows[rowid].values["index_status"] = "indexed"

    def _missing(self, model_id: str, rowid: int) -> bool:
        return self._rows[rowid].values[
            "index_status"
        ] != "skipped" and model_id not in self._record_vectors.get(rowid, {})

    def records_missing_vectors(self, backlog: Backlog) -> list[Record]:
        """See ``Store.records_missing_vectors`` (resumable by rowid either way)."""
        return self._records_lacking(
            partial(self._missing, backlog.model_id),
            backlog.limit,
            backlog.after_rowid,
            backlog.before_rowid,
        )

    def count_missing_vectors(self, model_id: str) -> int:
        return self._count_lacking(partial(self._missing, model_id))

    def vector_stats(self) -> list[tuple[str, int, int]]:
        """(model_id, dim, count) for every model that has vectors, most vectors first."""
        with self._read():
            counts = Counter((v.model_id, v.dim) for v in self._vectors.values())
        return [(m, d, n) for (m, d), n in counts.most_common()]

    def vector_count(self, model_id: str) -> int:
        with self._read():
            return sum(1 for v in self._vectors.values() if v.model_id == model_id)

    # Vectors written before models were recorded (imports from older tools) carry model_id ''.
    def has_legacy_vectors(self) -> bool:
        with self._read():
            return any(v.model_id == "" for v in self._vectors.values())

    def legacy_vector_dims(self) -> set[int]:
        with self._read():
            return {v.dim for v in self._vectors.values() if v.model_id == ""}

    def adopt_legacy_vectors(
        self, model_id: str, provider: str, model: str, dim: int | None = None
    ) -> int:
        """Label the legacy vectors (of ``dim``, or of every dim) as ``model_id``'s; where a
        record already has a vector of that model, that one wins and the legacy one goes.
        Re-inserted (new seq), so in-memory indexes pick them up. Returns how many moved."""
        now = time.time()
        with self._write():
            rev = self._bump_rev()
            legacy = [
                v for v in self._vectors.values() if v.model_id == "" and (not dim or v.dim == dim)
            ]
            moving = [v for v in legacy if model_id not in self._record_vectors[v.rowid]]
            for vector in legacy:
                self._remove_vector(vector.seq)
            for v in moving:
                self._add_vector(v.rowid, model_id, provider, model, v.data, v.dim, v.created_at)
                row = self._rows[v.rowid]
                if row.values["index_status"] != "skipped":
                    row.values.update(index_status="indexed", index_error=None)
                    row.rev, row.updated_at = rev, now
        return len(moving)

    def load_vectors(self, model_id: str, dim: int, after_seq: int = 0) -> VectorRows:
        """Vectors of one model with seq > after_seq (all of them by default), in seq order."""
        return self.read_vectors(VectorRead(model_id, dim, after_seq))

    def index_delta(
        self, model_id: str, dim: int, after_seq: int, after_rev: int
    ) -> tuple[VectorRows, list[IndexMetaRow], int, int]:
        """Everything an in-memory index needs to catch up, read at one moment:
        new vectors, the filter columns of records changed since ``after_rev``, the current rev
        and the delete counter (a changed counter means: reload from scratch)."""
        with self._read():
            vectors = self.read_vectors(VectorRead(model_id, dim, after_seq))
            meta, rev = self.filter_rows(after_rev)
            return vectors, meta, rev, self._deletes

    # ---------------------------------------------------------------- snapshot index reads
    def vector_state(self, model_id: str, dim: int) -> VectorState:
        with self._read():
            seqs = [seq for seq, v in self._vectors.items() if v.model_id == model_id]
            return VectorState(max(seqs, default=0), self._deletes)

    def read_vectors(self, request: VectorRead) -> VectorRows:
        model_id, dim, after_seq = request.model_id, request.dim, request.after_seq
        with self._read():
            found = [
                v
                for seq, v in self._vectors.items()
                if seq > after_seq and v.model_id == model_id and v.dim == dim
            ]
        max_seq = max((v.seq for v in found), default=after_seq)
        if request.by_rowid:
            found.sort(key=lambda v: v.rowid)
        if request.allocate is None:
            rowids, matrix = np.empty(len(found), np.int64), np.empty((len(found), dim), np.float32)
        else:
            rowids, matrix = request.allocate(len(found))
        if found:
            rowids[:] = [v.rowid for v in found]
            matrix[:] = np.frombuffer(b"".join(v.data for v in found), np.float32).reshape(-1, dim)
        return VectorRows(rowids, matrix, max_seq)

    def live_rowids(self, model_id: str, dim: int, upto_seq: int) -> np.ndarray:
        with self._read():
            rowids = [
                v.rowid
                for seq, v in self._vectors.items()
                if seq <= upto_seq and v.model_id == model_id and v.dim == dim
            ]
        return np.array(sorted(rowids), np.int64)

    def vectors_at(
        self, model_id: str, dim: int, rowids: Sequence[int], upto_seq: int
    ) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        with self._read():
            for rowid in rowids:
                seq = self._record_vectors.get(rowid, {}).get(model_id)
                vector = None if seq is None or seq > upto_seq else self._vectors[seq]
                if vector is not None and vector.dim == dim:
                    out[rowid] = np.frombuffer(vector.data, np.float32)
        return out

    def filter_rows(self, after_rev: int) -> tuple[list[IndexMetaRow], int]:
        columns = INDEX_META_FIELDS[1:]  # after the rowid
        with self._read():
            changed = sorted(
                (row.rev, rowid) for rowid, row in self._rows.items() if row.rev > after_rev
            )
            rows: list[IndexMetaRow] = [
                (rowid, *(self._rows[rowid].values[c] for c in columns)) for _, rowid in changed
            ]
            return rows, self._rev
