"""What SQLite and PostgreSQL spell differently, held once (issue 42: SQL written once).

The SQL backends ask the same questions of the same tables. The statements are written once
in the shared modules of ``remem.store`` (``records_sql``, ``sessions_sql``, ``vectors_sql``,
``facts_sql``, ``dashboard_sql``, ``filter_sql``) with ``?`` as the placeholder; a backend
hands them its ``SQLDialect``, which holds every difference those statements meet:

- the placeholder (``?`` / ``%s``; ``sql()`` rewrites a statement's ``?``);
- how a list is bound (SQLite: one placeholder per value, ``IN (?,?,?)``, in chunks under its
  variable limit; PostgreSQL: the whole list as one array parameter, ``= ANY(%s::text[])``);
- the LIMIT value that means "all", how text sorts by code point, a quarter-hour number, how
  a text pattern is matched (GLOB / one regular expression), null-safe equality, the larger
  of two values, and reading a JSON text field.

What truly differs stays with each backend: full text (FTS5 vs tsvector), the vector index
(numpy snapshots vs pgvector HNSW), connections and locking, and the schema's DDL.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from remem.store.rows import STORED_FIELDS


@dataclass(frozen=True)
class SQLDialect:
    name: Literal["sqlite", "postgres"]
    mark: str  # the placeholder
    arrays: bool  # a list is one array parameter (PostgreSQL), else one mark per value
    no_limit: Any  # the LIMIT value that means "all"
    by_code_point: str  # appended to a text expression to sort it by code point
    chunk: int  # values per bound list (SQLite binds each value: stay under its limit)
    quarter: str  # a record's quarter-hour number: created_at / 900, truncated (after 1970)
    columns: str  # the rowid and the stored fields, read from ``records r``
    patterns: Literal["glob", "regex"]  # how dashboard_sql matches text patterns
    same: str  # null-safe equality: ``a {same} b`` is true for two NULLs
    greatest: str  # the larger of two values
    typed_mark: str  # a placeholder whose type the statement alone does not tell (text)
    like: str  # LIKE that ignores (at least ASCII) case
    json_equals: str  # (with "?" marks: a key, a string) the record's metadata has it there
    # Whether a session (or id) filter must keep the planner off the kind and scope indexes.
    # SQLite plans without statistics (no ANALYZE): it took the (kind, created_at) index for
    # "kind = 'message' AND session = ?" and walked every message of the store, 91 ms at
    # 100k for a session of 1,000 records, against 0.6 ms through the session index. A
    # session or an id list is always at least as narrow as a kind or a scope, so those two
    # columns are then compared as ``+column`` (SQLite's way to say "no index for this
    # term"). PostgreSQL keeps statistics and plans by them.
    session_first: bool = False

    def sql(self, statement: str) -> str:
        """The statement, written with ``?``, in this dialect's placeholders."""
        return statement if self.mark == "?" else statement.replace("?", self.mark)

    def limit(self, limit: int | None) -> Any:
        """The LIMIT value for ``limit``; None (or below 0) means all."""
        return self.no_limit if limit is None or limit < 0 else limit

    def member(
        self, expr: str, values: Sequence[Any], *, negate: bool = False, array: str = "text"
    ) -> tuple[str, list[Any]]:
        """``expr`` (not) among ``values``, and the parameters to bind (``array``: the
        PostgreSQL element type)."""
        if self.arrays:
            not_ = "NOT " if negate else ""
            return f"{not_}{expr} = ANY({self.mark}::{array}[])", [list(values)]
        marks = ",".join(self.mark * len(values))
        return f"{expr} {'NOT ' if negate else ''}IN ({marks})", list(values)

    def chunks(self, items: Sequence[Any]) -> Iterator[list[Any]]:
        """``items`` in lists of at most ``chunk`` (one list on PostgreSQL, in practice)."""
        for start in range(0, len(items), self.chunk):
            yield list(items[start : start + self.chunk])


SQLITE = SQLDialect(
    name="sqlite",
    mark="?",
    arrays=False,
    no_limit=-1,
    by_code_point="",  # SQLite compares text bytewise: UTF-8 sorts by code point
    chunk=500,  # one bound value per id: stays under SQLite's variable limit
    quarter="CAST(r.created_at / 900 AS INTEGER)",
    columns=", ".join(("rowid", *STORED_FIELDS)),
    patterns="glob",
    same="IS",
    greatest="max",
    typed_mark="?",
    like="LIKE",  # SQLite's LIKE ignores ASCII case
    json_equals="json_extract(r.metadata, '$.' || ?) = ?",
    session_first=True,
)

POSTGRES = SQLDialect(
    name="postgres",
    mark="%s",
    arrays=True,
    no_limit=None,  # LIMIT NULL: all rows
    by_code_point=' COLLATE "C"',  # by code point, not by the database's locale
    chunk=50_000,  # a list is one array parameter: chunks only bound the array's size
    quarter="trunc(r.created_at / 900)::bigint",
    columns=", ".join(f"r.{name}" for name in ("rowid", *STORED_FIELDS)),
    patterns="regex",
    same="IS NOT DISTINCT FROM",
    greatest="greatest",
    typed_mark="%s::text",
    like="ILIKE",
    json_equals="(r.metadata::jsonb -> ?) = to_jsonb(?::text)",  # a JSON string, not a number
)
