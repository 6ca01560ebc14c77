"""What `remem doctor` asks of the in-memory store. There is no file to corrupt, so the
checks look at what could still go wrong: the tables disagreeing with each other."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from remem.store.memory.state import MemoryState

STALE_AFTER_S = 1.0  # a vector older than its record's last change by more than this


class MaintenanceMixin(MemoryState):
    def integrity_problems(self) -> list[str]:
        """Places where the id index, session timelines or vectors disagree with the rows."""
        with self._read():
            problems = [
                f"id {record_id!r} points at rowid {rowid}, which holds another record"
                for record_id, rowid in self._by_id.items()
                if rowid not in self._rows or self._rows[rowid].values["id"] != record_id
            ]
            timed = sum(len(t) for t in self._timelines.values())
            in_sessions = sum(1 for r in self._rows.values() if r.values["session"] is not None)
            if timed != in_sessions:
                problems.append(f"{timed} timeline entries for {in_sessions} session records")
            problems += [
                f"vector {seq} belongs to missing record {v.rowid}"
                for seq, v in self._vectors.items()
                if v.rowid not in self._rows
            ]
            return problems

    def lexical_row_problems(self) -> tuple[list[int], list[int]]:
        """(records without a lexical row, lexical rows without a record), as rowids."""
        with self._read():
            missing = [rowid for rowid in self._rows if rowid not in self._lexical]
            orphans = [rowid for rowid in self._lexical.rowids() if rowid not in self._rows]
            return missing, orphans

    def repair_lexical_rows(self, orphans: Sequence[int], tokens: Mapping[int, str]) -> None:
        """Drop orphan lexical rows and write the given records' tokens (no context)."""
        with self._write():
            for rowid in orphans:
                self._lexical.remove(rowid)
            for rowid, text in tokens.items():
                self._lexical.put(rowid, text, "")

    def malformed_vectors(self) -> list[int]:
        """Sequence numbers of vectors whose bytes do not hold ``dim`` float32 values."""
        with self._read():
            return [seq for seq, v in self._vectors.items() if len(v.data) != v.dim * 4]

    def delete_vectors(self, seqs: Sequence[int]) -> None:
        with self._write():
            for seq in dict.fromkeys(seqs):
                if seq in self._vectors:
                    self._remove_vector(seq)
            self._deletes += 1

    def stale_vectors(self, model_id: str) -> list[int]:
        """Rowids of records whose text changed after their ``model_id`` vector was made."""
        with self._read():
            return [
                v.rowid
                for v in self._vectors.values()
                if v.model_id == model_id
                and v.created_at < self._rows[v.rowid].updated_at - STALE_AFTER_S
            ]
