"""Record reads written once for both SQL backends (issue 42: no second copy): a session's
previous turns, a page of records, every record page by page.

SQLite and PostgreSQL ask these the same way and differ only in what a ``SQLDialect``
holds: the placeholder, the "no limit" value, the record columns and the filters as SQL.
Each backend's method hands its ``query`` (all rows of one SELECT) to these functions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from remem.store.filter_sql import filters_where
from remem.store.rows import row_to_record
from remem.store.sql_dialect import SQLDialect
from remem.types import Filters, Record

Query = Callable[[str, Any], list[Any]]


def previous_texts(
    query: Query, d: SQLDialect, session: str, before: float, limit: int
) -> list[Record]:
    """The last ``limit`` records of a session created before ``before``, oldest first."""
    m = d.mark
    rows = query(
        f"SELECT {d.columns} FROM records r WHERE r.session = {m} AND r.created_at < {m} "
        f"AND r.index_status != 'skipped' ORDER BY r.created_at DESC, r.rowid DESC LIMIT {m}",
        (session, before, limit),
    )
    return [row_to_record(r) for r in reversed(rows)]


def list_records(
    query: Query,
    d: SQLDialect,
    filters: Filters | None,
    *,
    limit: int | None,
    offset: int,
    newest_first: bool,
) -> list[Record]:
    """A page of records passing the filters, newest (or oldest) first; a limit of None
    (or below 0) means all."""
    where, params = filters_where(filters, d)
    order = "DESC" if newest_first else "ASC"
    rows = query(
        f"SELECT {d.columns} FROM records r WHERE 1=1{where} "
        f"ORDER BY r.created_at {order}, r.rowid {order} LIMIT {d.mark} OFFSET {d.mark}",
        [*params, d.limit(limit), offset],
    )
    return [row_to_record(r) for r in rows]


def iter_records(
    query: Query, d: SQLDialect, filters: Filters | None, batch: int, after: int
) -> Iterator[Record]:
    """Every record passing the filters with rowid > after, in rowid order, page by page."""
    where, params = filters_where(filters, d)
    while True:
        rows = query(
            f"SELECT {d.columns} FROM records r WHERE r.rowid > {d.mark}{where} "
            f"ORDER BY r.rowid LIMIT {d.mark}",
            [after, *params, batch],
        )
        if not rows:
            return
        yield from (row_to_record(r) for r in rows)
        after = rows[-1][0]
