"""The MCP server through a real MCP client session from the official SDK: over stdio (a
real `remem mcp` subprocess) and over streamable HTTP (served on 127.0.0.1)."""

from __future__ import annotations

import json
import os
import sys

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from remem.tools import tool_specs
from serving import Served


def call_all(session_factory):
    async def main():
        async with session_factory() as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            tools = {t.name: t for t in listed.tools}
            stored = await session.call_tool(
                "memory_store", {"text": "Ann prefers aisle seats", "category": "preference"}
            )
            recalled = await session.call_tool("memory_recall", {"query": "aisle seats"})
            listing = await session.call_tool("memory_list", {})
            stats = await session.call_tool("memory_stats", {})
            bad_scope = await session.call_tool(
                "memory_recall", {"query": "x", "scope": "agent:someone-else"}
            )
            bad_args = await session.call_tool("memory_store", {"importance": 2})
            unknown = await session.call_tool("memory_teleport", {})
            forgotten = await session.call_tool(
                "memory_forget", {"memory_id": stored.structured_content["memory"]["id"]}
            )
            return tools, stored, recalled, listing, stats, bad_scope, bad_args, unknown, forgotten

    return anyio.run(main)


def check(results, agent):
    tools, stored, recalled, listing, stats, bad_scope, bad_args, unknown, forgotten = results
    specs = {s["name"]: s for s in tool_specs()}
    assert set(tools) == set(specs)
    for name, tool in tools.items():  # exactly the library's tools
        assert tool.description == specs[name]["description"]
        assert tool.input_schema == specs[name]["input_schema"]
    assert not stored.is_error and stored.structured_content["memory"]["scope"] == f"agent:{agent}"
    assert json.loads(stored.content[0].text) == stored.structured_content
    assert [m["text"] for m in recalled.structured_content["memories"]] == [
        "Ann prefers aisle seats"
    ]
    assert listing.structured_content["total"] == 1
    assert stats.structured_content["by_category"] == {"preference": 1}
    for err, words in (
        (bad_scope, "may not use scope"),
        (bad_args, "text"),
        (unknown, "unknown tool"),
    ):
        assert err.is_error and words in err.content[0].text
    assert forgotten.structured_content["forgotten"]


def test_stdio_server_subprocess(tmp_path):
    env = {**os.environ, "REMEM_DB": str(tmp_path / "mcp.db"), "REMEM_EMBED__PROVIDER": "none"}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "remem.cli", "mcp", "--agent", "claude-code"], env=env
    )
    check(call_all(lambda: stdio_client(params)), "claude-code")


@pytest.fixture
def http_server(tmp_path):
    from remem import Config, Memory
    from remem.server.mcp_server import build_server, http_app

    started: list = []

    def start(**overrides):
        config = Config.load(
            env={}, overrides={"indexing.mode": "sync", "embed.provider": "none", **overrides}
        )
        mem = Memory(tmp_path / "http.db", config)
        served = Served(http_app(build_server(mem), "127.0.0.1", mem.config))
        started.append((served, mem))
        return f"{served.url}/mcp"

    yield start
    for served, mem in started:
        served.close()
        mem.close()


def http_session(url, token=None):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    client = httpx2.AsyncClient(headers=headers, timeout=30)
    return lambda: streamable_http_client(url, http_client=client)


def test_streamable_http_with_configured_agent(http_server):
    url = http_server(**{"scopes.agent": "desk-agent"})
    check(call_all(http_session(url)), "desk-agent")


def test_streamable_http_agent_from_bearer_token(http_server):
    token = "t" * 24
    url = http_server(**{"server.tokens": {token: "token-agent"}})
    check(call_all(http_session(url, token)), "token-agent")

    async def with_wrong_token():
        async with http_session(url, "w" * 24)() as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            return await s.call_tool("memory_list", {})

    result = anyio.run(with_wrong_token)
    assert result.is_error and "unknown bearer token" in result.content[0].text
