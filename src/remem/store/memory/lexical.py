"""Lexical search in the in-memory store: BM25 over the index, then the filters."""

from __future__ import annotations

from collections.abc import Sequence

from remem.store.memory.state import MemoryState, first
from remem.types import Filters


class LexicalMixin(MemoryState):
    def lexical_search(
        self,
        tokens: Sequence[str],
        filters: Filters | None,
        limit: int,
        now: float | None = None,
        context_weight: float = 0.0,
    ) -> list[tuple[int, float]]:
        """(rowid, bm25 score) best first; scores are positive, higher is better.

        ``context_weight`` > 0 also matches the context column (the turns before a message)
        with that BM25 column weight; 0 searches the message's own tokens only."""
        query = [t for t in tokens if t]
        if not query:
            return []
        with self._read():
            scores = self._lexical.scores(query, float(context_weight))
            passes = self._predicate(filters, now)
            found = [
                (rowid, score)
                for rowid, score in scores.items()
                if rowid in self._rows and passes(self._rows[rowid].values)
            ]
        found.sort(key=lambda hit: (-hit[1], hit[0]))
        return first(found, limit)

    def lexical_newest(
        self,
        tokens: Sequence[str],
        filters: Filters | None,
        limit: int,
        now: float | None = None,
        context_weight: float = 0.0,
    ) -> list[int]:
        """Rowids of the newest records holding any token (see ``LexicalStore``)."""
        query = [t for t in tokens if t]
        if not query or limit <= 0:
            return []
        with self._read():
            found = self._lexical.matching(query, float(context_weight) > 0)
            passes = self._predicate(filters, now)
            newest = sorted(
                (r for r in found if r in self._rows and passes(self._rows[r].values)),
                reverse=True,
            )
        return newest[:limit]

    def lexical_rescore(
        self,
        rowids: Sequence[int],
        tokens: Sequence[str],
        context_weight: float = 0.0,
        stats: tuple[int, dict[str, int]] | None = None,
    ) -> dict[int, float]:
        """The BM25 score ``lexical_search`` gives each of these rows for ``tokens`` (with
        ``stats``' counts when given); rows matching none are left out."""
        query = [t for t in tokens if t]
        if not query:
            return {}
        with self._read():
            ids = [int(r) for r in rowids]
            return self._lexical.rescore(ids, query, float(context_weight), stats)

    def phrase_counts(
        self,
        tokens: Sequence[str],
        filters: Filters | None,
        now: float | None = None,
        context_weight: float = 0.0,
    ) -> tuple[int, dict[str, int]]:
        """(records passing the filters, {token: those holding it}) as BM25 counts them."""
        with self._read():
            passes = self._predicate(filters, now)
            inside = {r for r, row in self._rows.items() if passes(row.values)}
            both = float(context_weight) > 0
            found = {t: len(self._lexical.holding(t, both) & inside) for t in dict.fromkeys(tokens)}
        return len(inside), {t: n for t, n in found.items() if n}

    def lexical_tokens(self, rowids: Sequence[int]) -> dict[int, list[str]]:
        """Each record's own lexical tokens as indexed (not its context)."""
        with self._read():
            found = {int(r): self._lexical.own_terms(int(r)) for r in rowids}
        return {rowid: terms for rowid, terms in found.items() if terms}

    def term_stats(self, tokens: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(number of records, {token: records holding it}) for these tokens (a token no
        record holds is left out)."""
        with self._read():
            found = {t: self._lexical.document_frequency(t) for t in tokens}
            return len(self._rows), {t: n for t, n in found.items() if n}
