"""BM25 over remem's own tokens in PostgreSQL, scored as SQLite FTS5's ``bm25()`` scores.

The engine hands the store space-separated tokens its tokenizer made (stemmed English, CJK
words and bigrams, Traditional folded to Simplified). They are split into terms exactly as
FTS5's ``unicode61`` splits them (``remem.store.memory.lexical_index.terms``) and kept as term
arrays (for exact term frequencies and phrases) plus a ``tsvector`` built from the same terms,
whose GIN index finds the rows a query matches: own terms carry weight A, context terms B.

Scoring is FTS5's formula (see ``lexical_index``), computed in SQL over the matching rows:
N and the total term count come from ``write_counts``, document frequencies from
``lexical_terms``, both kept in step by every write in the same transaction, each as the
sum of per-writer shards (a write adds to its own shard's rows: concurrent writers never
wait for each other on a common term's row; see schema version 11). PostgreSQL's
``ts_rank`` is not BM25 and is not used.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg

from remem.store.lexical_rescore import LexicalRescoreMixin, RescoreSource
from remem.store.memory.lexical_index import K1, B, idf, terms
from remem.store.postgres.connection import PostgresConnection
from remem.store.postgres.filters import filters_sql
from remem.store.queries import LexicalQuery

# PostgreSQL refuses lexemes of 2 KB or more; such a "word" only ever matches itself, so it
# is left out of the tsvector (its row is still counted and scored through the arrays).
_MAX_LEXEME_BYTES = 2046


def _quote(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_text(own: Iterable[str], context: Iterable[str]) -> str:
    """A tsvector literal: every distinct term once, weight A for a record's own terms and
    B for its context's (a term in both gets both)."""
    weights: dict[str, list[str]] = {}
    for term in dict.fromkeys(own):
        weights.setdefault(term, []).append("1A")
    for term in dict.fromkeys(context):
        weights.setdefault(term, []).append("2B")
    return " ".join(
        f"{_quote(term)}:{','.join(marks)}"
        for term, marks in weights.items()
        if len(term.encode()) <= _MAX_LEXEME_BYTES
    )


def tsquery_text(phrases: Sequence[list[str]], own_only: bool) -> str:
    """Rows holding every term of at least one phrase (in their own terms when
    ``own_only``); which phrases really occur is for the scoring to count."""
    weight = ":A" if own_only else ""
    alternatives = [
        "(" + " & ".join(f"{_quote(t)}{weight}" for t in phrase) + ")"
        for phrase in phrases
        if all(len(t.encode()) <= _MAX_LEXEME_BYTES for t in phrase)
    ]
    return " | ".join(alternatives)


def _match(tokens: Sequence[str], both: bool) -> tuple[list[list[str]], str]:
    """The query's phrases and the tsquery that finds the rows holding any of them (in
    either column when ``both``, else in their own terms)."""
    phrases = [p for p in (terms(t) for t in tokens if t) if p]
    return phrases, tsquery_text(phrases, own_only=not both)


def _holding(select: str, where: str, both: bool) -> str:
    """SQL selecting ``select`` over the records passing ``where`` (a filters fragment) that
    hold one of the phrases (the first parameter, as strings) matched by the tsquery (the
    second): the GIN index finds them, the term arrays check the phrases."""
    hits = _hits("l.tok") + (" + " + _hits("l.ctx") if both else "")
    return (
        "WITH q AS MATERIALIZED (SELECT string_to_array(p, ' ') AS ph "
        "FROM unnest(%s::text[]) AS u(p)) "
        f"SELECT {select} FROM lexical l JOIN records r ON r.rowid = l.rowid "
        f"WHERE l.doc @@ %s::tsquery{where} "
        f"AND EXISTS (SELECT 1 FROM q WHERE {hits} > 0)"
    )


def _hits(column: str) -> str:
    """SQL for how often phrase ``q.ph`` occurs in a term array: a single term (nearly every
    query token) by built-ins, a longer phrase by the ``phrase_hits`` function."""
    return (
        f"CASE WHEN cardinality(q.ph) = 1 THEN cardinality(array_positions({column}, q.ph[1])) "
        f"ELSE phrase_hits({column}, q.ph) END"
    )


# the term statistics' changes as rows of this transaction's shard (schema version 11: a
# term's frequencies are the sums over its shards' rows), and how they are added to them. The
# three columns travel space-joined (``term_rows``; no term holds a space): psycopg adapts a
# list parameter element by element, a third of a one-message write's client CPU in psycopg
TERM_ROWS = (
    "SELECT u.t, (SELECT write_shard()), u.a, u.b FROM unnest(string_to_array(%s, ' '), "
    "string_to_array(%s, ' ')::bigint[], string_to_array(%s, ' ')::bigint[]) AS u(t, a, b)"
)


def term_rows(by_term: dict[str, list[int]]) -> tuple[str, str, str]:
    """``TERM_ROWS``' three parameters: the terms, their df_tok and df_any changes."""
    return (
        " ".join(by_term),
        " ".join(str(d[0]) for d in by_term.values()),
        " ".join(str(d[1]) for d in by_term.values()),
    )


ADD_TERMS = (
    "ON CONFLICT (term, shard) DO UPDATE SET df_tok = lexical_terms.df_tok + excluded.df_tok, "
    "df_any = lexical_terms.df_any + excluded.df_any"
)
# the same for the BM25 totals: (rows, terms) added to this transaction's shard
ADD_TOTALS = (
    "UPDATE write_counts SET lex_rows = lex_rows + %s, lex_terms = lex_terms + %s "
    "WHERE shard = (SELECT write_shard())"
)
# a term's document frequencies: its shards' rows added up
TERM_SUMS = (
    "SELECT term, sum(df_tok) AS df_tok, sum(df_any) AS df_any FROM lexical_terms "
    "WHERE term = ANY(%s::text[]) GROUP BY term"
)


class LexicalWriter:
    """Lexical rows and the statistics BM25 needs, changed inside a caller's transaction."""

    def __init__(self) -> None:
        self._df: Counter[tuple[str, int]] = Counter()  # (term, 0 own / 1 any) -> delta
        self._rows = 0
        self._terms = 0

    def add(self, rowid: int, own: list[str], context: list[str], sign: int = 1) -> None:
        own_set = set(own)
        for term in own_set:
            self._df[(term, 0)] += sign
        for term in own_set | set(context):
            self._df[(term, 1)] += sign
        self._rows += sign
        self._terms += sign * (len(own) + len(context))

    def insert(self, c: psycopg.Connection[Any], rows: Sequence[tuple[int, str, str]]) -> None:
        """Lexical rows for new records: (rowid, tokens, context), in one statement (an
        ``executemany`` would wait for its results: a round trip in pipeline mode). The term
        arrays travel space-joined: ``terms`` splits at every space, so no term holds one."""
        columns: tuple[list[Any], ...] = ([], [], [], [], [])
        for rowid, tokens, context in rows:
            own, ctx = terms(tokens), terms(context)
            self.add(rowid, own, ctx)
            values = (
                rowid,
                " ".join(own),
                " ".join(ctx),
                tsvector_text(own, ctx),
                len(own) + len(ctx),
            )
            for column, value in zip(columns, values, strict=True):
                column.append(value)
        if columns[0]:
            c.execute(
                "INSERT INTO lexical (rowid, tok, ctx, doc, len) "
                "SELECT r, string_to_array(t, ' '), string_to_array(x, ' '), d::tsvector, n "
                "FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::text[], %s::int[]) "
                "AS u(r, t, x, d, n)",
                columns,
            )

    def forget(self, c: psycopg.Connection[Any], rowids: Sequence[int]) -> None:
        """Take these records' lexical rows out of the statistics and delete them."""
        rows = c.execute(
            "DELETE FROM lexical WHERE rowid = ANY(%s::bigint[]) RETURNING rowid, tok, ctx",
            (list(rowids),),
        ).fetchall()
        for rowid, own, ctx in rows:
            self.add(rowid, own, ctx, sign=-1)

    def term_deltas(self) -> dict[str, list[int]]:
        """term -> [change of df_tok, change of df_any], the unchanged left out, sorted by term
        (one lock order for every writer)."""
        by_term: dict[str, list[int]] = {}
        for (term, column), delta in self._df.items():
            if delta:
                by_term.setdefault(term, [0, 0])[column] += delta
        return dict(sorted(by_term.items()))

    def flush(self, c: psycopg.Connection[Any]) -> None:
        """Apply the collected changes to the term and row statistics."""
        by_term = self.term_deltas()
        if by_term:
            c.execute(
                f"INSERT INTO lexical_terms (term, shard, df_tok, df_any) {TERM_ROWS} {ADD_TERMS}",
                term_rows(by_term),
            )
            gone = [t for t, d in by_term.items() if d[1] < 0]  # only a removal can empty a term
            if gone:
                # this shard's rows that came to nothing (another shard's may be negative:
                # a record counted in one shard and taken out in another)
                c.execute(
                    "DELETE FROM lexical_terms WHERE term = ANY(%s::text[]) "
                    "AND shard = write_shard() AND df_any = 0 AND df_tok = 0",
                    (gone,),
                )
        if self._rows or self._terms:
            c.execute(ADD_TOTALS, (self._rows, self._terms))
        self._df.clear()
        self._rows = self._terms = 0


class LexicalMixin(LexicalRescoreMixin, PostgresConnection):
    """BM25 search and term statistics."""

    def lexical_search(self, query: LexicalQuery, limit: int) -> list[tuple[int, float]]:
        """(rowid, bm25 score) best first; scores are positive, higher is better."""
        both = query.with_context
        phrases, tsquery = _match(query.tokens, both)
        if not tsquery or limit <= 0:
            return []
        where, params = filters_sql(query.filters, now=query.now)
        with self.read() as c:
            rows, total = lexical_totals(c)
            if rows == 0:
                return []
            idfs = [idf(rows, n) for n in _phrase_rows(c, phrases, both)]
            found = c.execute(
                "WITH q AS MATERIALIZED (SELECT idf, string_to_array(p, ' ') AS ph "
                "FROM unnest(%s::text[], %s::float8[]) AS u(p, idf)), "
                "m AS (SELECT l.rowid, l.len, l.tok, l.ctx FROM lexical l "
                f"JOIN records r ON r.rowid = l.rowid WHERE l.doc @@ %s::tsquery{where}), "
                "f AS (SELECT m.rowid, m.len, q.idf, ("
                + _hits("m.tok")
                + " + %s * "
                + _hits("m.ctx")
                + ")::float8 AS f FROM m CROSS JOIN q) "
                "SELECT rowid, sum(idf * f * %s / (f + %s * (1 - %s + %s * len / %s))) AS s "
                "FROM f WHERE f > 0 GROUP BY rowid ORDER BY s DESC, rowid LIMIT %s",
                [
                    [" ".join(p) for p in phrases],
                    idfs,
                    tsquery,
                    *params,
                    query.context_weight if both else 0.0,
                    K1 + 1,
                    K1,
                    B,
                    B,
                    total / rows,
                    limit,
                ],
            ).fetchall()
        return [(int(r[0]), float(r[1])) for r in found]

    def lexical_newest(self, query: LexicalQuery, limit: int) -> list[int]:
        """Rowids of the newest records holding any token, found through the GIN index
        without scoring them (phrases are checked like ``lexical_search`` checks them)."""
        phrases, tsquery = _match(query.tokens, query.with_context)
        if not tsquery or limit <= 0:
            return []
        where, params = filters_sql(query.filters, now=query.now)
        found = self.query(
            _holding("l.rowid", where, query.with_context) + " ORDER BY l.rowid DESC LIMIT %s",
            [[" ".join(p) for p in phrases], tsquery, *params, limit],
        )
        return [int(r[0]) for r in found]

    @contextmanager
    def _rescore_source(self) -> Iterator[RescoreSource]:
        """The statistics ``lexical_search`` scores with and the rows' term arrays, read in
        one snapshot."""
        with self.read() as c:
            yield _TermArrays(c)

    def phrase_counts(self, query: LexicalQuery) -> tuple[int, dict[str, int]]:
        """(records passing the filters, {token: those holding it}) as BM25 counts them: one
        count of the records, one of each token's rows among them (through the GIN index)."""
        where, params = filters_sql(query.filters, now=query.now)
        found: dict[str, int] = {}
        # one snapshot: a write committed between the counts made a word's rows outnumber
        # the records
        with self.read() as c:
            row = c.execute(f"SELECT count(*) FROM records r WHERE true{where}", params).fetchone()
            n = int(row[0]) if row else 0
            for token in dict.fromkeys(query.words):
                phrases, tsquery = _match([token], query.with_context)
                if not tsquery:
                    continue
                held = c.execute(
                    _holding("count(*)", where, query.with_context),
                    [[" ".join(p) for p in phrases], tsquery, *params],
                ).fetchone()
                if held and held[0]:
                    found[token] = int(held[0])
        return n, found

    def lexical_tokens(self, rowids: Sequence[int]) -> dict[int, list[str]]:
        """Each record's own lexical tokens as indexed (not its context)."""
        rows = self.query(
            "SELECT rowid, tok FROM lexical WHERE rowid = ANY(%s::bigint[])",
            ([int(r) for r in rowids],),
        )
        return {int(rowid): list(tok) for rowid, tok in rows if tok}

    def term_stats(self, tokens: Sequence[str]) -> tuple[int, dict[str, int]]:
        """(number of records, {token: records holding it}) for these tokens (a token no
        record holds is left out)."""
        with self.read() as c:
            n, _ = lexical_totals(c)  # every record has its lexical row: N is the record count
            found = c.execute(
                f"SELECT term, df_any FROM ({TERM_SUMS}) t WHERE df_any > 0", (list(tokens),)
            ).fetchall()
        return int(n), {t: int(df) for t, df in found}


def lexical_totals(c: psycopg.Connection[Any]) -> tuple[int, int]:
    """(rows in the lexical index, their terms in both columns): ``write_counts`` summed."""
    row = c.execute("SELECT sum(lex_rows), sum(lex_terms) FROM write_counts").fetchone()
    return int(row[0]), int(row[1])  # type: ignore[index]


def _phrase_rows(c: psycopg.Connection[Any], phrases: list[list[str]], both: bool) -> list[int]:
    """Rows each phrase occurs in (in their own terms unless the context counts too): single
    terms from ``lexical_terms`` in one query, longer phrases (rare) counted over the rows
    holding all their terms."""
    column = "df_any" if both else "df_tok"
    singles = [p[0] for p in phrases if len(p) == 1]
    found = dict(
        c.execute(
            f"SELECT term, {column} FROM ({TERM_SUMS}) t",
            (singles,),
        ).fetchall()
    )
    out = []
    for phrase in phrases:
        if len(phrase) == 1:
            out.append(int(found.get(phrase[0], 0)))
            continue
        hits = "phrase_hits(tok, %s) + phrase_hits(ctx, %s)" if both else "phrase_hits(tok, %s)"
        row = c.execute(
            f"SELECT count(*) FROM lexical WHERE doc @@ %s::tsquery AND {hits} > 0",
            [tsquery_text([phrase], own_only=not both), *[phrase] * (2 if both else 1)],
        ).fetchone()
        out.append(int(row[0]) if row else 0)
    return out


class _TermArrays:
    """What ``lexical_rescore`` reads of the lexical tables, on one connection."""

    def __init__(self, c: psycopg.Connection[Any]) -> None:
        self._c = c

    def totals(self) -> tuple[int, float]:
        rows, total = lexical_totals(self._c)
        return rows, (total / rows if rows else 0.0)

    def phrase_rows(self, phrases: Sequence[list[str]], both: bool) -> list[int]:
        return _phrase_rows(self._c, list(phrases), both)

    def row_terms(self, rowids: list[int]) -> Iterator[tuple[int, list[str], list[str]]]:
        found = self._c.execute(
            "SELECT rowid, tok, ctx FROM lexical WHERE rowid = ANY(%s::bigint[])", (rowids,)
        ).fetchall()
        for rowid, own, ctx in found:
            yield int(rowid), list(own), list(ctx)
