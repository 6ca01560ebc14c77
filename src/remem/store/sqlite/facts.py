"""Facts in the SQLite store (``FactStore``): the SQL of ``remem.store.facts_sql`` with
SQLite's placeholders, on the store's one connection."""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager

from remem.store import facts_sql
from remem.store.sql_dialect import SQLITE
from remem.store.sqlite.connection import SQLiteConnection


class FactsMixin(facts_sql.SQLFacts, SQLiteConnection):
    _facts_dialect = SQLITE

    def _facts_write(self) -> AbstractContextManager[sqlite3.Connection]:
        return self.write()

    def _facts_read(self) -> AbstractContextManager[sqlite3.Connection]:
        return self.read()
