"""The backends the store conformance suite runs over, and the rows its tests insert.

Every test in ``tests/store`` that takes the ``store`` fixture runs once per backend here.
A new backend (PostgreSQL) joins the suite by adding its factory to ``BACKENDS``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pg_server import fresh_schema, pg_url
from remem.store.base import Store
from remem.store.memory import InMemoryStore
from remem.store.sqlite import SQLiteStore

T = 1_700_000_000.0  # a fixed "now" in the past: real time is always later


def _sqlite(tmp_path: Path) -> Store:
    return SQLiteStore(tmp_path / "store.db")


def _memory(tmp_path: Path) -> Store:
    return InMemoryStore()


def _postgres(tmp_path: Path) -> Store:
    from remem.store.postgres import PostgresStore

    return PostgresStore(pg_url(), schema=fresh_schema(), pool_size=2)


BACKENDS: dict[str, Callable[[Path], Store]] = {
    "sqlite": _sqlite,
    "memory": _memory,
    "postgres": _postgres,
}


def fields(n: int, **extra: Any) -> dict[str, Any]:
    """Prepared record fields as the engine hands them to ``insert_records``."""
    base: dict[str, Any] = {
        "id": f"r{n}",
        "kind": "message",
        "text": f"text {n}",
        "scope": "global",
        "created_at": T + n,
        "content_hash": f"h{n}",
        "importance": 0.5,
    }
    base.update(extra)
    return base


def insert(store: Store, *rows: dict[str, Any], tokens: str = "") -> list[int]:
    """Insert records (each with the same lexical tokens); returns their rowids."""
    rowids = store.insert_records([(f, tokens) for f in rows])
    assert None not in rowids
    return [r for r in rowids if r is not None]
