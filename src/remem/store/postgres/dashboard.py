"""The PostgreSQL store's dashboard reads (``DashboardStore``): counts and listings for the
web UI, each in a read-only, repeatable-read transaction on a pooled connection (the scan
holds one connection of the pool, never a lock a writer waits for)."""

from __future__ import annotations

from remem.store import dashboard_sql
from remem.store.base import DistinctColumn, RecordBreakdown, SessionSummary, StoreSize
from remem.store.postgres.connection import SCHEMA_BYTES_SQL, PostgresConnection, redact
from remem.store.postgres.filters import filters_sql
from remem.types import Filters

POSTGRES = dashboard_sql.Dialect(
    mark="%s",
    no_limit=None,  # LIMIT NULL: all rows
    day="trunc(r.created_at / 86400)::bigint",
    by_code_point=' COLLATE "C"',  # by code point, not by the database's locale
    filters_sql=filters_sql,
)


class DashboardMixin(PostgresConnection):
    def breakdown(self, filters: Filters | None = None) -> RecordBreakdown:
        with self.read() as c:
            return dashboard_sql.breakdown(c, POSTGRES, filters)

    def session_summaries(
        self, filters: Filters | None = None, *, limit: int = 200
    ) -> list[SessionSummary]:
        with self.read() as c:
            return dashboard_sql.session_summaries(c, POSTGRES, filters, limit)

    def distinct_values(self, column: DistinctColumn, filters: Filters | None = None) -> list[str]:
        with self.read() as c:
            return dashboard_sql.distinct_values(c, POSTGRES, column, filters)

    def newest_ids(
        self,
        filters: Filters | None = None,
        *,
        ended_by: float | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[str]:
        with self.read() as c:
            return dashboard_sql.newest_ids(
                c, POSTGRES, filters, ended_by=ended_by, limit=limit, offset=offset
            )

    def storage_size(self) -> StoreSize:
        """The tables and indexes (with their TOAST data) of the store's schema."""
        row = self.query_one(SCHEMA_BYTES_SQL)
        return StoreSize(int(row[0]), "schema", f"{redact(self._url)} (schema {self._schema})")
