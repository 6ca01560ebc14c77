"""Errors the framework raises before remem's code runs (unknown route, wrong method, a body
the JSON parser gives up on) answer like remem's own: ``{"error": "..."}``, one line. Found by
tests/fuzz: they answered FastAPI's ``{"detail": ...}``."""

from __future__ import annotations

import httpx
import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from serving import Served


@pytest.fixture
def url(tmp_path):
    from remem.server.rest import create_app

    config = Config.load(env={}, overrides={"indexing.mode": "sync", "scopes.agent": "bot"})
    with Memory(tmp_path / "rest.db", config, embedder=HashEmbedder()) as mem:
        served = Served(create_app(mem))
        try:
            yield served.url
        finally:
            served.close()


def test_framework_errors_have_remem_error_bodies(url):
    deep = b"[" * 100_000 + b"]" * 100_000
    with httpx.Client(base_url=url, timeout=30) as http:
        parse = http.post("/v1/search", content=deep, headers={"content-type": "application/json"})
        missing = http.get("/v1/nothing-here")
        method = http.put("/v1/search", json={"query": "x"})
        ui = http.get("/ui/nothing-here")
    assert parse.status_code == 400
    assert parse.json() == {
        "error": "invalid body: it could not be parsed as JSON (nested too deeply?)"
    }
    assert missing.status_code == 404 and missing.json() == {"error": "Not Found"}
    assert method.status_code == 405 and method.json() == {"error": "Method Not Allowed"}
    assert method.headers["allow"] == "POST"  # the framework's headers are kept
    assert ui.status_code == 404 and "error" not in ui.json()  # the web UI keeps its own
