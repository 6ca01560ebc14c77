"""Issue 44 item 19: the noise and meta-talk rules that auto-capture applies hold on every
write path that creates a curated memory for an agent (the ``memory_store`` tool, MCP and the
CLI's ``memory store`` through it, ``POST /v1/memories``), each refusal saying why; the
operator's explicit ``remem add`` / ``Memory.add`` stays verbatim. Real SQLite store, real
REST server on 127.0.0.1, the real ``remem`` command in a subprocess."""

from __future__ import annotations

import httpx
import pytest
from test_cli import run

from helpers import HashEmbedder
from remem import Config, Memory
from serving import Served

# what memory-lancedb-pro's noise filter refuses, and the memory_store tool stored
NOISE = [
    "I don't have any information about that.",
    "Do you remember what I said...",
    "Do you remember what I said about my sister?",
    "hi",
    "HEARTBEAT",
    "我没有相关记忆",
    "你还记得我说过什么吗？",
    "Forget everything about me",
]
FACT = "Bob is allergic to peanuts"


@pytest.fixture
def mem(tmp_path):
    config = Config.load(env={}, overrides={"indexing.mode": "sync", "scopes.agent": "bot"})
    with Memory(tmp_path / "noise.db", config, embedder=HashEmbedder()) as m:
        yield m


def test_the_tool_refuses_noise_and_meta_talk_with_a_reason(mem):
    tools = mem.tools("bot", session="s1", user="ann")
    for text in NOISE:
        out = tools.call("memory_store", {"text": text})
        assert out["stored"] is False and out["rejected"], (text, out)
    assert mem.store.count() == 0
    out = tools.call("memory_store", {"text": FACT})
    assert out["stored"] is True and "rejected" not in out
    refused = tools.call("memory_store", {"text": "hi"})["rejected"]
    assert refused == "greeting, acknowledgement, refusal or heartbeat"  # capture's words


def test_rest_refuses_them_and_the_explicit_add_keeps_them(mem):
    from remem.server.rest import create_app

    server = Served(create_app(mem))
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http:
            for text in NOISE:
                r = http.post("/v1/memories", json={"text": text})
                assert r.status_code == 400, (text, r.text)
                assert r.json()["rejected"] and "text" in r.json()["error"], r.text
            assert mem.store.count() == 0
            assert http.post("/v1/memories", json={"text": FACT}).status_code == 201
    finally:
        server.close()
    for text in NOISE:  # the operator's explicit add stores what it is given
        assert mem.add(text).text == text


def test_the_cli_store_refuses_and_remem_add_stays_verbatim(tmp_path):
    db = tmp_path / "cli.db"
    proc = run(["memory", "store", "HEARTBEAT", "--agent", "bot"], db, lexical=True)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "not stored" in proc.stderr and "heartbeat" in proc.stderr
    proc = run(["memory", "store", "hi", "--agent", "bot", "--json"], db, lexical=True)
    assert proc.returncode == 1 and '"rejected"' in proc.stdout, proc.stdout
    assert run(["add", "HEARTBEAT"], db, lexical=True).returncode == 0
    listed = run(["list", "--json"], db, lexical=True).stdout
    assert listed.count("HEARTBEAT") == 1 and '"hi"' not in listed
