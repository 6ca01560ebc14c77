"""Latent terms by model in the in-memory store."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from remem.store.memory.state import MemoryState
from remem.types import Record


class LatentMixin(MemoryState):
    def put_latent_terms(self, model_id: str, items: Sequence[tuple[int, str, bytes]]) -> int:
        """Store (rowid, content hash, packed terms), replacing older ones; records deleted
        meanwhile or holding another text now are skipped. Returns how many were written."""
        written = 0
        with self._write():
            for rowid, content_hash, terms in items:
                row = self._rows.get(rowid)
                if row is None or row.values["content_hash"] != content_hash:
                    continue
                self._latent.setdefault(rowid, {})[model_id] = (content_hash, bytes(terms))
                written += 1
        return written

    def _current_terms(self, model_id: str, rowid: int) -> bytes | None:
        row = self._rows.get(rowid)
        entry = self._latent.get(rowid, {}).get(model_id)
        if row is None or entry is None or entry[0] != row.values["content_hash"]:
            return None
        return entry[1]

    def latent_terms_of(self, model_id: str, rowids: Sequence[int]) -> dict[int, bytes]:
        """The stored terms of these records that were read from their current text."""
        with self._read():
            found = {rowid: self._current_terms(model_id, rowid) for rowid in rowids}
        return {rowid: terms for rowid, terms in found.items() if terms is not None}

    def _lacks_terms(self, model_id: str, rowid: int) -> bool:
        skipped = self._rows[rowid].values["index_status"] == "skipped"
        return not skipped and self._current_terms(model_id, rowid) is None

    def records_missing_latent_terms(
        self, model_id: str, *, limit: int = 1000, after_rowid: int = 0
    ) -> list[Record]:
        """Records (not 'skipped') without current terms of this model, in rowid order."""
        return self._records_lacking(partial(self._lacks_terms, model_id), limit, after_rowid)

    def count_missing_latent_terms(self, model_id: str) -> int:
        return self._count_lacking(partial(self._lacks_terms, model_id))
