"""Fuzz the Python API: every public Memory method with documented parameters (by name, as
documented) holding any value at all. The only failure allowed is a RememError subclass, and
a refused write writes nothing.

What counts as the edge: a value of the wrong type or an out-of-range value given to a
documented parameter is bad input and gets a ValidationError naming it. A wrong call
signature (an unknown keyword, a missing argument) is a programming error that Python itself
reports as a TypeError; this fuzzer never makes one.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.inputs import FUZZ, field_values, json_values, maybe_fields
from helpers import HashEmbedder
from remem import Config, Memory
from remem.errors import RememError
from remem.types import Turn

T0 = 1_800_000_000.0
IDS = ("r1", "r2", "m1", "nope")
SESSIONS = ("s1", "s2")
FILTERS = st.one_of(
    maybe_fields(
        {
            "kind": field_values("message", "memory", ["message"]),
            "scope": field_values("global", "agent:bot", ["agent:bot", "global"]),
            "session": field_values(*SESSIONS),
            "role": field_values("user", "assistant"),
            "since": field_values(T0 - 10, "2026-05-01"),
            "until": field_values(T0 + 10, "2030-01-01T00:00:00Z"),
            "platform": field_values("qq"),
            "category": field_values("fact"),
            "include_superseded": field_values(True, False),
            "ids": field_values(["r1"], "r2"),
        }
    ),
    json_values,
)
RECORD_FIELDS = {
    "id": field_values("r9", "m9"),
    "kind": field_values("message", "memory"),
    "role": field_values("user", "assistant", "system"),
    "scope": field_values("global", "agent:bot"),
    "session": field_values(*SESSIONS),
    "platform": field_values("qq", "telegram"),
    "speaker": field_values("Alice", "老王"),
    "speaker_id": field_values("u1"),
    "mentions": field_values(["u1"]),
    "category": field_values("fact", "preference"),
    "importance": field_values(0.2, 1),
    "timestamp": field_values(T0, "2026-05-01T12:00:00Z"),
    "event_time": field_values(T0),
    "valid_from": field_values(T0),
    "valid_to": field_values(T0 + 100),
    "source_ids": field_values(["r1"]),
    "metadata": field_values({"a": 1}),
    "visible_text": field_values("shown"),
    "message_kind": field_values("chat", "notice"),
    "origin_platform": field_values("qq"),
    "parent_session": field_values("s1"),
}
TEXT = field_values("Bob moved to Berlin", "我们下周三开会", "I like green tea")
RECORD = st.one_of(
    st.builds(lambda text, rest: {"text": text, **rest}, TEXT, maybe_fields(RECORD_FIELDS)),
    json_values,
)
AGENT = field_values("bot", "other")
USER = field_values(None, "u1")
NOW = field_values(None, T0, "2026-05-01T12:00:00Z")
TURN = st.builds(
    Turn,
    session=field_values(None, *SESSIONS),
    inputs=field_values(["r1"], ["r1", "r2"], [{"text": "I like tea", "role": "user"}]),
    agent=field_values(None, "bot"),
    user_id=USER,
    platform=field_values(None, "qq"),
    current_ids=field_values([], ["r2"]),
    now=NOW,
    group_id=field_values(None, "g1"),
    platform_type=field_values(None, "group"),
    settings=field_values({}, {"cross_session": "none"}),
    requested_mode=field_values(None, "none", "same-session"),
    scopes=field_values(None, ["global"]),
)


def call(
    method: str,
    *args: st.SearchStrategy[Any],
    required: dict[str, st.SearchStrategy[Any]] | None = None,
    **kwargs: st.SearchStrategy[Any],
):
    """(method, positional values, keyword values): the required keywords and any subset of
    the optional ones."""
    return st.tuples(
        st.just(method),
        st.tuples(*args),
        st.fixed_dictionaries(required or {}, optional=kwargs),
    )


CALLS = st.one_of(
    call("ingest", RECORD, embed=field_values(True, False), wait=field_values(None, True)),
    call("add", TEXT, **{k: v for k, v in RECORD_FIELDS.items() if k != "kind"}),
    call(
        "ingest_many",
        st.one_of(st.lists(RECORD, max_size=3), json_values),
        on_conflict=field_values("error", "skip"),
    ),
    call(
        "search",
        field_values("Berlin", "where does Bob live", "开会"),
        k=field_values(1, 10),
        filters=FILTERS,
        now=NOW,
        asker=USER,
        same_user_boost=field_values(True, False),
        explicit=field_values(True, False),
        disable=field_values((), ("rerank",)),
        channels=field_values(("lexical",), ("vector", "lexical")),
    ),
    call("get", field_values(*IDS)),
    call("list", filters=FILTERS, limit=field_values(None, 5), offset=field_values(0, 2)),
    call("count", FILTERS),
    call("delete", field_values("nope", ["nope"])),
    call("delete_where", field_values({"ids": ["nope"]}, {"session": "s9"})),
    call("clear_vectors", field_values(None, {"session": "s9"})),
    call("ids_with_prefix", field_values("r", "m"), limit=field_values(5)),
    call("rollback", field_values("s9"), field_values(T0 + 10**6, "2030-01-01")),
    call(
        "set_session",
        field_values(*SESSIONS),
        origin_platform=field_values("qq"),
        parent=field_values("s1"),
    ),
    call("session_info", field_values(*SESSIONS)),
    call(
        "rewrite",
        field_values(*SESSIONS),
        field_values(T0, T0 + 1),
        TEXT,
        visible_text=field_values(None, "shown"),
    ),
    call(
        "recall_memories",
        field_values("tea", "Berlin"),
        required={"agent": AGENT},
        session=field_values(None, "s1"),
        user=USER,
        now=field_values(None, T0),
        preview=field_values(True, False),
    ),
    call("recall_for_turn", TURN),
    call("capture_after_turn", TURN),
    call("session_reset", field_values(*SESSIONS), required={"agent": AGENT}, user=USER, now=NOW),
    call("history", field_values(*IDS)),
    call("undo", field_values(*IDS)),
    call("tools", AGENT, session=field_values(None, "s1"), user=USER),
    call("scope_access", AGENT, session=field_values(None, "s1"), user=USER),
    call("missing_vectors", field_values(None, "test:hash64")),
    call("wait_indexed", field_values(None, 0.1)),
    call("embed_pending", batch_size=field_values(None, 8), force=field_values(False)),
)


WRITES = {"ingest", "add", "ingest_many"}


def seed(mem: Memory) -> None:
    """A few messages and memories so reads, rewrites and undo have something to find."""
    if mem.get("r1") and mem.get("r2") and mem.get("m1"):
        return
    mem.ingest_many(
        [
            {"id": "r1", "text": "Bob moved to Berlin", "session": "s1", "timestamp": T0},
            {"id": "r2", "text": "我们下周三开会", "session": "s2", "timestamp": T0 + 1},
        ],
        on_conflict="skip",
    )
    if mem.get("m1") is None:
        mem.add("I like green tea", id="m1", scope="agent:bot")


@pytest.fixture(scope="module")
def mem(fast_dir):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    path = fast_dir / "api.db"
    with Memory(path, config, embedder=HashEmbedder()) as memory:
        yield memory


@FUZZ
@given(CALLS)
def test_python_api_fails_only_with_remem_errors(mem, generated):
    method, args, kwargs = generated
    seed(mem)
    before = mem.count() if method in WRITES else None
    try:
        getattr(mem, method)(*args, **kwargs)
    except RememError as exc:
        assert str(exc) and "\n" not in str(exc), str(exc)  # one line: the CLI prints it as is
        if before is not None:  # a refused write writes nothing
            assert mem.count() == before, (method, args, kwargs)
