"""The `remem` command as a real process: the module entry point (`python -m remem.cli`, the
console script's `remem.cli:run`), its exit codes, stdin, stdout and stderr as a shell sees
them. The other command-line tests run the same entry point inside the test process
(tests/cli_inproc.py) and rely on what these check: that a process ends with the code
`main()` exits with and prints what it printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from remem.cli.exits import BAD_INPUT, NOT_FOUND, STORE_ERROR

pytestmark = pytest.mark.slow  # a `remem` process per command (Python, imports, a model)


def remem_process(*args: str, db, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "REMEM_DB": str(db), "REMEM_EMBED__PROVIDER": "none"}
    return subprocess.run(
        [sys.executable, "-m", "remem.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
        timeout=300,
    )


def test_a_process_ingests_from_stdin_searches_and_exits_0(tmp_path):
    db = tmp_path / "p.db"
    rows = '{"id": "c1", "text": "I adopted a greyhound called Pixel"}\n'
    proc = remem_process("ingest", "-", "--json", db=db, stdin=rows)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["ingested"] == 1
    proc = remem_process("search", "greyhound", "--json", "--db", str(db), db=db)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hits"][0]["record"]["id"] == "c1"
    assert proc.stderr == ""


def test_a_process_exits_with_the_tables_code_and_one_error_line(tmp_path):
    db = tmp_path / "e.db"
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database" * 200)
    cases = [
        (["add", "  "], BAD_INPUT, "invalid text"),
        (["--db", str(tmp_path / "missing.db"), "stats"], NOT_FOUND, "no remem database"),
        (["--db", str(junk), "stats"], STORE_ERROR, "cannot use"),
    ]
    for args, code, said in cases:
        proc = remem_process(*args, db=db)
        assert proc.returncode == code, (args, proc.returncode, proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ") and said in lines[0], lines
        assert "Traceback" not in proc.stderr and proc.stdout == ""
