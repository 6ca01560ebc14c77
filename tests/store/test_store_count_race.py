"""A scope's BM25 counts read while another connection writes (issue 44, item 6).

``phrase_counts`` reads a scope's record count and each word's rows in the scope. Read in
separate snapshots, a write landing between them made a word's rows outnumber the records
(16 REST clients ingesting while searching: ``ValueError: math domain error`` in ``idf``,
an HTTP 500). These tests land a write from a second connection exactly there: the hook
fires when the store starts the counting's second statement, after the first has run.
The in-memory store counts under its lock, so no write can land between its reads.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conformance import BACKENDS, fields

from remem.store.base import Store
from remem.store.memory.lexical_index import idf
from remem.store.queries import LexicalQuery
from remem.types import Filters

SCOPE = Filters(scopes=["a"])


def _add(store: Store, first: int, count: int) -> None:
    store.insert_records(
        [(fields(n, scope="a"), "apple filler", "") for n in range(first, first + count)]
    )


def _sqlite_hook(store: Any, on_second: Callable[[], None]) -> Callable[[], None]:
    """Calls ``on_second`` when the store's connection starts its second SELECT."""
    seen = [0]

    def trace(statement: str) -> None:
        if statement.lstrip().upper().startswith(("SELECT", "WITH")):
            seen[0] += 1
            if seen[0] == 2:
                on_second()

    store._conn.set_trace_callback(trace)
    return lambda: store._conn.set_trace_callback(None)


def _postgres_hook(
    monkeypatch: pytest.MonkeyPatch, on_second: Callable[[], None]
) -> Callable[[], None]:
    """Calls ``on_second`` when any connection starts its second SELECT (the writer's own
    statements, run from inside the hook, are not counted)."""
    import psycopg

    original = psycopg.Connection.execute
    seen = [0]
    busy = [False]

    def execute(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        text = query if isinstance(query, str) else ""
        if not busy[0] and text.lstrip().upper().startswith(("SELECT", "WITH")):
            seen[0] += 1
            if seen[0] == 2:
                busy[0] = True
                try:
                    on_second()
                finally:
                    busy[0] = False
        return original(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "execute", execute)
    return lambda: monkeypatch.setattr(psycopg.Connection, "execute", original)


@pytest.fixture(params=["sqlite", "postgres"])
def two_connections(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, Store, Store]]:
    """A store, and a second store object (its own connection) on the same data."""
    store = BACKENDS[request.param](tmp_path)
    if request.param == "sqlite":
        from remem.store.sqlite import SQLiteStore

        other: Store = SQLiteStore(tmp_path / "store.db")
    else:
        from pg_server import pg_url
        from remem.store.postgres import PostgresStore

        other = PostgresStore(pg_url(), schema=store._schema, pool_size=1)  # type: ignore[attr-defined]
    yield request.param, store, other
    other.close()
    store.close()


@pytest.mark.parametrize("context_weight", [0.0, 1.0])
def test_a_scopes_counts_come_from_one_snapshot(two_connections, monkeypatch, context_weight):
    backend, store, other = two_connections
    _add(store, 1, 2)
    fired = []

    def write() -> None:
        if not fired:
            fired.append(True)
            _add(other, 10, 5)  # five more records of the scope, each holding the word

    if backend == "sqlite":
        unhook = _sqlite_hook(store, write)
    else:
        unhook = _postgres_hook(monkeypatch, write)
    try:
        counts = store.phrase_counts(LexicalQuery(["apple"], SCOPE, None, context_weight))
    finally:
        unhook()
    assert fired, "the write never landed: the counting ran one statement only"
    # before the write or after it, never a mix of both (a mix had 2 records, 7 holding it)
    assert counts in [(2, {"apple": 2}), (7, {"apple": 7})]
    assert store.phrase_counts(LexicalQuery(["apple"], SCOPE, None, context_weight)) == (
        7,
        {"apple": 7},
    )
    # and the scope's counts score its rows
    hits = store.lexical_search(LexicalQuery(["apple"], SCOPE, None, context_weight), 10)
    assert len(store.lexical_rescore([r for r, _ in hits], ["apple"], 0.0, stats=counts)) == 7


@pytest.mark.parametrize(
    ("rows", "hits"), [(2, 7), (0, 3), (0, 0), (5, 5), (5, -1), (-1, 2), (10**9, 10**12)]
)
def test_idf_is_defined_for_any_counts(rows, hits):
    # counts that disagree (a word in more rows than there are) weigh the word as FTS5 weighs
    # one in every row: the smallest weight, never a math domain error
    assert idf(rows, hits) == 1e-6 or idf(rows, hits) > 0
    assert idf(10, 1) > idf(10, 5) > 0
