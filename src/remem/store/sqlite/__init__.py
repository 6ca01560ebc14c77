"""The SQLite store: the source of truth of the embedded default (one file, WAL).

Split by concern (connection, records, lexical, vectors, latent terms, maintenance, the web
UI's dashboard reads); what both SQL backends ask alike is written once in ``remem.store``
(``records_sql``, ``sessions_sql``, ``vectors_sql``, ``latent_sql``, ``facts_sql``,
``dashboard_sql``, ``sql_base``). ``SQLiteStore`` is all of them over one connection.
"""

from __future__ import annotations

from remem.store.facts_sql import SQLFacts
from remem.store.sqlite.dashboard import DashboardMixin
from remem.store.sqlite.latent import LatentMixin
from remem.store.sqlite.lexical import LexicalMixin, fts_match_expression
from remem.store.sqlite.maintenance import MaintenanceMixin
from remem.store.sqlite.records import RecordsMixin
from remem.store.sqlite.vectors import VectorsMixin


class SQLiteStore(
    RecordsMixin,
    LexicalMixin,
    VectorsMixin,
    LatentMixin,
    SQLFacts,
    MaintenanceMixin,
    DashboardMixin,
):
    """Records, their lexical index, their vectors and the facts read from them in one
    SQLite file."""


__all__ = ["SQLiteStore", "fts_match_expression"]
