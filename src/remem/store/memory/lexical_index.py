"""BM25 over two columns (a record's tokens, and its context), computed as SQLite FTS5's
``bm25()`` computes it, so the in-memory store ranks as the SQLite store does.

The engine hands the store space-separated tokens its own tokenizer made. FTS5's
``unicode61`` tokenizer (without diacritic removal) then splits them on anything that is not
a letter or digit and folds case; ``terms`` does the same. A query token that splits into
several terms is a phrase (FTS5 quotes every query token): its terms must be adjacent.

FTS5's formula, per matching row: for each query phrase i,
``idf_i * f_i * (k1 + 1) / (f_i + k1 * (1 - b + b * D / avgdl))``, summed; ``f_i`` is the
phrase's hits weighted by their column's weight, ``D`` the row's tokens over all columns,
``avgdl`` the mean of that over all rows, ``idf_i = ln((N - n_i + 0.5) / (n_i + 0.5))``
(1e-6 when that is not positive) with ``n_i`` the rows the phrase occurs in.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

K1 = 1.2
B = 0.75
_TERM = re.compile(r"[^\W_]+")  # letters and digits, like unicode61's default categories


def terms(text: str) -> list[str]:
    """The terms FTS5's unicode61 tokenizer makes of a column's text."""
    if text.replace(" ", "").isalnum() and text == text.lower():
        return text.split()  # the usual case, in C: lowercase words between single spaces
    return [t.lower() for t in _TERM.findall(text)]


def _occurrences(tokens: list[str], phrase: list[str]) -> int:
    n = len(phrase)
    if n == 1:
        return tokens.count(phrase[0])
    return sum(1 for start in range(len(tokens) - n + 1) if tokens[start : start + n] == phrase)


def idf(rows: int, hits: int) -> float:
    """FTS5's idf of a phrase found in ``hits`` of ``rows`` rows. Defined for any counts:
    counts read apart can disagree (a word's rows outnumbering the rows, counted after a
    write landed), and a word in more rows than there are weighs what one in every row
    weighs, never the log of a negative number."""
    rows = max(rows, 0)
    hits = min(max(hits, 0), rows)
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0 else 1e-6


def row_score(
    own: list[str],
    context: list[str],
    phrases: Sequence[list[str]],
    idfs: Sequence[float],
    avgdl: float,
    context_weight: float,
) -> float:
    """FTS5's ``bm25()`` of one row from its terms (``own``, ``context``), each query phrase's
    idf and the mean row size: what a store's ``lexical_rescore`` computes for a few rows
    without asking the full-text index to score every row that matches."""
    norm = K1 * (1 - B + B * (len(own) + len(context)) / avgdl)
    use_context = context_weight > 0 and bool(context)
    score = 0.0
    for phrase, weight in zip(phrases, idfs, strict=True):
        if len(phrase) == 1:  # nearly every query token: list.count, in C
            freq: float = own.count(phrase[0])
            if use_context:
                freq += context_weight * context.count(phrase[0])
        else:
            freq = _occurrences(own, phrase)
            if use_context:
                freq += context_weight * _occurrences(context, phrase)
        if freq:
            score += weight * freq * (K1 + 1) / (freq + norm)
    return score


class Bm25Index:
    """Term postings per column for every record (not thread-safe: the store's lock is)."""

    def __init__(self) -> None:
        self._docs: dict[int, tuple[list[str], list[str]]] = {}  # rowid -> (tokens, context)
        self._postings: dict[str, dict[int, list[int]]] = {}  # term -> rowid -> [tf per column]
        self._sizes: dict[int, int] = {}  # rowid -> terms in both columns (BM25's D)
        self._total_terms = 0

    def copy(self) -> Bm25Index:
        """An independent copy (a transaction's saved state): the postings' counts change in
        place, so they are copied; a document's term lists are only ever replaced whole."""
        other = Bm25Index()
        other._docs = dict(self._docs)
        other._postings = {
            term: {rowid: list(tf) for rowid, tf in rows.items()}
            for term, rows in self._postings.items()
        }
        other._sizes = dict(self._sizes)
        other._total_terms = self._total_terms
        return other

    def __contains__(self, rowid: int) -> bool:
        return rowid in self._docs

    def rowids(self) -> Iterable[int]:
        return self._docs.keys()

    def __len__(self) -> int:
        return len(self._docs)

    def own_terms(self, rowid: int) -> list[str]:
        """A record's own terms (its context left out); none for a record not indexed."""
        doc = self._docs.get(rowid)
        return list(doc[0]) if doc is not None else []

    def put(self, rowid: int, tokens: str, context: str) -> None:
        """Index a record's tokens and context (replacing what it had)."""
        self._put_terms(rowid, (terms(tokens), terms(context)))

    def set_tokens(self, rowid: int, tokens: str) -> None:
        """Replace a record's own tokens; its context stays."""
        context = self._docs[rowid][1] if rowid in self._docs else []
        self._put_terms(rowid, (terms(tokens), context))

    def _put_terms(self, rowid: int, columns: tuple[list[str], list[str]]) -> None:
        self.remove(rowid)
        self._docs[rowid] = columns
        self._sizes[rowid] = len(columns[0]) + len(columns[1])
        self._total_terms += self._sizes[rowid]
        for column, words in enumerate(columns):
            for word, count in Counter(words).items():
                self._postings.setdefault(word, {}).setdefault(rowid, [0, 0])[column] = count

    def remove(self, rowid: int) -> None:
        columns = self._docs.pop(rowid, None)
        if columns is None:
            return
        self._total_terms -= self._sizes.pop(rowid)
        for word in set(columns[0]) | set(columns[1]):
            postings = self._postings[word]
            del postings[rowid]
            if not postings:
                del self._postings[word]

    def document_frequency(self, term: str) -> int:
        """Rows holding this exact term in either column (FTS5's vocabulary ``doc``)."""
        return len(self._postings.get(term, ()))

    def _hits(self, phrase: list[str], both_columns: bool) -> dict[int, tuple[int, int]]:
        """rowid -> (hits in tokens, hits in context) for rows the phrase occurs in."""
        if not phrase:
            return {}
        if len(phrase) == 1:
            found = self._postings.get(phrase[0], {}).items()
            if both_columns:
                return {rowid: (tf[0], tf[1]) for rowid, tf in found}
            return {rowid: (tf[0], 0) for rowid, tf in found if tf[0]}
        shared = set.intersection(*(set(self._postings.get(t, ())) for t in phrase))
        out: dict[int, tuple[int, int]] = {}
        for rowid in shared:
            tokens, context = self._docs[rowid]
            hits = (_occurrences(tokens, phrase), _occurrences(context, phrase) * both_columns)
            if any(hits):
                out[rowid] = hits
        return out

    def holding(self, token: str, both_columns: bool) -> set[int]:
        """Rows the token's terms occur in as a phrase (in either column when
        ``both_columns``)."""
        return set(self._hits(terms(token), both_columns))

    def matching(self, query: Sequence[str], both_columns: bool) -> set[int]:
        """Rows holding any query token (in either column when ``both_columns``)."""
        found: set[int] = set()
        for token in query:
            found.update(self._hits(terms(token), both_columns))
        return found

    def scores(self, query: Sequence[str], context_weight: float) -> dict[int, float]:
        """rowid -> BM25 score (positive, higher is better) of every row matching any query
        token. ``context_weight`` > 0 also matches the context column with that weight;
        otherwise only the tokens column is searched."""
        rows = len(self._docs)
        if rows == 0:
            return {}
        both = context_weight > 0
        weights = (1.0, context_weight if both else 0.0)
        avgdl = self._total_terms / rows
        out: dict[int, float] = {}
        for token in query:
            hits = self._hits(terms(token), both)
            weight = idf(rows, len(hits))
            for rowid, (in_tokens, in_context) in hits.items():
                freq = in_tokens * weights[0] + in_context * weights[1]
                norm = K1 * (1 - B + B * self._sizes[rowid] / avgdl)
                out[rowid] = out.get(rowid, 0.0) + weight * freq * (K1 + 1) / (freq + norm)
        return out

    # What ``lexical_rescore`` reads (``remem.store.lexical_rescore.RescoreSource``).
    def totals(self) -> tuple[int, float]:
        """(rows, mean terms per row over both columns)."""
        rows = len(self._docs)
        return rows, (self._total_terms / rows if rows else 0.0)

    def phrase_rows(self, phrases: Sequence[list[str]], both: bool) -> list[int]:
        """Rows each phrase occurs in (in either column when ``both``)."""
        return [len(self._hits(p, both)) for p in phrases]

    def row_terms(self, rowids: list[int]) -> Iterator[tuple[int, list[str], list[str]]]:
        """(rowid, own terms, context terms) of those of these rows that are indexed."""
        for rowid in rowids:
            doc = self._docs.get(rowid)
            if doc is not None:
                yield rowid, doc[0], doc[1]
