"""`remem copy` as a user runs it: killed midway (SIGKILL), run again, verified."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from test_cli import one_error_line, run

from helpers import HashEmbedder
from remem import Config, Memory


def copied_after(db) -> int:
    """The destination's resume marker, read as another process would (0 before it exists)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            row = conn.execute(
                "SELECT value FROM meta WHERE namespace = 'copy' AND key = 'after'"
            ).fetchone()
    except sqlite3.OperationalError:  # the schema is being created
        return 0
    return int(row[0]) if row else 0


def test_a_killed_copy_resumes_and_verifies(tmp_path):
    src, dst = tmp_path / "src.db", tmp_path / "dst.db"
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(src, config, embedder=HashEmbedder()) as mem:
        mem.ingest_many(
            [{"text": f"line {i} of the chat", "session": f"s{i % 9}"} for i in range(3000)]
        )
    env = {**os.environ, "REMEM_EMBED__PROVIDER": "none"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "remem.cli", "copy", str(src), str(dst), "--batch", "5"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while copied_after(dst) == 0 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    cut = copied_after(dst)
    assert 0 < cut < 3000, "the copy was not cut short: nothing to resume"
    report = json.loads(run(["copy", str(src), str(dst), "--json"], lexical=True).stdout)
    assert report["resumed_after"] == cut and report["copied"] == 3000 - cut
    assert report["verified"] and report["counts"]["kind:message"] == [3000, 3000]
    assert report["counts"]["vectors:test:hash64:64"] == [3000, 3000]
    with Memory(dst, config, embedder=HashEmbedder()) as mem:
        assert mem.search("line 2999", k=1).hits[0].record.text == "line 2999 of the chat"


def test_copy_refuses_what_it_cannot_do(tmp_path):
    src = tmp_path / "src.db"
    assert run(["copy", str(tmp_path / "none.db"), str(src)]).returncode == 1  # not found
    with Memory(src, Config.load(env={}), embedder=HashEmbedder()) as mem:
        mem.ingest({"text": "hello"})
    assert "same store" in one_error_line(run(["copy", str(src), str(src)]))
    unreachable = one_error_line(
        run(["copy", str(src), "postgresql://u:secret@127.0.0.1:9/db"]), code=3
    )  # a store error
    assert "cannot connect to PostgreSQL" in unreachable and "port=9" in unreachable
    assert "secret" not in unreachable
    other = tmp_path / "other.db"
    with Memory(other, Config.load(env={}), embedder=HashEmbedder()) as mem:
        mem.ingest({"text": "someone else's"})
    assert "copy into an empty store" in one_error_line(run(["copy", str(src), str(other)]))


def test_copy_to_postgresql_and_back(tmp_path):
    pytest.importorskip("psycopg")
    from pg_server import fresh_schema, pg_url

    src, back = tmp_path / "src.db", tmp_path / "back.db"
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(src, config, embedder=HashEmbedder()) as mem:
        mem.ingest_many([{"text": f"line {i} 第{i}行", "session": f"s{i % 4}"} for i in range(40)])
        mem.add("Ann prefers tea", scope="user:ann")
    schema = {"REMEM_STORE__PG_SCHEMA": fresh_schema()}
    there = run(["copy", str(src), pg_url(), "--json"], lexical=True, env_extra=schema)
    assert there.returncode == 0, there.stderr
    assert json.loads(there.stdout)["verified"]
    home = run(["copy", pg_url(), str(back), "--json"], lexical=True, env_extra=schema)
    assert home.returncode == 0, home.stderr
    report = json.loads(home.stdout)
    assert report["verified"] and report["counts"]["kind:message"] == [40, 40]
    assert report["counts"]["vectors:test:hash64:64"] == [41, 41]
    with Memory(back, config, embedder=HashEmbedder()) as mem:
        assert mem.search("第39行", k=1).hits[0].record.text == "line 39 第39行"
