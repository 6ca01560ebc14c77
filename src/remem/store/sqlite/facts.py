"""Facts in the SQLite store (``FactStore``): the SQL of ``remem.store.facts_sql`` with
SQLite's placeholders, on the store's one connection."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager

from remem.store import facts_sql
from remem.store.filter_sql import SQLITE_FILTERS
from remem.store.sqlite.connection import SQLiteConnection

SQLITE_FACTS = facts_sql.FactsDialect(
    lists=SQLITE_FILTERS,
    no_limit=-1,
    by_code_point="",  # SQLite compares text bytewise: UTF-8 sorts by code point
    chunk=500,  # one bound value per id: stays under SQLite's variable limit
)


class FactsMixin(facts_sql.SQLFacts, SQLiteConnection):
    _facts_dialect = SQLITE_FACTS

    def _facts_write(self) -> AbstractContextManager[sqlite3.Connection]:
        return self.write()

    def _facts_read(self) -> AbstractContextManager[sqlite3.Connection]:
        return self.read()
