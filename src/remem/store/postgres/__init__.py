"""The PostgreSQL + pgvector store: the same ``Store`` protocol over a shared server, for
several processes and machines (``pip install 'remem[postgres]'``).

Split by concern like the SQLite store: ``connection`` (pool, migrations under an advisory
lock, transactions), ``group_commit`` (one process's message writes that arrive together
share a statement), ``records``, ``lexical`` (BM25 over remem's tokens, as FTS5 scores
it), ``vectors``, ``latent`` (each record's latent terms), ``nearest`` (store-side vector
search with HNSW indexes), ``claims`` (the embedding queue across processes),
``snapshot_reads`` (the vector reads of an in-process snapshot index), ``dashboard`` (the
web UI's counts and listings) and ``maintenance``; what both SQL backends ask alike is
written once in ``remem.store`` (``records_sql``, ``sessions_sql``, ``vectors_sql``,
``latent_sql``, ``facts_sql``, ``dashboard_sql``, ``sql_base``). ``PostgresStore`` is all of
them over one connection pool.
"""

from __future__ import annotations

from remem.store.facts_sql import SQLFacts
from remem.store.postgres.claims import ClaimsMixin
from remem.store.postgres.connection import redact
from remem.store.postgres.dashboard import DashboardMixin
from remem.store.postgres.latent import LatentMixin
from remem.store.postgres.lexical import LexicalMixin
from remem.store.postgres.maintenance import MaintenanceMixin
from remem.store.postgres.nearest import NearestMixin
from remem.store.postgres.snapshot_reads import SnapshotReadsMixin


class PostgresStore(
    MaintenanceMixin,
    NearestMixin,
    ClaimsMixin,
    SnapshotReadsMixin,
    LexicalMixin,
    LatentMixin,
    SQLFacts,
    DashboardMixin,
):
    """Records, their lexical index, their vectors and the facts read from them in one
    PostgreSQL schema."""


__all__ = ["PostgresStore", "redact"]
