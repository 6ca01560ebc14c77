"""Fuzz the REST API in process (Starlette's TestClient over the real app): every endpoint,
random bodies, paths and query strings, with and without a bearer token. No answer is a 5xx,
and every 4xx is a JSON object whose ``error`` is one line (422s name the field)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.inputs import FUZZ, field_values, hostile_text, json_values, maybe_fields
from helpers import HashEmbedder
from remem import Config, Memory

TOKEN = "t" * 32
RECORD = maybe_fields(
    {
        "text": field_values("Bob moved to Berlin", "我们下周三开会", "\ud800"),
        "id": field_values("n1", "r1", "abc\n"),
        "kind": field_values("message", "memory"),
        "role": field_values("user", "assistant"),
        "scope": field_values("global", "agent:agent-a", "agent:agent-b"),
        "session": field_values("s1", "s2"),
        "speaker": field_values("Alice"),
        "timestamp": field_values(1_800_000_000, "2026-05-01T12:00:00Z"),
        "metadata": field_values({"a": 1}),
        "importance": field_values(0.5),
        "category": field_values("fact"),
    },
    required=("text",),
)
FILTERS = maybe_fields(
    {
        "kind": field_values("message", ["memory"]),
        "scope": field_values("global", "agent:agent-b"),
        "scopes": field_values(["global"]),
        "session": field_values("s1"),
        "ids": field_values(["r1"], "\ud800"),
        "since": field_values(0, ""),
        "until": field_values("2030-01-01"),
        "include_superseded": field_values(True),
    }
)
BODIES: dict[str, st.SearchStrategy[Any]] = {
    "ingest": st.one_of(
        RECORD,
        st.lists(RECORD, max_size=3),
        st.fixed_dictionaries({"messages": st.lists(RECORD, max_size=3)}),
    ),
    "memories": RECORD,
    "search": maybe_fields(
        {
            "query": field_values("Berlin", "开会", ""),
            "k": field_values(1, 10, 100, 1000),
            "filters": st.one_of(FILTERS, json_values),
            "explain": field_values(True, False),
            "now": field_values(None, 1_800_000_000, "", "2026-05-01"),
        }
    ),
    "recall-for-turn": maybe_fields(
        {
            "session": field_values("s1"),
            "inputs": field_values(["r1"], ["r1", "r2"]),
            "user_id": field_values("u1"),
            "platform": field_values("qq"),
            "current_ids": field_values([], ["r2"]),
            "now": field_values(1_800_000_000),
            "group_id": field_values("g1"),
            "platform_type": field_values("group"),
            "settings": field_values({"cross_session": "none"}),
            "requested_mode": field_values("none"),
        }
    ),
    "capture-after-turn": maybe_fields(
        {
            "messages": field_values(["r1"], [{"text": "I like tea", "role": "user"}]),
            "session": field_values("s1"),
            "user": field_values("u1"),
            "now": field_values(1_800_000_000),
        }
    ),
    "recall-memories": maybe_fields(
        {"query": field_values("tea"), "session": field_values("s1"), "user": field_values("u1")}
    ),
    "tools": maybe_fields(
        {
            "arguments": field_values(
                {"query": "tea"}, {"text": "Bob likes tea"}, {"memory_id": "m1"}
            ),
            "session": field_values("s1"),
            "user": field_values("u1"),
        }
    ),
}
RAW_BODIES = [
    b"",
    b"{",
    b"null",
    b'"text"',
    b"\xff\xfe{}",
    b'{"text": "\\ud800"}',
    b'{"query": "x", "filters": {"ids": ["\\udfff"]}}',
    b"[" * 100_000 + b"]" * 100_000,
    b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    json.dumps({"text": "x" * 1_000_001}).encode(),
]


def segment(text: str) -> str:
    """A path segment or query value as a client could send it (lone surrogates as the bytes
    a careless encoder produces), cut to 2,000 characters (longer URLs are the client's
    problem: httpx refuses them)."""
    return quote(text[:2000].encode("utf-8", "surrogatepass"), safe="")


def query_string(params: dict[str, Any]) -> str:
    return "&".join(f"{segment(str(k))}={segment(str(v))}" for k, v in params.items())


PARAMS = maybe_fields(
    {
        "kind": field_values("message", "memory"),
        "scope": field_values("global", "agent:agent-b"),
        "session": field_values("s1"),
        "limit": field_values(1, 50, 1000, -1),
        "offset": field_values(0, -1),
        "with_vectors": field_values("true", "false"),
    }
)
ID = field_values("r1", "m1", "nope", "\ud800", "..", "%00")


@st.composite
def requests(draw) -> tuple[str, str, bytes | None]:
    """(method, path with query string, body bytes or None)."""
    route = draw(
        st.sampled_from(
            [
                "POST /v1/ingest",
                "POST /v1/memories",
                "POST /v1/search",
                "POST /v1/recall-for-turn",
                "POST /v1/capture-after-turn",
                "POST /v1/recall-memories",
                "POST /v1/tools/{name}",
                "GET /v1/records/{id}",
                "DELETE /v1/records/{id}",
                "GET /v1/records",
                "GET /v1/export",
                "GET /v1/stats",
                "GET /v1/tools",
                "GET /healthz",
            ]
        )
    )
    method, path = route.split(" ")
    name = path.rsplit("/", 1)[-1]
    if "{name}" in path:
        tool = draw(st.one_of(st.sampled_from(["memory_recall", "memory_store"]), hostile_text))
        path = path.replace("{name}", segment(tool))
        name = "tools"
    if "{id}" in path:
        path = path.replace("{id}", segment(str(draw(st.one_of(ID, hostile_text)))))
    if method == "GET":
        params = draw(st.one_of(PARAMS, st.dictionaries(hostile_text, hostile_text, max_size=3)))
        return method, f"{path}?{query_string(params)}" if params else path, None
    if method == "DELETE":
        return method, path, None
    shaped = BODIES.get(name, json_values)
    body = draw(st.one_of(shaped, shaped, json_values, st.sampled_from(RAW_BODIES)))
    if isinstance(body, bytes):
        return method, path, body
    return method, path, json.dumps(body).encode()


@pytest.fixture(scope="module")
def clients(fast_dir):
    from fastapi.testclient import TestClient

    from remem.server.rest import create_app

    opened = {}
    for name, overrides in {
        "operator": {"scopes.agent": "local-bot"},
        "tokens": {"server.tokens": {TOKEN: "agent-a"}},
    }.items():
        config = Config.load(env={}, overrides={"indexing.mode": "sync", **overrides})
        mem = Memory(fast_dir / f"{name}.db", config, embedder=HashEmbedder())
        mem.ingest_many(
            [
                {"id": "r1", "text": "Bob moved to Berlin", "session": "s1"},
                {"id": "r2", "text": "and he likes tea", "session": "s1"},
                {"id": "b1", "text": "B's secret", "scope": "agent:agent-b"},
            ]
        )
        opened[name] = (
            TestClient(create_app(mem), raise_server_exceptions=False, base_url="http://127.0.0.1"),
            mem,
        )
    yield {name: client for name, (client, _) in opened.items()}
    for client, mem in opened.values():
        client.close()
        mem.close()


# mostly the right token, so that the token app's routes are reached
AUTH = st.one_of(
    st.just(f"Bearer {TOKEN}"),
    st.sampled_from([None, f"Bearer {TOKEN}", "Bearer " + "x" * 32, "Basic abc", "Bearer"]),
)


@FUZZ
@given(app=st.sampled_from(["operator", "tokens"]), request=requests(), auth=AUTH)
def test_rest_answers_no_5xx_and_clean_4xx(clients, app, request, auth):
    method, path, body = request
    headers = {"content-type": "application/json"}
    if auth is not None:
        headers["authorization"] = auth
    response = clients[app].request(method, path, content=body, headers=headers)
    assert response.status_code < 500, (response.status_code, response.text[:500])
    if response.status_code >= 400:
        error = response.json()["error"]
        assert isinstance(error, str) and error and "\n" not in error, error
        if response.status_code == 422:
            assert error.startswith("invalid "), error
            assert response.json()["details"], response.text
