"""The many-writers benchmark (benchmarks/scripts/writers.py), tiny: real writer and searcher
processes on SQLite and PostgreSQL, and the check that every acknowledged write is there once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _run(*args: str, tmp_path: Path) -> dict:
    """The script as a user runs it (its processes import it by path)."""
    out = tmp_path / "report.json"
    script = REPO / "benchmarks" / "scripts" / "writers.py"
    subprocess.run([sys.executable, str(script), *args, "--out", str(out)], check=True, timeout=600)
    return json.loads(out.read_text())


def _check_rows(rows: dict, names: set[str]) -> None:
    assert set(rows) == names
    for name, row in rows.items():
        assert row["writes"] > 0, name
        assert row["ack_p99_ms"] is not None
        if "check" in row:
            assert row["check"]["acked"] == row["writes"]
            assert row["check"]["missing"] == 0 and row["check"]["duplicated"] == 0


def test_sqlite_configurations_in_one_run(tmp_path):
    report = _run(
        "--db",
        str(tmp_path),
        "--writers",
        "2",
        "--searchers",
        "1",
        "--seconds",
        "1",
        tmp_path=tmp_path,
    )
    _check_rows(report["results"], {"remem", "remem-no-group", "bare-full", "bare-normal"})
    assert report["results"]["remem"]["searches"] > 0


def test_the_writers_as_threads_of_one_process(tmp_path):
    """--threads: the writers share one Memory in one process; every write is there once."""
    report = _run(
        "--db", str(tmp_path / "w"), "--writers", "3", "--searchers", "0", "--seconds", "1",
        "--threads", tmp_path=tmp_path,
    )  # fmt: skip
    rows = report["results"]
    _check_rows(rows, {"remem", "remem-no-group", "remem-threads", "bare-full", "bare-normal"})
    assert rows["remem-threads"]["cpu_ms_per_write"] > 0


def test_the_writers_can_send_a_real_chats_lines(tmp_path):
    """--texts: the lines of a corpus, in turn, so the facts fill reads what a chat makes it
    read; every line written is stored with its text."""
    import sqlite3

    corpus = tmp_path / "corpus.jsonl"
    lines = ["I moved to Leeds last month", "haha same", "我搬到上海了"]
    corpus.write_text("".join(json.dumps({"text": t}) + "\n" for t in lines), encoding="utf-8")
    work = tmp_path / "w"
    report = _run(
        "--db", str(work), "--writers", "1", "--searchers", "0", "--seconds", "1",
        "--texts", str(corpus), tmp_path=tmp_path,
    )  # fmt: skip
    assert report["texts"] == str(corpus)
    _check_rows(report["results"], {"remem", "remem-no-group", "bare-full", "bare-normal"})
    with sqlite3.connect(work / "remem.db") as c:
        written = {t for (t,) in c.execute("SELECT text FROM records WHERE id NOT LIKE 'warm-%'")}
    assert written == set(lines)


def test_postgres_beside_a_bare_insert_loop(tmp_path):
    pytest.importorskip("psycopg")
    from pg_server import fresh_schema, pg_url

    report = _run(
        "--db",
        pg_url(),
        "--pg-schema",
        fresh_schema(),
        "--writers",
        "2",
        "--searchers",
        "0",
        "--seconds",
        "1",
        "--store-only",
        "--threads",
        "--set",
        "store.pg_writes_in_flight=1",
        tmp_path=tmp_path,
    )
    # store-only: the store's insert alone, every acknowledged write there once as well;
    # remem-threads: the writers as threads sharing one pool, with and without group commit
    results = report["results"]
    _check_rows(results, {"remem", "store-only", "remem-threads", "remem-threads-no-group", "bare"})
    # group commit on: the writes that shared a statement are counted (two threads with one
    # write in flight rarely queue two behind it); off: there is nothing to count
    assert 0 <= results["remem-threads"]["grouped_writes"] <= results["remem-threads"]["writes"]
    assert results["remem-threads-no-group"]["grouped_writes"] is None
    assert report["results"]["store-only"]["server_cpu_ms_per_write"] > 0
    assert report["results"]["remem-threads"]["server_cpu_ms_per_write"] > 0
    # the test server runs on this machine: its backends' CPU is measured too
    assert report["results"]["remem"]["server_cpu_ms_per_write"] > 0
    assert report["results"]["bare"]["server_cpu_ms_per_write"] > 0


def test_a_setting_without_a_value_is_refused(tmp_path):
    script = REPO / "benchmarks" / "scripts" / "writers.py"
    run = subprocess.run(
        [sys.executable, str(script), "--db", str(tmp_path), "--set", "store.pool_size"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert "write KEY=VALUE" in run.stderr
