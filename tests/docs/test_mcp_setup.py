"""The MCP client configuration the README and the MCP guide show, run as a client would run
it: `remem` started over stdio with exactly those arguments, and every tool usable, including
`conversation_recall`, which needs the session the arguments name (issue 43: the README's
configuration left `--session` out, so that tool could only answer with an error)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from remem import Config, Memory

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "docs" / "guides" / "mcp.md"]


def stdio_configs() -> list[tuple[str, dict]]:
    found = []
    for page in PAGES:
        for block in re.findall(r"```json\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            server = json.loads(block).get("mcpServers", {}).get("remem", {})
            if "command" in server:  # the stdio shape (the HTTP one has a url)
                found.append((page.name, server))
    return found


def test_both_pages_show_a_stdio_configuration():
    assert sorted(name for name, _ in stdio_configs()) == ["README.md", "mcp.md"]


@pytest.mark.parametrize(("page", "server"), stdio_configs(), ids=lambda v: str(v)[:20])
def test_the_configuration_shown_can_recall_the_conversation(page, server, tmp_path):
    args = server["args"]
    assert server["command"] == "remem" and args[0] == "mcp"
    assert "--session" in args, f"{page}: no --session, so conversation_recall cannot work"
    session = args[args.index("--session") + 1]
    env = {
        **os.environ,
        **server.get("env", {}),
        "REMEM_DB": str(tmp_path / "mcp.db"),  # the page's path stands for the user's own
        "REMEM_EMBED__PROVIDER": "none",  # keyword search is enough to find the line
        "XDG_CONFIG_HOME": str(tmp_path),
    }
    env.pop("REMEM_CONFIG", None)
    config = Config.load(env={"REMEM_EMBED__PROVIDER": "none"})
    with Memory(tmp_path / "mcp.db", config) as mem:
        mem.ingest({"session": session, "role": "user", "speaker": "Ann",
                    "text": "The ferry to the island leaves at 7:15"})  # fmt: skip
    params = StdioServerParameters(command=sys.executable, args=["-m", "remem.cli", *args], env=env)

    async def recall():
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            return await client.call_tool("conversation_recall", {"query": "ferry"})

    answer = anyio.run(recall)
    assert not answer.is_error, f"{page}: {answer.content[0].text}"
    assert "The ferry to the island leaves at 7:15" in answer.structured_content["block"]
