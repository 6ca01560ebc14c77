"""BM25 search over the FTS5 table (the tokens remem's own tokenizer made)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from remem.store.sqlite.connection import SQLiteConnection
from remem.store.sqlite.filters import filters_sql, in_marks
from remem.store.sqlite.records import chunks
from remem.types import Filters


def fts_match_expression(tokens: Iterable[str]) -> str:
    """An FTS5 MATCH expression that ORs the tokens; quoting stops any FTS syntax in text."""
    quoted = ['"' + t.replace('"', '""') + '"' for t in tokens if t]
    return " OR ".join(quoted)


class LexicalMixin(SQLiteConnection):
    """FTS5 with two columns: a record's own tokens and its context (the turns before it)."""

    _doc_count: tuple[tuple[int, int], int] | None = None

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
        match = fts_match_expression(tokens)
        if not match:
            return []
        if context_weight <= 0:
            match = "{tokens} : (" + match + ")"
        rank = f"-bm25(records_fts, 1.0, {float(context_weight)!r})"
        where, params = filters_sql(filters, now=now)
        if where:
            sql = (
                f"SELECT f.rowid, {rank} AS s FROM records_fts f "
                "JOIN records r ON r.rowid = f.rowid "
                f"WHERE records_fts MATCH ?{where} ORDER BY s DESC LIMIT ?"
            )
        else:
            sql = (
                f"SELECT rowid, {rank} AS s FROM records_fts "
                "WHERE records_fts MATCH ? ORDER BY s DESC LIMIT ?"
            )
        rows = self.query(sql, [match, *params, limit])
        return [(int(r[0]), float(r[1])) for r in rows]

    def lexical_tokens(self, rowids: Sequence[int]) -> dict[int, list[str]]:
        """Each record's own lexical tokens as indexed (not its context)."""
        out: dict[int, list[str]] = {}
        ids = list(dict.fromkeys(int(r) for r in rowids))
        for chunk in chunks(ids):
            rows = self.query(
                f"SELECT rowid, tokens FROM records_fts WHERE rowid IN ({in_marks(chunk)})", chunk
            )
            out.update((int(rowid), tokens.split()) for rowid, tokens in rows if tokens)
        return out

    def term_stats(self, tokens: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(number of records, {token: records holding it}) for these tokens."""
        with self._lock:
            token = self.change_token()
            if self._doc_count is None or self._doc_count[0] != token:
                n = self._conn.execute(
                    "SELECT value FROM counters WHERE name = 'records'"
                ).fetchone()[0]
                self._doc_count = (token, n)
            terms = list(tokens)
            df = dict(
                self._conn.execute(
                    f"SELECT term, doc FROM records_vocab WHERE term IN ({in_marks(terms)})",
                    terms,
                ).fetchall()
            )
        return self._doc_count[1], df
