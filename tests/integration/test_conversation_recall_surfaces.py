"""conversation_recall and the management-tools switch on every surface: REST over real HTTP,
MCP through the official client over streamable HTTP."""

from __future__ import annotations

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession

from helpers import HashEmbedder
from remem import Config, Memory
from serving import Served

T = 1_800_000_000.0
TOKEN_A, TOKEN_B = "a" * 32, "b" * 32
MANAGEMENT = {"memory_forget", "memory_list", "memory_stats"}


def seed(mem: Memory) -> None:
    rows = [  # id, session, platform, scope, text
        ("k1", "s1", "qq", "agent:alpha", "the kayak trip is on Saturday"),
        ("k2", "s1", "qq", "agent:alpha", "bring the dry bags"),
        ("k3", "s2", "qq", "agent:alpha", "kayak rental costs 20 euros"),
        ("k4", "s3", "discord", "agent:alpha", "my kayak is red"),
        ("k5", "s1", "qq", "agent:beta", "kayak notes of another agent"),
    ]
    mem.ingest_many(
        [
            {
                "id": i,
                "session": s,
                "platform": p,
                "scope": sc,
                "role": "user",
                "speaker": "Ann",
                "text": t,
                "timestamp": T + n,
            }
            for n, (i, s, p, sc, t) in enumerate(rows)
        ]
    )


@pytest.fixture
def rest(tmp_path):
    from remem.server.rest import create_app

    opened = []

    def start(**overrides):
        config = Config.load(
            env={},
            overrides={
                "indexing.mode": "sync",
                "server.tokens": {TOKEN_A: "alpha", TOKEN_B: "beta"},
                **overrides,
            },
        )
        mem = Memory(tmp_path / f"rest{len(opened)}.db", config, embedder=HashEmbedder())
        seed(mem)
        served = Served(create_app(mem))
        opened.append((served, mem))
        return httpx.Client(
            base_url=served.url, timeout=30, headers={"Authorization": f"Bearer {TOKEN_A}"}
        )

    yield start
    for served, mem in opened:
        served.close()
        mem.close()


def ids(answer: dict) -> set[str]:
    return {h["record"]["id"] for h in answer["hits"]}


def sessions(answer: dict) -> set[str]:
    return {h["record"]["session"] for h in answer["hits"]}


def test_rest_conversation_recall_narrows_and_keeps_to_the_agents_scopes(rest):
    http = rest(**{"conversation.cross_session": "platform"})
    body = {"query": "kayak", "session": "s1", "limit": 10}
    out = http.post("/v1/conversation/recall", json=body).json()
    assert sessions(out) == {"s1", "s2"}  # platform qq
    assert "k5" not in ids(out)  # agent alpha's scope only
    assert out["scope"] == "platform" and "<remem-memory" in out["block"]
    assert "another agent" not in out["block"]
    wider = http.post("/v1/conversation/recall", json={**body, "scope": "all"}).json()
    assert sessions(wider) == {"s1", "s2"} and wider["scope"] == "platform"
    narrow = http.post("/v1/conversation/recall", json={**body, "scope": "session"}).json()
    assert sessions(narrow) == {"s1"} and "k5" not in ids(narrow)
    alone = http.post("/v1/conversation/recall", json={**body, "crossSession": False}).json()
    assert sessions(alone) == {"s1"}  # the third knob (issue 44 item 9)
    bad = http.post("/v1/conversation/recall", json={**body, "contextWindow": -1})
    assert bad.status_code == 422 and "contextWindow" in bad.json()["error"]
    tool = http.post(
        "/v1/tools/conversation_recall",
        json={"arguments": {"query": "kayak", "scope": "all"}, "session": "s1"},
    )
    assert {m["session"] for m in tool.json()["matches"]} == {"s1", "s2"}


def test_rest_hides_the_management_tools_when_switched_off(rest):
    http = rest(**{"scopes.management_tools": False})
    listed = {t["name"] for t in http.get("/v1/tools").json()}
    assert "memory_recall" in listed and "conversation_recall" in listed
    assert not listed & MANAGEMENT
    for name in sorted(MANAGEMENT):
        r = http.post(f"/v1/tools/{name}", json={"arguments": {}})
        assert r.status_code == 400 and "turned off" in r.json()["error"]
    shown = rest()
    assert {t["name"] for t in shown.get("/v1/tools").json()} >= MANAGEMENT


def test_mcp_lists_and_refuses_hidden_tools_and_recalls_the_chat(tmp_path):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    from remem.server.mcp_server import build_server, http_app

    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "scopes.agent": "alpha",
            "scopes.management_tools": False,
            "conversation.cross_session": "all",
        },
    )
    mem = Memory(tmp_path / "mcp.db", config, embedder=HashEmbedder())
    seed(mem)
    served = Served(http_app(build_server(mem, session="s1"), "127.0.0.1", mem.config))

    async def main():
        client = httpx2.AsyncClient(timeout=30)
        async with (
            streamable_http_client(f"{served.url}/mcp", http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = {t.name for t in (await session.list_tools()).tools}
            hidden = await session.call_tool("memory_list", {})
            found = await session.call_tool(
                "conversation_recall", {"query": "kayak", "limit": 10, "contextWindow": 0}
            )
            return listed, hidden, found

    try:
        listed, hidden, found = anyio.run(main)
    finally:
        served.close()
        mem.close()
    assert "conversation_recall" in listed and not listed & MANAGEMENT
    assert hidden.is_error and "turned off" in hidden.content[0].text
    assert {m["id"] for m in found.structured_content["matches"]} == {"k1", "k2", "k3", "k4"}
    assert found.structured_content["contextWindow"] == 0
