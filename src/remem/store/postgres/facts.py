"""Facts in the PostgreSQL store (``FactStore``): the SQL of ``remem.store.facts_sql`` with
PostgreSQL's placeholders and array parameters, on the store's pool."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from remem.store import facts_sql
from remem.store.filter_sql import POSTGRES_FILTERS
from remem.store.postgres.connection import PostgresConnection

POSTGRES_FACTS = facts_sql.FactsDialect(
    lists=POSTGRES_FILTERS,
    no_limit=None,  # LIMIT NULL: all rows
    by_code_point=' COLLATE "C"',  # by code point, not by the database's locale
    chunk=50_000,  # a list is one array parameter: chunks only bound the array's size
)


class FactsMixin(facts_sql.SQLFacts, PostgresConnection):
    _facts_dialect = POSTGRES_FACTS

    def _facts_write(self) -> AbstractContextManager[Any]:
        return self.write()

    def _facts_read(self) -> AbstractContextManager[Any]:
        return self.read()
