"""`remem serve`, `remem proxy` and `remem mcp` as commands: start-up checks and a real
`remem serve` process answering on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx
from test_cli import one_error_line, run

from serving import free_port


def test_start_up_refusals(tmp_path):
    db = tmp_path / "s.db"
    line = one_error_line(run(["serve", "--host", "0.0.0.0"], db, lexical=True))
    assert "without authentication" in line and "server.tokens" in line
    line = one_error_line(run(["proxy", "--upstream", "ftp://x", "--agent", "a"], db, lexical=True))
    assert "--upstream" in line
    line = one_error_line(run(["proxy", "--upstream", "http://127.0.0.1:9/v1"], db, lexical=True))
    assert "no agent identity" in line
    line = one_error_line(run(["mcp"], db, lexical=True))
    assert "no agent identity" in line
    line = one_error_line(run(["mcp", "--http", "nonsense"], db, lexical=True))
    assert "HOST:PORT" in line
    line = one_error_line(run(["mcp", "--http", "0.0.0.0:8000"], db, lexical=True))
    assert "without authentication" in line


def test_serve_answers_on_loopback(tmp_path):
    port = free_port()
    env = {**os.environ, "REMEM_DB": str(tmp_path / "s.db"), "REMEM_EMBED__PROVIDER": "none"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "remem.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.time() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                if time.time() > deadline or proc.poll() is not None:
                    raise AssertionError(
                        proc.stderr.read().decode() if proc.poll() else "remem serve did not start"
                    ) from None
                time.sleep(0.1)
        assert r.json()["ok"]
        assert httpx.get(f"http://127.0.0.1:{port}/docs", timeout=5).status_code == 200
        r = httpx.post(
            f"http://127.0.0.1:{port}/v1/ingest",
            timeout=5,
            json={"text": "I keep bees", "session": "s"},
        )
        assert r.status_code == 201
    finally:
        proc.terminate()
        proc.wait(10)
