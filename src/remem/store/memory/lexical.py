"""Lexical search in the in-memory store: BM25 over the index, then the filters."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from remem.store.lexical_rescore import LexicalRescoreMixin, RescoreSource
from remem.store.memory.state import MemoryState, first
from remem.store.queries import LexicalQuery


class LexicalMixin(LexicalRescoreMixin, MemoryState):
    def lexical_search(self, query: LexicalQuery, limit: int) -> list[tuple[int, float]]:
        """(rowid, bm25 score) best first; scores are positive, higher is better."""
        words = query.words
        if not words:
            return []
        with self._read():
            scores = self._lexical.scores(words, query.context_weight)
            passes = self._predicate(query.filters, query.now)
            found = [
                (rowid, score)
                for rowid, score in scores.items()
                if rowid in self._rows and passes(self._rows[rowid].values)
            ]
        found.sort(key=lambda hit: (-hit[1], hit[0]))
        return first(found, limit)

    def lexical_newest(self, query: LexicalQuery, limit: int) -> list[int]:
        """Rowids of the newest records holding any token (see ``LexicalStore``)."""
        words = query.words
        if not words or limit <= 0:
            return []
        with self._read():
            found = self._lexical.matching(words, query.with_context)
            passes = self._predicate(query.filters, query.now)
            newest = sorted(
                (r for r in found if r in self._rows and passes(self._rows[r].values)),
                reverse=True,
            )
        return newest[:limit]

    @contextmanager
    def _rescore_source(self) -> Iterator[RescoreSource]:
        """The index's statistics and term lists, under the store's read lock."""
        with self._read():
            yield self._lexical

    def phrase_counts(self, query: LexicalQuery) -> tuple[int, dict[str, int]]:
        """(records passing the filters, {token: those holding it}) as BM25 counts them."""
        with self._read():
            passes = self._predicate(query.filters, query.now)
            inside = {r for r, row in self._rows.items() if passes(row.values)}
            both = query.with_context
            found = {
                t: len(self._lexical.holding(t, both) & inside) for t in dict.fromkeys(query.tokens)
            }
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
