"""`remem serve`, `remem proxy` and `remem mcp` as commands: start-up checks and a real
`remem serve` process answering on 127.0.0.1."""

from __future__ import annotations

import json
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


def _started(args: list[str], db, ready: str) -> subprocess.Popen:
    env = {**os.environ, "REMEM_DB": str(db), "REMEM_EMBED__PROVIDER": "none"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "remem.cli", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 60
    while True:
        try:
            httpx.get(ready, timeout=1)
            return proc
        except httpx.HTTPError:
            if time.time() > deadline or proc.poll() is not None:
                proc.kill()
                raise AssertionError(proc.stderr.read().decode()) from None
            time.sleep(0.1)


def _upstream_counting(hits: list[str]):
    from fastapi import FastAPI

    app = FastAPI()

    @app.get("/v1/models")
    async def models():
        hits.append("models")
        return {"object": "list", "data": []}

    @app.post("/v1/chat/completions")
    async def chat():
        hits.append("chat")
        return {"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}]}

    return app


def test_foreign_hosts_origins_and_referers_get_nothing_from_running_servers(tmp_path):
    """The adversarial check of issue 44: every combination of a loopback or foreign Host,
    Origin and Referer against every surface of a running `remem serve` (REST, web UI),
    `remem mcp --http` and `remem proxy`. A request counts as served unless it got 421 or
    403 before any route ran; the proxy's upstream counts what reached it."""
    from serving import Served

    hits: list[str] = []
    upstream = Served(_upstream_counting(hits))
    ports = {name: free_port() for name in ("serve", "mcp", "proxy")}
    procs = [
        _started(
            ["serve", "--port", str(ports["serve"])],
            tmp_path / "a.db",
            f"http://127.0.0.1:{ports['serve']}/healthz",
        ),
        _started(
            ["mcp", "--agent", "a", "--http", f"127.0.0.1:{ports['mcp']}"],
            tmp_path / "b.db",
            f"http://127.0.0.1:{ports['mcp']}/mcp",
        ),
        _started(
            [
                "proxy",
                "--agent",
                "a",
                "--upstream",
                f"{upstream.url}/v1",
                "--port",
                str(ports["proxy"]),
            ],
            tmp_path / "c.db",
            f"http://127.0.0.1:{ports['proxy']}/v1/models",
        ),
    ]
    hits.clear()
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}},
    }
    chat = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    requests = [  # (surface, server, method, path, keyword arguments, a browser form post?)
        ("REST", "serve", "GET", "/v1/export", {}, False),
        ("REST", "serve", "POST", "/v1/memories", {"json": {"text": "planted"}}, False),
        ("REST", "serve", "DELETE", "/v1/records/nothing", {}, False),
        ("REST", "serve", "GET", "/docs", {}, False),
        ("UI", "serve", "GET", "/ui/memories", {}, False),
        ("UI", "serve", "POST", "/ui/backfill", {"data": {"x": "1"}}, True),
        ("MCP", "mcp", "POST", "/mcp", {"json": initialize}, False),
        ("proxy", "proxy", "GET", "/v1/models", {}, False),
        ("proxy", "proxy", "POST", "/v1/chat/completions", {"json": chat}, False),
    ]
    mcp_accept = {"Accept": "application/json, text/event-stream"}
    counts: dict[str, int] = {}
    wrong: list[str] = []
    planted = 0
    try:
        with httpx.Client(timeout=30) as http:
            for surface, server, method, path, kwargs, form in requests:
                port = ports[server]
                loopback = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
                foreign = [f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}"]
                for host in loopback + foreign:
                    for origin in (None, f"http://{host}", "http://evil.example", "null"):
                        for referer in (None, f"http://{host}/ui", "http://evil.example/x"):
                            headers = {"Host": host, **(mcp_accept if server == "mcp" else {})}
                            if origin:
                                headers["Origin"] = origin
                            if referer:
                                headers["Referer"] = referer
                            if path == "/v1/memories":  # distinct texts: dedup would fold them
                                kwargs = {"json": {"text": f"planted {sum(counts.values())}"}}
                            answer = http.request(
                                method, f"http://127.0.0.1:{port}{path}", headers=headers, **kwargs
                            )
                            served = answer.status_code not in (403, 421)
                            is_foreign = host in foreign or origin in (
                                "http://evil.example",
                                "null",
                            )
                            if form and origin is None:  # a form post names its page
                                is_foreign = is_foreign or referer != f"http://{host}/ui"
                            kind = "foreign" if is_foreign else "legitimate"
                            key = f"{surface} {kind} {'served' if served else 'refused'}"
                            counts[key] = counts.get(key, 0) + 1
                            if served and not is_foreign and path == "/v1/memories":
                                planted += 1
                            if served == is_foreign:
                                wrong.append(f"{method} {path} {headers} -> {answer.status_code}")
        export = httpx.get(f"http://127.0.0.1:{ports['serve']}/v1/export", timeout=30).text
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        upstream.close()
    print("\nadversarial check:", json.dumps(counts, indent=1, sort_keys=True))
    print("upstream calls:", len(hits), "(legitimate proxy requests:", end=" ")
    print(counts.get("proxy legitimate served", 0), ")")
    assert not wrong, wrong[:10]
    assert len(hits) == counts["proxy legitimate served"]  # nothing foreign reached it
    assert export.count('"text": "planted ') == planted  # only legitimate writes were stored
