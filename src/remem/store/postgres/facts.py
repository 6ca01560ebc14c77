"""Facts in the PostgreSQL store (``FactStore``): the SQL of ``remem.store.facts_sql`` with
PostgreSQL's placeholders and array parameters, on the store's pool."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from remem.store import facts_sql
from remem.store.postgres.connection import PostgresConnection
from remem.store.sql_dialect import POSTGRES


class FactsMixin(facts_sql.SQLFacts, PostgresConnection):
    _facts_dialect = POSTGRES

    def _facts_write(self) -> AbstractContextManager[Any]:
        return self.write()

    def _facts_read(self) -> AbstractContextManager[Any]:
        return self.read()
