"""Facts a surface shows are never stale (issue 48 / 47): facts are read after the write's
acknowledgement (``ingest/facts_fill.py``), so every surface that shows them first waits for
the facts owed (``Memory.wait_facts``): the agent tool ``memory_facts`` (the MCP server and the
proxy serve the same tools), REST ``GET /v1/facts``, the web UI's people pages
(``tests/ui/test_people.py``), ``remem facts``. A write with ``embed=False`` owes its facts like
any write. In these tests the fill never reads on its own (``NEVER``): only a wait reads."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from remem import Config, Memory
from remem.errors import ValidationError
from remem.server.rest import create_app

NOV_2 = "2026-11-02T10:00:00+00:00"
DEC_2 = "2026-12-02T10:00:00+00:00"
NEVER = {"facts.quiet_ms": 3_600_000, "facts.max_wait_s": 3_600}
HERE = "http://127.0.0.1:8765"


def config(**overrides: object) -> Config:
    base = {"embed.provider": "none", "indexing.mode": "sync"}
    return Config.load(env={}, overrides={**base, **overrides})


def say(mem: Memory, text: str, when: str = NOV_2) -> str:
    return mem.ingest({"text": text, "speaker": "Tom", "session": "chat", "timestamp": when}).id


def test_wait_facts_reads_what_is_owed(tmp_path):
    with Memory(tmp_path / "m.db", config(**NEVER)) as mem:
        say(mem, "I live in Shenzhen now")
        assert mem.store.count_awaiting_facts() == 1 and mem.store.facts() == []
        assert mem.wait_facts(timeout=60) is True
        assert mem.store.count_awaiting_facts() == 0
        assert [f.value for f in mem.store.facts()] == ["Shenzhen"]


def test_wait_facts_names_a_bad_timeout(tmp_path):
    with (
        Memory(tmp_path / "m.db", config(**NEVER)) as mem,
        pytest.raises(ValidationError, match="timeout"),
    ):
        mem.wait_facts(timeout=-1)


def test_wait_facts_is_true_at_once_when_facts_are_not_kept(tmp_path):
    with Memory(tmp_path / "m.db", config(**{"facts.enabled": False})) as mem:
        say(mem, "I live in Shenzhen now")
        assert mem.wait_facts(timeout=0) is True


def test_the_agent_tool_shows_what_was_just_said(tmp_path):
    with Memory(tmp_path / "m.db", config(**NEVER)) as mem:
        say(mem, "I live in Shenzhen now")
        say(mem, "I moved to Shanghai last week", DEC_2)
        told = mem.tools("desk").call("memory_facts", {"subject": "Tom"})
        assert [(f["attribute"], f["value"]) for f in told["facts"]] == [("lives_in", "Shanghai")]


def test_rest_facts_shows_what_was_just_said(tmp_path):
    with Memory(tmp_path / "m.db", config(**NEVER)) as mem:
        say(mem, "I live in Shenzhen now")
        local = TestClient(create_app(mem), client=("127.0.0.1", 5000), base_url=HERE)
        answer = local.get("/v1/facts", params={"subject": "Tom"})
        assert answer.status_code == 200, answer.text
        assert [f["value"] for f in answer.json()["facts"]] == ["Shenzhen"]


def test_a_write_without_embedding_owes_its_facts_like_any_write(tmp_path):
    with Memory(tmp_path / "m.db", config(**{"facts.quiet_ms": 0})) as mem:
        say(mem, "I work at Globex")  # the process's first write: the backlog walk is done
        mem.ingest_many(
            [{"text": "I live in Lisbon now", "speaker": "Tom", "timestamp": DEC_2}], embed=False
        )
        assert mem.indexer.facts is not None and mem.indexer.facts.settle(60)
        assert sorted(f.value for f in mem.store.facts()) == ["Globex", "Lisbon"]
        assert mem.store.count_awaiting_facts() == 0
