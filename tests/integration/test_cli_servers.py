"""`remem serve`, `remem proxy` and `remem mcp` as commands: start-up checks and a real
`remem serve` process answering on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx
import pytest
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


def test_a_taken_port_is_named_before_the_banner(tmp_path):
    """`remem proxy` beside a running `remem serve` used to print its banner and then
    "address already in use"."""
    db = tmp_path / "s.db"
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        for args in (
            ["proxy", "--upstream", "http://127.0.0.1:9/v1", "--agent", "a", "--port", str(port)],
            ["serve", "--port", str(port)],
        ):
            line = one_error_line(run(args, db, lexical=True))
            assert f"port {port} on 127.0.0.1 is already in use" in line and "--port" in line
        line = one_error_line(run(["mcp", "--http", f"127.0.0.1:{port}"], db, lexical=True))
        assert "already in use" in line and "--http 127.0.0.1:" in line


def test_a_token_less_bind_beyond_loopback_needs_the_explicit_setting():
    from remem import Config
    from remem.errors import ConfigError
    from remem.server.identity import check_bind

    with pytest.raises(ConfigError) as refused:
        check_bind(Config.load(env={}), "0.0.0.0")
    assert "server.allow_unauthenticated_bind" in str(refused.value)
    assert "read, change and delete" in str(refused.value)
    check_bind(Config.load(env={}, overrides={"server.allow_unauthenticated_bind": True}), "::")
    check_bind(Config.load(env={}, overrides={"server.tokens": {"t" * 20: "bot"}}), "0.0.0.0")
    with pytest.raises(ConfigError, match="without scheme or port"):
        Config.load(env={}, overrides={"server.allowed_hosts": ["memory.lan:8765"]})
