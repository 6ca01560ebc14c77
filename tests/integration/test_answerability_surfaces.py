"""The same hit shows the same answerability score on every surface: the Python API, REST over
real HTTP, the MCP conversation_recall tool through the official client, the web UI's search
view and the CLI's --json, all over one store of the real bundled model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession

from remem import Config, Memory
from serving import Served

pytestmark = pytest.mark.slow

CHAT = Path(__file__).resolve().parents[1] / "data" / "hike_chat" / "chat.jsonl"
ROWS = [json.loads(line) for line in CHAT.read_text("utf-8").splitlines() if line.strip()]
QUESTION = "What is Lin Wei's new phone number?"


def rounded(pairs) -> dict[str, float]:
    return {rid: round(score, 4) for rid, score in pairs}


def over_mcp(mem: Memory) -> dict[str, float]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    from remem.server.mcp_server import build_server, http_app

    served = Served(
        http_app(build_server(mem, session=ROWS[0]["session"]), "127.0.0.1", mem.config)
    )

    async def main():
        client = httpx2.AsyncClient(timeout=60)
        async with (
            streamable_http_client(f"{served.url}/mcp", http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await session.call_tool(
                "conversation_recall", {"query": QUESTION, "limit": 10, "contextWindow": 0}
            )

    try:
        found = anyio.run(main)
    finally:
        served.close()
    assert not found.is_error, found.content
    return {m["id"]: m["score"] for m in found.structured_content["matches"]}


def over_rest(mem: Memory) -> dict[str, float]:
    from remem.server.rest import create_app

    served = Served(create_app(mem))
    try:
        with httpx.Client(base_url=served.url, timeout=60) as http:
            body = http.post("/v1/search", json={"query": QUESTION, "k": 10}).json()
    finally:
        served.close()
    return rounded((h["record"]["id"], h["score"]) for h in body["hits"])


def over_cli(db: Path) -> dict[str, float]:
    env = {**os.environ, "REMEM_DB": str(db)}
    proc = subprocess.run(
        [sys.executable, "-m", "remem.cli", "search", QUESTION, "--json", "-k", "10"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return rounded((h["record"]["id"], h["score"]) for h in json.loads(proc.stdout)["hits"])


def test_one_hit_one_score_on_every_surface(tmp_path):
    from remem.server.ui.explain import explained

    db = tmp_path / "chat.db"
    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "conversation.cross_session": "all",
            "scopes.agent": "alpha",  # the MCP tools act for an agent
        },
    )
    with Memory(db, config) as mem:
        mem.ingest_many(ROWS, wait=True)
        result = mem.search(QUESTION, k=10)
        api = rounded((h.record.id, h.score) for h in result.hits)
        ui = rounded((h.record.id, h.score) for h in explained(mem, result, None).hits)
        rest = over_rest(mem)
        mcp = over_mcp(mem)
    cli = over_cli(db)
    assert api, "the question has hits"
    assert all(h.explain.answerability == h.score for h in result.hits)
    assert ui == api and rest == api and cli == api
    # the tool returns what it recalls of the same hits (its own limit and filters)
    shared = set(mcp) & set(api)
    assert shared and {i: mcp[i] for i in shared} == {i: api[i] for i in shared}
