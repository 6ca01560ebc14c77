"""The PostgreSQL store's dashboard reads (``DashboardStore``): counts and listings for the
web UI, each in a read-only, repeatable-read transaction on a pooled connection (the scan
holds one connection of the pool, never a lock a writer waits for)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from remem.store import dashboard_sql
from remem.store.dashboard import StoreSize
from remem.store.postgres.connection import SCHEMA_BYTES_SQL, PostgresConnection, redact


class DashboardMixin(dashboard_sql.SQLDashboard, PostgresConnection):
    def _dashboard_read(self) -> AbstractContextManager[Any]:
        return self.read()

    def storage_size(self) -> StoreSize:
        """The tables and indexes (with their TOAST data) of the store's schema."""
        row = self.query_one(SCHEMA_BYTES_SQL)
        return StoreSize(int(row[0]), "schema", f"{redact(self._url)} (schema {self._schema})")
