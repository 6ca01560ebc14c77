"""Open the store a configuration names: a PostgreSQL URL or a SQLite file."""

from __future__ import annotations

from pathlib import Path

from remem.config.sections import StoreConfig, is_postgres_url
from remem.store.base import Store
from remem.store.sqlite import SQLiteStore


def open_store(config: StoreConfig, target: str | Path | None = None) -> Store:
    """``target`` (a file path or a PostgreSQL URL) when given, else ``store.url`` when
    set, else the SQLite file at ``store.path`` (or the default)."""
    url = str(target) if is_postgres_url(target) else None
    if target is None:
        url = config.url
    if url is not None:
        from remem.store.postgres import PostgresStore  # needs the [postgres] extra

        return PostgresStore(
            url,
            schema=config.pg_schema,
            pool_size=config.pool_size,
            group_commit=config.group_commit,
            writes_in_flight=config.pg_writes_in_flight,
        )
    path = target if target is not None else config.resolved_path()
    return SQLiteStore(
        path,
        busy_timeout_ms=config.busy_timeout_ms,
        cache_mb=config.cache_mb,
        group_commit=config.group_commit,
        group_commit_window_ms=config.group_commit_window_ms,
    )
