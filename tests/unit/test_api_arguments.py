"""Wrong value types at the Python API's edge: each one found by tests/fuzz, each now a
ValidationError naming the parameter (it was a TypeError, sqlite3 error, ValueError or
AssertionError from deep inside)."""

from __future__ import annotations

import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.errors import ValidationError
from remem.schemas import parse_time, validate_record
from remem.tools import ToolError
from remem.types import Turn

LONE = "\ud800"


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    path = tmp_path_factory.mktemp("api-arguments") / "m.db"
    with Memory(path, config, embedder=HashEmbedder()) as m:
        m.ingest({"id": "r1", "text": "Bob moved to Berlin", "session": "s1"})
        yield m


CASES = [
    ("session_info", ([1],), {}, "session"),
    ("session_info", (" ",), {}, "session"),
    ("set_session", (None,), {"parent": "s1"}, "session"),
    ("set_session", ("s1",), {"origin_platform": "qq\n"}, "origin_platform"),
    ("rollback", ({"a": 1}, 1_800_000_000), {}, "session"),
    ("embed_pending", (), {"batch_size": "8"}, "batch_size"),
    ("embed_pending", (), {"batch_size": 0}, "batch_size"),
    ("embed_pending", (), {"force": "yes"}, "force"),
    ("wait_indexed", ("soon",), {}, "timeout"),
    ("wait_indexed", (10**400,), {}, "timeout"),
    ("list", (), {"limit": 2**64}, "limit"),
    ("list", (), {"offset": 2**64}, "offset"),
    ("ids_with_prefix", ("r",), {"limit": 2**63}, "limit"),
    ("embed_pending", (), {"batch_size": 2**64}, "batch_size"),
    ("ingest", ({"text": "x", "metadata": {"a": float("nan")}},), {}, "metadata"),
    ("ingest", ({"text": "x", "metadata": {"a": float("inf")}},), {}, "metadata"),
    ("add", ("x",), {"metadata": {"when": {1, 2}}}, "metadata"),
    ("missing_vectors", (LONE,), {}, "model_id"),
    ("ids_with_prefix", ("r",), {"limit": [1]}, "limit"),
    ("search", ("Berlin",), {"disable": [{"a": 1}]}, "disable"),
    ("search", ("Berlin",), {"disable": "rerank"}, "disable"),
    ("search", ("Berlin",), {"channels": [None]}, "channels"),
    ("search", ("Berlin",), {"channels": []}, "channels"),
    ("search", ("Berlin",), {"asker": 5}, "asker"),
    ("search", ("Berlin",), {"same_user_boost": "yes"}, "same_user_boost"),
    ("search", ("Berlin",), {"explicit": 1}, "explicit"),
    ("search", ("Berlin",), {"now": 10**400}, "now"),
    ("ingest", ({"text": "hi"},), {"embed": "no"}, "embed"),
    ("add", ("tea",), {"wait": 1}, "wait"),
    ("ingest_many", (None,), {}, "items"),
    ("ingest_many", (177,), {}, "items"),
    ("ingest_many", ({"text": "hi"},), {}, "items"),
    ("ingest_many", ([{"text": "hi"}],), {"on_conflict": "merge"}, "on_conflict"),
    ("recall_memories", (["tea"],), {"agent": "bot"}, "query"),
    ("recall_memories", ("tea" + LONE,), {"agent": "bot"}, "query"),
    ("recall_memories", ("tea",), {"agent": "bot", "now": "noon"}, "now"),
    ("recall_memories", ("tea",), {"agent": "bot", "preview": "no"}, "preview"),
    ("rewrite", (5, 1_800_000_000, "new"), {}, "session"),
    ("rewrite", ("s1", 1_800_000_000, "new " + LONE), {}, "new_text"),
    ("history", (5,), {}, "memory_id"),
    ("undo", (None,), {}, "memory_id"),
    ("session_reset", ([],), {"agent": "bot"}, "session"),
    ("session_reset", ("s1",), {"agent": "bot", "now": "x"}, "now"),
    ("recall_for_turn", ("s1",), {}, "turn"),
    ("recall_for_turn", (Turn(session="s1", inputs=["r1"], agent=5.0),), {}, "agent"),
    ("recall_for_turn", (Turn(session="s1", inputs=False),), {}, "inputs"),
    ("recall_for_turn", (Turn(session="s1", inputs=["r1"], user_id=[1]),), {}, "user_id"),
    ("recall_for_turn", (Turn(session="s1", inputs=[LONE]),), {}, "inputs"),
    ("recall_for_turn", (Turn(session="s1", current_ids="r1"),), {}, "current_ids"),
    ("recall_for_turn", (Turn(session="s1", settings=[]),), {}, "settings"),
    ("recall_for_turn", (Turn(session="s1", now="noon"),), {}, "now"),
    ("recall_for_turn", (Turn(session="s1", now=10**400),), {}, "now"),
    ("capture_after_turn", (Turn(agent="bot", now=1e20),), {}, "now"),
    ("capture_after_turn", (Turn(agent="bot", scopes="global"),), {}, "scopes"),
    ("capture_after_turn", (Turn(agent="bot", requested_mode=3),), {}, "requested_mode"),
]


@pytest.mark.parametrize(
    "method, args, kwargs, field", CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES]
)
def test_a_wrong_value_is_a_validation_error_naming_the_parameter(mem, method, args, kwargs, field):
    with pytest.raises(ValidationError, match=f"^invalid {field}:"):
        getattr(mem, method)(*args, **kwargs)


def test_the_checked_calls_still_work_with_right_values(mem):
    assert mem.session_info("nowhere") is None
    assert mem.embed_pending(batch_size=8, force=False)["failed"] == 0
    assert mem.wait_indexed(0.5) is True
    assert [
        h.record.id for h in mem.search("Berlin", disable=["rerank"], channels=["lexical"]).hits
    ] == ["r1"]
    assert mem.ids_with_prefix("r", limit=5) == ["r1"]
    assert mem.recall_for_turn(Turn(session="s1", inputs=["r1"], now=1_800_000_000)).query


def test_an_int_beyond_float_range_is_not_a_time():
    with pytest.raises(ValueError, match="out of range"):
        parse_time(10**400)


def test_a_tool_name_that_is_not_a_string_is_a_tool_error(mem):
    tools = mem.tools("bot")
    for name in ([{"k": 1}], None, 5):
        with pytest.raises(ToolError, match="unknown tool"):
            tools.call(name, {})  # type: ignore[arg-type]


def test_a_field_name_from_input_keeps_the_error_on_one_line(mem):
    with pytest.raises(ValidationError) as refused:
        validate_record({"text": "x", "bad\nkey\u202e": 1})
    assert "invalid bad\\nkey\\u202e:" in str(refused.value)
    with pytest.raises(ToolError) as tool_refused:
        mem.tools("bot").call("memory_recall", {"query": "x", "a\nb": 1})
    assert "\n" not in str(tool_refused.value) and "a\\nb" in str(tool_refused.value)
    with pytest.raises(ToolError) as unknown:
        mem.tools("bot").call("memory_\nrecall", {})
    assert "\n" not in str(unknown.value)
