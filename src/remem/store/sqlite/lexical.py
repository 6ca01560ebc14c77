"""BM25 search over the FTS5 table (the tokens remem's own tokenizer made)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from remem.store.lexical_rescore import LexicalRescoreMixin, RescoreSource
from remem.store.memory.lexical_index import terms
from remem.store.queries import LexicalQuery
from remem.store.sql_dialect import SQLITE
from remem.store.sqlite.connection import SQLiteConnection
from remem.store.sqlite.filters import filters_sql, in_marks


def fts_match_expression(tokens: Iterable[str]) -> str:
    """An FTS5 MATCH expression that ORs the tokens; quoting stops any FTS syntax in text."""
    quoted = ['"' + t.replace('"', '""') + '"' for t in tokens if t]
    return " OR ".join(quoted)


# FTS5's own copy of each row's columns (c0: tokens, c1: context), read directly: a lookup
# by rowid through the full-text table costs ~4x a plain table's (0.89 against 0.22 ms for
# 200 rows at 100k). The averages record (%_data, id 1) is read the same way below.
CONTENT = "records_fts_content"


class LexicalMixin(LexicalRescoreMixin, SQLiteConnection):
    """FTS5 with two columns: a record's own tokens and its context (the turns before it)."""

    # Row counts read from FTS5 for one state of the database (its change token): the record
    # count, and per term or phrase the rows holding it. FTS5 counts a term's rows by walking
    # its whole doclist (~0.1-0.3 ms a term at 100k), and a search asks for the same terms
    # twice (pruning, then rescoring); searches between two writes share them too.
    _counts: tuple[tuple[int, int], dict[object, int]] | None = None

    def lexical_search(self, query: LexicalQuery, limit: int) -> list[tuple[int, float]]:
        """(rowid, bm25 score) best first; scores are positive, higher is better."""
        match = _match(query.tokens, query.with_context)
        if not match:
            return []
        rank = f"-bm25(records_fts, 1.0, {query.context_weight!r})"
        where, params = filters_sql(query.filters, now=query.now)
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

    def lexical_newest(self, query: LexicalQuery, limit: int) -> list[int]:
        """Rowids of the newest records holding any token, without scoring them: FTS5
        walks its doclists by rowid and stops at ``limit``."""
        match = _match(query.tokens, query.with_context)
        if not match or limit <= 0:
            return []
        where, params = filters_sql(query.filters, now=query.now)
        sql = (
            "SELECT f.rowid FROM records_fts f JOIN records r ON r.rowid = f.rowid "
            f"WHERE records_fts MATCH ?{where} ORDER BY f.rowid DESC LIMIT ?"
        )
        return [int(r[0]) for r in self.query(sql, [match, *params, limit])]

    @contextmanager
    def _rescore_source(self) -> Iterator[RescoreSource]:
        """FTS5's own statistics: the row count and token totals from its averages record,
        each phrase's row count from the vocabulary table (a count query for a phrase of
        several terms, or for the own column alone), the rows' terms from its content
        table. Asking FTS5 to score a list of rows runs the whole query once per row."""
        with self._lock:
            yield _FtsRescore(self)

    def phrase_counts(self, query: LexicalQuery) -> tuple[int, dict[str, int]]:
        """(records passing the filters, {token: those holding it}) as BM25 counts them: one
        count of the records, and each token's rows looked up among them (its rows first: as a
        join, SQLite walks the filtered records and asks the full-text index for each, ~30 ms
        at 100k whatever the word)."""
        where, params = filters_sql(query.filters, now=query.now)
        found: dict[str, int] = {}
        # one snapshot: a write landing between the counts made a word's rows outnumber
        # the records (another process's write; this one's wait for the lock)
        with self.read() as c:
            n = int(
                c.execute(f"SELECT count(*) FROM records r WHERE 1=1{where}", params).fetchone()[0]
            )
            for token in dict.fromkeys(query.words):
                match = _match([token], query.with_context)
                sql = (
                    "SELECT count(*) FROM records r WHERE r.rowid IN "
                    f"(SELECT rowid FROM records_fts WHERE records_fts MATCH ?){where}"
                )
                count = int(c.execute(sql, [match, *params]).fetchone()[0])
                if count:
                    found[token] = count
        return n, found

    def _fts_averages(self) -> tuple[int, float]:
        """(rows, mean tokens per row over both columns) from FTS5's averages record (the
        %_data row with id 1: the row count, then each column's token total, as varints)."""
        row = self._conn.execute("SELECT block FROM records_fts_data WHERE id = 1").fetchone()
        if row is None or not row[0]:
            return 0, 0.0
        rows, *totals = _varints(bytes(row[0]))
        return rows, (sum(totals) / rows if rows else 0.0)

    def _phrase_rows(self, phrase: list[str], both: bool) -> int:
        """Rows a phrase occurs in: in either column when ``both``, else in the own column."""
        if both and len(phrase) == 1:
            return self._vocab_rows(phrase)[phrase[0]]
        counts = self._counts_now()
        key = ("phrase", both, *phrase)
        if key not in counts:
            match = _match([" ".join(phrase)], both)
            counts[key] = int(
                self._conn.execute(
                    "SELECT count(*) FROM records_fts WHERE records_fts MATCH ?", [match]
                ).fetchone()[0]
            )
        return counts[key]

    def _counts_now(self) -> dict[object, int]:
        """The row counts read for the database as it is now (emptied by any write)."""
        if self._depth:  # inside a transaction: what it wrote may yet be rolled back
            return {}
        token = self.change_token()
        if self._counts is None or self._counts[0] != token or len(self._counts[1]) > 50_000:
            self._counts = (token, {})
        return self._counts[1]

    def _vocab_rows(self, terms: Sequence[str]) -> dict[str, int]:
        """{term: rows holding it in either column} from FTS5's vocabulary (0 if none)."""
        counts = self._counts_now()
        missing = [t for t in dict.fromkeys(terms) if ("vocab", t) not in counts]
        if missing:
            found = dict(
                self._conn.execute(
                    f"SELECT term, doc FROM records_vocab WHERE term IN ({in_marks(missing)})",
                    missing,
                ).fetchall()
            )
            counts.update((("vocab", t), int(found.get(t, 0))) for t in missing)
        return {t: counts[("vocab", t)] for t in terms}

    def lexical_tokens(self, rowids: Sequence[int]) -> dict[int, list[str]]:
        """Each record's own lexical tokens as indexed (not its context)."""
        out: dict[int, list[str]] = {}
        ids = list(dict.fromkeys(int(r) for r in rowids))
        for chunk in SQLITE.chunks(ids):
            rows = self.query(
                f"SELECT id, c0 FROM {CONTENT} WHERE id IN ({in_marks(chunk)})", chunk
            )
            out.update((int(rowid), tokens.split()) for rowid, tokens in rows if tokens)
        return out

    def term_stats(self, tokens: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(number of records, {token: records holding it}) for these tokens."""
        with self._lock:
            counts = self._counts_now()
            if "records" not in counts:
                counts["records"] = int(
                    self._conn.execute(
                        "SELECT value FROM counters WHERE name = 'records'"
                    ).fetchone()[0]
                )
            df = {t: n for t, n in self._vocab_rows(list(tokens)).items() if n}
            return counts["records"], df


def _match(tokens: Sequence[str], with_context: bool) -> str:
    """The MATCH expression of a query's tokens: in the own column only unless the context
    counts too ('' when no token is left)."""
    match = fts_match_expression(tokens)
    if match and not with_context:
        match = "{tokens} : (" + match + ")"
    return match


class _FtsRescore:
    """What ``lexical_rescore`` reads of FTS5, under the store's lock."""

    def __init__(self, store: LexicalMixin) -> None:
        self._store = store

    def totals(self) -> tuple[int, float]:
        return self._store._fts_averages()

    def phrase_rows(self, phrases: Sequence[list[str]], both: bool) -> list[int]:
        return [self._store._phrase_rows(p, both) for p in phrases]

    def row_terms(self, rowids: list[int]) -> Iterator[tuple[int, list[str], list[str]]]:
        for chunk in SQLITE.chunks(rowids):
            found = self._store.query(
                f"SELECT id, c0, c1 FROM {CONTENT} WHERE id IN ({in_marks(chunk)})", chunk
            )
            for rowid, own, context in found:
                yield int(rowid), terms(own or ""), terms(context or "")


def _varints(data: bytes) -> list[int]:
    """SQLite's varints (FTS5 writes its records with them): big-endian 7 bits a byte, the
    high bit set on every byte but the last; a 9th byte carries 8 bits."""
    out = []
    i = 0
    while i < len(data):
        value = 0
        for j in range(9):
            byte = data[i]
            i += 1
            if j == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out
