"""The SQLite store's dashboard reads (``DashboardStore``): counts and listings for the web UI.

They run on a read-only connection of their own, one transaction each (WAL: a reader never
blocks the writer nor waits for it), so a scan of a large store never holds the connection
that requests share.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from remem.errors import StoreError
from remem.store import dashboard_sql
from remem.store.dashboard import StoreSize
from remem.store.sqlite.connection import SQLiteConnection, file_bytes


class DashboardMixin(dashboard_sql.SQLDashboard, SQLiteConnection):
    @contextmanager
    def _dashboard_read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction on a read-only connection of its own."""
        uri = f"{self._path.resolve().as_uri()}?mode=ro"
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=self._busy_timeout_s)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open database {str(self._path)!r}: {exc}") from None
        try:
            conn.execute("BEGIN")
            yield conn
        finally:
            conn.close()  # ends the read transaction

    def storage_size(self) -> StoreSize:
        return StoreSize(file_bytes(self._path), "file", str(self._path))
