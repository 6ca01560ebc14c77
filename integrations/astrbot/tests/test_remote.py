"""The plugin's remote mode against a real `remem serve` on 127.0.0.1: the backend the plugin
builds for ``mode = remote`` archives, recalls, captures and calls tools over remem's REST API,
as the token's agent and for the event's user.

`remem serve` needs remem's [server] extra (FastAPI, and mcp>=2.3, which AstrBot's own mcp pin
does not allow in this virtualenv), so it runs from another Python: REMEM_SERVER_PYTHON (make
test-astrbot passes the project's .venv when it has one); without one these tests skip."""

from __future__ import annotations

import importlib
import os
import shutil
import socket
import subprocess
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

PLUGIN_DIR = Path(__file__).resolve().parents[1]
SERVER_PYTHON = os.environ.get("REMEM_SERVER_PYTHON", "")
TOKEN = "astrbot-test-token-0123456789"

pytestmark = [
    pytest.mark.skipif(
        not SERVER_PYTHON or not shutil.which(SERVER_PYTHON),
        reason="REMEM_SERVER_PYTHON (a Python with remem[server]) is not set: remote mode untested",
    ),
    pytest.mark.asyncio,
]


def plugin_module(name: str) -> types.ModuleType:
    """One of the plugin's modules, imported as a package the way AstrBot imports it."""
    if "remem_plugin" not in sys.modules:
        pkg = types.ModuleType("remem_plugin")
        pkg.__path__ = [str(PLUGIN_DIR)]
        sys.modules["remem_plugin"] = pkg
    return importlib.import_module(f"remem_plugin.{name}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    config = tmp_path / "remem.toml"
    config.write_text(
        f'[server]\ntokens = {{ "{TOKEN}" = "astrbot" }}\n'
        '[scopes.agents]\nastrbot = ["user:{user}", "session:{session}", "global"]\n'
        '[capture]\nscope = "user:{user}"\nsession_summary = true\n',
        encoding="utf-8",
    )
    port = free_port()
    env = {**os.environ, "REMEM_CONFIG": str(config), "OMP_WAIT_POLICY": "passive"}
    cmd = [SERVER_PYTHON, "-m", "remem.cli", "--db", str(tmp_path / "r.db"), "serve"]
    proc = subprocess.Popen(
        [*cmd, "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "remem serve did not start"
            time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(20)


async def test_remote_mode_archives_recalls_captures_and_calls_tools(server: str) -> None:
    main_settings = {"mode": "remote", "remote_url": server, "remote_token": TOKEN}
    backend = plugin_module("backend").RemoteBackend(
        main_settings["remote_url"], main_settings["remote_token"]
    )
    Identity = plugin_module("identity").Identity
    ann = Identity("qq:GroupMessage:g1", "aiocqhttp", "qq", "qq:ann", "Ann", "g1", None)
    bob = Identity("qq:GroupMessage:g1", "aiocqhttp", "qq", "qq:bob", "Bob", "g1", None)
    try:
        assert {"memory_store", "conversation_recall"} <= {s["name"] for s in backend.tool_specs()}
        said = await backend.archive(
            {
                "session": ann.session,
                "role": "user",
                "speaker_id": ann.user,
                "text": "I'm allergic to peanuts, remember that.",
                "scope": ann.scope,
            }
        )
        peanuts = "I'm allergic to peanuts, remember that."
        captured = await backend.capture(
            ann, "astrbot", [{"id": said, "role": "user", "text": peanuts, "speaker_id": ann.user}]
        )
        assert [m["scope"] for m in captured["stored"]] == ["user:qq:ann"]
        asked = await backend.archive(
            {
                "session": ann.session,
                "role": "user",
                "speaker_id": ann.user,
                "text": "What about peanuts?",
            }
        )
        found = await backend.recall(ann, "astrbot", asked, "What about peanuts?", [])
        assert "allergic to peanuts" in found.memories
        theirs = await backend.recall(bob, "astrbot", asked, "What about peanuts?", [])
        assert "allergic to peanuts" not in theirs.memories  # Ann's scope is not Bob's
        out = await backend.call_tool(bob, "astrbot", "memory_store", {"text": "Bob likes tea"})
        assert out["stored"] is True and out["memory"]["scope"] == "user:qq:bob"
    finally:
        await backend.close()


async def test_remote_reset_stores_the_summary_and_a_remem_that_is_down_costs_a_warning(
    server: str,
) -> None:
    backend_mod = plugin_module("backend")
    backend = backend_mod.RemoteBackend(server, TOKEN)
    Identity = plugin_module("identity").Identity
    cy = Identity("qq:GroupMessage:g7", "aiocqhttp", "qq", "qq:cy", "Cy", "g7", None)
    warnings: list[str] = []
    try:
        text = "I'm moving to Oslo in June, remember that."
        said = await backend.archive(
            {"session": cy.session, "role": "user", "speaker_id": cy.user, "text": text}
        )
        await backend.capture(cy, "astrbot", [{"id": said, "role": "user", "text": text}])
        reply = "Oslo in June: I will keep it in mind for your plans."
        await backend.archive({"session": cy.session, "role": "assistant", "text": reply})
        summary = await backend_mod.summarize_on_reset(backend, cy, "astrbot", warnings.append)
        assert summary is not None, warnings
        assert summary.startswith(f"Summary of session {cy.session}")
        assert "Oslo" in summary and warnings == []
        listed = await backend.call_tool(cy, "astrbot", "memory_list", {"limit": 50})
        assert summary in [m["text"] for m in listed["memories"]]  # a memory of Cy's
    finally:
        await backend.close()
    # remem goes away: the reset still goes on, with one warning
    down = backend_mod.RemoteBackend(server, TOKEN)
    down.client.base_url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    try:
        assert await backend_mod.summarize_on_reset(down, cy, "astrbot", warnings.append) is None
    finally:
        await down.close()
    assert len(warnings) == 1 and "session summary skipped" in warnings[0], warnings
