"""The one Host/Origin policy, the security headers and the JSON 5xx answer of every HTTP
surface (REST, web UI, MCP over HTTP), on real servers on 127.0.0.1 (issue 44, items 1, 2, 4
and 7). A page of another site whose name was re-pointed at 127.0.0.1 (DNS rebinding) sends
its own name as Host: without tokens it must get nothing."""

from __future__ import annotations

import logging
import re

import httpx
import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from serving import Served

FOREIGN = "evil.example"


@pytest.fixture
def serve_rest(tmp_path):
    from remem.server.rest import create_app

    started: list = []

    def start(**overrides):
        config = Config.load(
            env={}, overrides={"indexing.mode": "sync", "scopes.agent": "bot", **overrides}
        )
        mem = Memory(tmp_path / f"rest{len(started)}.db", config, embedder=HashEmbedder())
        served = Served(create_app(mem))
        started.append((served, mem))
        return served, mem

    yield start
    for served, mem in started:
        served.close()
        mem.close()


def _host(served, name: str) -> dict[str, str]:
    return {"Host": f"{name}:{served.port}"}


def test_a_foreign_host_gets_nothing_from_the_token_less_api(serve_rest):
    served, mem = serve_rest()
    mem.add("Ann keeps bees", scope="global")
    foreign = _host(served, FOREIGN)
    with httpx.Client(base_url=served.url, timeout=30) as http:
        answers = [
            http.get("/v1/export", headers=foreign),
            http.get("/v1/records", headers=foreign),
            http.post("/v1/ingest", json={"text": "planted", "session": "s"}, headers=foreign),
            http.post("/v1/memories", json={"text": "planted"}, headers=foreign),
            http.post("/v1/search", json={"query": "bees"}, headers=foreign),
            http.get("/docs", headers=foreign),
            http.get("/openapi.json", headers=foreign),
            http.get("/ui", headers=foreign),
            http.get("/healthz", headers=foreign),
        ]
        record_id = mem.list()[0].id
        answers.append(http.delete(f"/v1/records/{record_id}", headers=foreign))
        for answer in answers:
            assert answer.status_code == 421, (answer.request.url, answer.text)
            assert "Host" in answer.json()["error"] and FOREIGN in answer.json()["error"]
        assert [r.text for r in mem.list()] == ["Ann keeps bees"]  # nothing planted or deleted
        # a loopback name still answers, and so does a foreign page's request (Origin) never
        for name in ("127.0.0.1", "localhost"):
            assert http.get("/v1/stats", headers=_host(served, name)).status_code == 200
        cross = http.post(
            "/v1/memories", json={"text": "planted"}, headers={"Origin": f"http://{FOREIGN}"}
        )
        assert cross.status_code == 403 and "Origin" in cross.json()["error"]
        sandboxed = http.post("/v1/memories", json={"text": "x"}, headers={"Origin": "null"})
        assert sandboxed.status_code == 403
        assert [r.text for r in mem.list()] == ["Ann keeps bees"]
        local_page = {"Origin": f"http://localhost:{served.port}"}
        assert http.get("/v1/stats", headers=local_page).status_code == 200


def test_configured_allowed_hosts_answer(serve_rest):
    served, _mem = serve_rest(**{"server.allowed_hosts": ["memory.lan"]})
    with httpx.Client(base_url=served.url, timeout=30) as http:
        assert http.get("/v1/stats", headers=_host(served, "memory.lan")).status_code == 200
        assert http.get("/v1/stats", headers=_host(served, "MEMORY.LAN")).status_code == 200
        assert http.get("/v1/stats", headers=_host(served, FOREIGN)).status_code == 421
        origin = {"Origin": "http://memory.lan:8080"}
        assert http.get("/v1/stats", headers=origin).status_code == 200


def test_security_headers_on_every_ui_and_docs_answer(serve_rest):
    served, _mem = serve_rest()
    with httpx.Client(base_url=served.url, timeout=30) as http:
        answers = {
            path: http.get(path)
            for path in ("/ui", "/ui/memories", "/ui/static/htmx.min.js", "/ui/nothing", "/docs")
        }
        answers["/ui/delete"] = http.post("/ui/delete/x")  # refused: no Origin, no Referer
        answers["foreign"] = http.get("/ui", headers=_host(served, FOREIGN))
    for path, answer in answers.items():
        headers = answer.headers
        assert headers["x-frame-options"] == "DENY", path
        assert "frame-ancestors 'none'" in headers["content-security-policy"], path
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["referrer-policy"] == "same-origin", path
    ui_policy = answers["/ui"].headers["content-security-policy"]
    assert "script-src 'self'" in ui_policy and "unsafe-inline" not in ui_policy.split("style")[0]


def test_docs_are_served_without_network(serve_rest):
    served, _mem = serve_rest()
    with httpx.Client(base_url=served.url, timeout=30) as http:
        for page in ("/docs", "/redoc"):
            html = http.get(page).text
            assets = re.findall(r'(?:src|href)="([^"]+)"', html)
            assert assets, html
            for asset in assets:
                assert not asset.startswith(("http:", "https:", "//")), (page, asset)
                assert http.get(asset).status_code == 200, asset
            policy = http.get(page).headers["content-security-policy"]
            assert "https:" not in policy


def test_an_unexpected_exception_answers_json_with_a_request_id(serve_rest, caplog):
    served, mem = serve_rest()

    def broken(*_args, **_kwargs):
        raise ValueError("injected failure")

    mem.search = broken  # what a store bug under load looked like
    caplog.set_level(logging.INFO)
    with httpx.Client(base_url=served.url, timeout=30) as http:
        answers = [
            http.post("/v1/search", json={"query": "bees"}),
            http.get("/ui/search", params={"q": "bees"}),
        ]
    for answer in answers:
        assert answer.status_code == 500, answer.text
        assert answer.headers["content-type"] == "application/json"
        body = answer.json()
        request_id = body["request_id"]
        assert request_id in body["error"] and answer.headers["x-request-id"] == request_id
        lines = [r for r in caplog.records if request_id in r.getMessage()]
        assert len(lines) == 1 and lines[0].exc_info is not None
        assert "injected failure" in caplog.text
    assert not [r for r in caplog.records if "Exception in ASGI application" in r.getMessage()]


# ---------------------------------------------------------------------- MCP over HTTP
@pytest.fixture
def serve_mcp(tmp_path):
    from remem.server.mcp_server import build_server, http_app

    started: list = []

    def start(**overrides):
        config = Config.load(
            env={}, overrides={"embed.provider": "none", "scopes.agent": "bot", **overrides}
        )
        mem = Memory(tmp_path / f"mcp{len(started)}.db", config)
        served = Served(http_app(build_server(mem), "127.0.0.1", config))
        started.append((served, mem))
        return served

    yield start
    for served, mem in started:
        served.close()
        mem.close()


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def test_mcp_http_keeps_the_same_host_policy(serve_mcp):
    served = serve_mcp(**{"server.allowed_hosts": ["memory.lan"]})
    with httpx.Client(base_url=served.url, timeout=30) as http:
        foreign = http.post(
            "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **_host(served, FOREIGN)}
        )
        assert foreign.status_code == 421 and FOREIGN in foreign.json()["error"]["message"]
        cross = http.post(
            "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Origin": f"http://{FOREIGN}"}
        )
        assert cross.status_code == 403
        allowed = http.post(
            "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, **_host(served, "memory.lan")}
        )
        assert allowed.status_code == 200, allowed.text
        assert allowed.headers["x-content-type-options"] == "nosniff"


def test_mcp_http_failure_answers_json_rpc_with_a_request_id(serve_mcp, monkeypatch, caplog):
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    async def broken(self, scope, receive, send):
        raise RuntimeError("injected transport failure")

    monkeypatch.setattr(StreamableHTTPSessionManager, "_handle_stateful_request", broken)
    served = serve_mcp()
    caplog.set_level(logging.INFO)
    with httpx.Client(base_url=served.url, timeout=30) as http:
        answer = http.post("/mcp", json=INITIALIZE, headers=MCP_HEADERS)
    assert answer.status_code == 500 and answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert body["jsonrpc"] == "2.0" and body["error"]["code"] == -32603
    request_id = body["error"]["data"]["request_id"]
    assert [r for r in caplog.records if request_id in r.getMessage()]
