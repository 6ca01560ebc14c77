"""The memory tools: schemas, every tool, errors that come back as ToolError."""

from __future__ import annotations

import json

import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.tools import ToolError, tool_specs


@pytest.fixture
def mem(db_path):
    # the hash embedder puts unrelated texts at cosine ~0, level with the neutral baseline:
    # a positive margin makes "no shared word" mean "not relevant" here
    config = Config.load(
        env={},
        overrides={
            "indexing.mode": "sync",
            "autorecall.min_margin": 0.05,
            "scopes.agents": {
                "librarian": ["global", "agent:librarian", "project:books", "user:{user}"]
            },
        },
    )
    with Memory(db_path, config, embedder=HashEmbedder()) as m:
        yield m


def test_specs_are_json_schemas_with_descriptions():
    specs = {s["name"]: s for s in tool_specs()}
    assert set(specs) == {
        "memory_recall",
        "memory_facts",
        "memory_store",
        "memory_update",
        "memory_forget",
        "memory_list",
        "memory_stats",
        "conversation_recall",
    }
    for spec in specs.values():
        assert len(spec["description"]) > 40
        schema = spec["input_schema"]
        assert schema["type"] == "object" and schema.get("additionalProperties") is False
        json.dumps(schema)
    assert specs["memory_recall"]["input_schema"]["required"] == ["query"]
    cats = specs["memory_store"]["input_schema"]["properties"]["category"]["enum"]
    assert cats == ["preference", "fact", "decision", "entity", "other"]


def test_store_recall_list_stats_forget(mem):
    tools = mem.tools("librarian", user="ann")
    stored = tools.call(
        "memory_store",
        {"text": "Ann prefers paperbacks", "category": "preference", "importance": 0.8},
    )
    assert stored["stored"] and stored["memory"]["scope"] == "agent:librarian"
    tools.call(
        "memory_store", {"text": "The book club meets on Tuesdays", "scope": "project:books"}
    )
    tools.call("memory_store", {"text": "Ann reads sci-fi paperbacks", "scope": "user:ann"})
    again = tools.call("memory_store", {"text": "ann prefers PAPERBACKS!"})
    assert again == {"stored": False, "duplicate_of": stored["memory"], "how": "normalised"}

    found = tools.call("memory_recall", {"query": "which paperbacks does Ann like", "limit": 5})
    texts = [m["text"] for m in found["memories"]]
    assert "Ann prefers paperbacks" in texts and "The book club meets on Tuesdays" not in texts
    narrowed = tools.call("memory_recall", {"query": "paperbacks", "scope": "user:ann"})
    assert [m["scope"] for m in narrowed["memories"]] == ["user:ann"]

    listed = tools.call("memory_list", {"limit": 2})
    assert listed["total"] == 3 and len(listed["memories"]) == 2
    assert tools.call("memory_list", {"category": "preference"})["total"] == 1
    stats = tools.call("memory_stats", {})
    assert stats["total"] == 3 and stats["by_scope"]["project:books"] == 1

    ambiguous = tools.call("memory_forget", {"query": "paperbacks"})
    assert ambiguous["forgotten"] == [] and len(ambiguous["candidates"]) == 2
    single = tools.call("memory_forget", {"query": "book club Tuesdays"})
    assert [m["text"] for m in single["forgotten"]] == ["The book club meets on Tuesdays"]
    by_id = tools.call("memory_forget", {"memory_id": stored["memory"]["id"]})
    assert by_id["forgotten"][0]["id"] == stored["memory"]["id"]
    assert tools.call("memory_stats", {})["total"] == 1


def test_errors_are_tool_errors_and_change_nothing(mem):
    tools = mem.tools("librarian", user="ann")
    bad = [
        ("memory_teleport", {}, "unknown tool"),
        ("memory_recall", {}, "query"),
        ("memory_recall", {"query": "x", "limit": 500}, "limit"),
        ("memory_recall", {"query": "x", "scope": "agent:other"}, "may not use scope"),
        ("memory_recall", {"query": "x", "scope": "nonsense"}, "scope"),
        ("memory_store", {"text": "x", "scope": "user:bob"}, "may not use scope"),
        ("memory_store", {"text": "my api key is sk-abcdefghijklmnop12345"}, "secret"),
        ("memory_store", {"text": "x", "category": "gossip"}, "category"),
        ("memory_store", {"text": "x", "importance": 3}, "importance"),
        ("memory_forget", {}, "exactly one"),
        ("memory_forget", {"memory_id": "a", "query": "b"}, "exactly one"),
        ("memory_forget", {"memory_id": "does-not-exist"}, "no memory"),
        ("memory_list", {"limit": 0}, "limit"),
        ("memory_list", {"surprise": 1}, "surprise"),
    ]
    for name, args, words in bad:
        with pytest.raises(ToolError, match=words):
            tools.call(name, args)
    assert mem.stats()["records"] == 0


def test_memory_update_corrects_in_place_and_keeps_the_history(mem):
    tools = mem.tools("librarian", user="ann")
    old = tools.call("memory_store", {"text": "Ann lives in Porto", "importance": 0.6})["memory"]
    out = tools.call("memory_update", {"memory_id": old["id"], "text": "Ann lives in Lisbon"})
    new = out["memory"]
    assert out["replaced"] == old["id"] and new["id"] != old["id"]
    assert (new["text"], new["scope"], new["importance"]) == (
        "Ann lives in Lisbon",
        old["scope"],
        0.6,
    )
    found = tools.call("memory_recall", {"query": "where does Ann live"})["memories"]
    assert [m["text"] for m in found] == ["Ann lives in Lisbon"]
    assert [r.text for r in mem.history(new["id"])] == ["Ann lives in Porto", "Ann lives in Lisbon"]
    only_category = tools.call("memory_update", {"memory_id": new["id"], "category": "entity"})
    assert only_category["memory"]["text"] == "Ann lives in Lisbon"
    assert only_category["memory"]["category"] == "entity"
    for args, words in [
        ({"memory_id": new["id"]}, "at least one"),  # nothing to change
        ({"memory_id": old["id"], "text": "x"}, "replaced"),  # an old version
        ({"memory_id": new["id"], "text": "my password is hunter2hunter2"}, "secret"),
    ]:
        with pytest.raises(ToolError, match=words):
            tools.call("memory_update", args)
    with pytest.raises(ToolError, match="no memory"):  # another agent's: not found, not changed
        mem.tools("intruder").call("memory_update", {"memory_id": new["id"], "text": "x"})


def test_a_memory_of_another_agent_cannot_be_forgotten_or_seen(mem):
    mine = mem.tools("librarian", user="ann").call("memory_store", {"text": "Ann likes maps"})
    other = mem.tools("intruder")
    with pytest.raises(ToolError, match="no memory"):
        other.call("memory_forget", {"memory_id": mine["memory"]["id"]})
    assert other.call("memory_recall", {"query": "Ann likes maps"})["memories"] == []
    assert other.call("memory_list", {})["total"] == 0
    assert mem.get(mine["memory"]["id"]) is not None


def test_chinese_memories_through_the_tools(mem):
    tools = mem.tools("librarian", user="ann")
    stored = tools.call("memory_store", {"text": "安喜欢平装书", "category": "preference"})
    assert stored["stored"]
    assert tools.call("memory_store", {"text": "安喜歡平裝書"})["how"] == "normalised"
    found = tools.call("memory_recall", {"query": "安喜欢什么书"})
    assert [m["id"] for m in found["memories"]] == [stored["memory"]["id"]]
    assert (
        tools.call("memory_forget", {"query": "平装书"})["forgotten"][0]["text"] == "安喜欢平装书"
    )
    with pytest.raises(ToolError, match="secret"):
        tools.call("memory_store", {"text": "我的密码是 abc12345"})
