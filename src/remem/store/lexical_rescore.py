"""``lexical_rescore`` written once for every backend: BM25 of a few given rows, computed in
Python from their indexed terms (``lexical_index.row_score``, FTS5's formula).

What differs per backend is only where the numbers come from: the record count and mean row
size, each phrase's row count, and the rows' own and context terms. A backend hands them over
as a ``RescoreSource`` read in one snapshot (``_rescore_source``); the scoring here is the
same for all three, so their scores cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from remem.store.memory.lexical_index import idf, row_score, terms


class RescoreSource(Protocol):
    """A backend's BM25 statistics and row terms, read in one snapshot."""

    def totals(self) -> tuple[int, float]:
        """(rows in the lexical index, mean terms per row over both columns)."""
        ...

    def phrase_rows(self, phrases: Sequence[list[str]], both: bool) -> list[int]:
        """Rows each phrase occurs in: in either column when ``both``, else in the own one."""
        ...

    def row_terms(self, rowids: list[int]) -> Iterable[tuple[int, list[str], list[str]]]:
        """(rowid, own terms, context terms) of those of these rows that are indexed."""
        ...


class LexicalRescoreMixin:
    """``LexicalStore.lexical_rescore`` over a backend's ``_rescore_source``."""

    def _rescore_source(self) -> AbstractContextManager[RescoreSource]:
        raise NotImplementedError

    def lexical_rescore(
        self,
        rowids: Sequence[int],
        tokens: Sequence[str],
        context_weight: float = 0.0,
        stats: tuple[int, dict[str, int]] | None = None,
    ) -> dict[int, float]:
        """The BM25 score ``lexical_search`` gives each of these rows for ``tokens`` (the
        store's statistics, or ``stats``' record count and each token's rows); rows matching
        no token are left out."""
        asked = [(t, p) for t, p in ((t, terms(t)) for t in tokens if t) if p]
        ids = list(dict.fromkeys(int(r) for r in rowids))
        if not asked or not ids:
            return {}
        phrases = [p for _, p in asked]
        with self._rescore_source() as source:
            records, avgdl = source.totals()
            if records == 0:
                return {}
            if stats is None:
                counts = source.phrase_rows(phrases, context_weight > 0)
                idfs = [idf(records, n) for n in counts]
            else:
                idfs = [idf(stats[0], stats[1].get(t, 0)) for t, _ in asked]
            found = list(source.row_terms(ids))
        out = {}
        for rowid, own, context in found:
            score = row_score(own, context, phrases, idfs, avgdl, context_weight)
            if score > 0:
                out[rowid] = score
        return out
