"""Fuzz the agent tools: any tool name, any arguments; the only failure is a ToolError and
every result is plain JSON."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.inputs import FUZZ, field_values, hostile_text, json_values, maybe_fields
from helpers import HashEmbedder
from remem import Config, Memory
from remem.tools import TOOLS, ToolError

ARGUMENTS = maybe_fields(
    {
        "query": field_values("Bob likes tea", "where does Bob live", "peanuts"),
        "text": field_values("Bob is allergic to peanuts", "I moved to Berlin", "api_key=sk-abc"),
        "memory_id": field_values("m1", "m2", "nope"),
        "limit": field_values(1, 5, 20, 100),
        "offset": field_values(0, 3),
        "importance": field_values(0, 0.5, 1),
        "category": field_values("fact", "preference", "other"),
        "scope": field_values("agent:bot", "global", "agent:other", "user:u1"),
    }
)


@pytest.fixture(scope="module")
def tools(fast_dir):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    path = fast_dir / "tools.db"
    with Memory(path, config, embedder=HashEmbedder()) as mem:
        mem.add("Bob likes tea", id="m1", scope="agent:bot", category="preference")
        mem.add("Bob lives in Berlin", id="m2", scope="agent:bot")
        mem.add("Carol's secret plan", id="m3", scope="agent:other")
        yield mem.tools("bot", session="s1", user="u1")


@FUZZ
@given(
    name=st.one_of(st.sampled_from(sorted(TOOLS)), hostile_text, json_values),
    arguments=st.one_of(ARGUMENTS, json_values),
)
def test_tools_fail_only_with_tool_errors(tools, name, arguments):
    try:
        result = tools.call(name, arguments)
    except ToolError as exc:
        assert str(exc) and "\n" not in str(exc), str(exc)  # one sentence for the model
        return
    json.dumps(result, allow_nan=False)
