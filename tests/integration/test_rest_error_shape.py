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
    # the web UI answers its own 404 page, not the API's JSON
    assert ui.status_code == 404 and ui.headers["content-type"].startswith("text/html")


def test_metadata_that_is_not_json_is_refused_not_stored(url):
    """NaN and Infinity parse (Python's json accepts them) but cannot be served as JSON: such a
    record used to be stored and then answer 500 on every read."""
    headers = {"content-type": "application/json"}
    with httpx.Client(base_url=url, timeout=30) as http:
        for path in ("/v1/memories", "/v1/ingest"):
            body = b'{"text": "x", "metadata": {"a": NaN, "b": Infinity}}'
            answer = http.post(path, content=body, headers=headers)
            assert answer.status_code == 400, answer.text
            assert "metadata: " in answer.json()["error"]  # ingest names the item too
        assert http.get("/v1/records").json() == {"records": []}


def test_a_field_name_from_the_body_keeps_the_error_on_one_line(url):
    with httpx.Client(base_url=url, timeout=30) as http:
        answer = http.post("/v1/search", json={"query": "x", "evil\nname": 1})
    assert answer.status_code == 422
    assert answer.json()["error"] == "invalid evil\\nname: Extra inputs are not permitted"
