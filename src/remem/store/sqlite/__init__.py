"""The SQLite store: the source of truth of the embedded default (one file, WAL).

Split by concern (connection and meta, records and sessions, lexical, vectors, latent terms,
facts, maintenance, the web UI's dashboard reads); ``SQLiteStore`` is all of them over one
connection.
"""

from __future__ import annotations

from remem.store.sqlite.dashboard import DashboardMixin
from remem.store.sqlite.facts import FactsMixin
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
    FactsMixin,
    MaintenanceMixin,
    DashboardMixin,
):
    """Records, their lexical index, their vectors and the facts read from them in one
    SQLite file."""


__all__ = ["SQLiteStore", "fts_match_expression"]
