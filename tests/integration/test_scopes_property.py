"""Property: no path reads or writes outside what the agent is allowed.

Hypothesis generates access lists, modes, memories in every kind of scope, and calls through
every path (auto-recall, auto-capture, each tool) as listed agents, unknown agents and agents
with no id, with and without a session, user and requested scope. A user's first-person
memory ("I live in Zebra City") is theirs: "where do I live" asked for anyone else, or for no
user, never receives it (``check_whose``). The allowed set is computed
here independently of ``remem.access`` from the rules in the README. ``conversation_recall``
also reads archived messages of several sessions and platforms under a generated
cross-session mode: it never returns (as a match or as context) a message of a session that
mode, narrowed by the requested scope and ``crossSession``, does not allow; ``scope: "user"``
keeps to the sessions the caller's user spoke in (and the current one), whatever the mode.
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import HashEmbedder
from remem import Config, Memory, Turn
from remem.access import ScopeError
from remem.errors import RememError
from remem.memories.subjects import owner_of
from remem.tools import ToolError

SCOPES = [
    "global",
    "agent:a1",
    "agent:a2",
    "agent:stranger",
    "user:u1",
    "user:u2",
    "project:p1",
    "session:s1",
    "session:s2",
    "custom:c1",
]
LIST_ITEMS = [*SCOPES, "user:{user}", "session:{session}"]
AGENTS = ["a1", "a2", "stranger", ""]
PLATFORMS = {"s1": "qq", "s2": "qq", "s3": "discord"}  # chat sessions and their platforms
BREADTH = ["isolated", "platform", "user", "all"]
CONVERSATION_SCOPES = {"session": "isolated", "platform": "platform", "user": "user", "all": "all"}


def visible_sessions(
    configured: str,
    requested: str | None,
    session: str,
    spoke_in: set[str],
    cross_session: bool | None = None,
) -> set[str]:
    """The README's cross-session rules: the narrower of the configured and requested mode;
    ``user`` asked for: only the sessions the user spoke in (``spoke_in``) and this one;
    ``crossSession`` false: this session only."""
    if cross_session is False:
        return {session}
    if requested == "user":
        return visible_sessions(configured, None, session, spoke_in) & (spoke_in | {session})
    mode = configured
    if requested is not None and BREADTH.index(CONVERSATION_SCOPES[requested]) < BREADTH.index(
        configured
    ):
        mode = CONVERSATION_SCOPES[requested]
    if mode == "isolated":
        return {session}
    if mode == "platform":
        return {s for s, p in PLATFORMS.items() if p == PLATFORMS.get(session)} | {session}
    return set(PLATFORMS) | {session}


def allowed(agent, lists, allow_unknown, mode, session, user) -> set[str] | None:
    """The README's rules; None = the call must be refused."""
    if not agent:
        return None
    if agent in lists:
        items = lists[agent]
    elif allow_unknown:
        items = ["global", f"agent:{agent}"]
    else:
        return None
    base = set()
    for item in items:
        if ("{user}" in item and user is None) or ("{session}" in item and session is None):
            continue
        base.add(item.replace("{user}", user or "").replace("{session}", session or ""))
    if mode == "global":
        return base or None
    if session is None:
        return None
    return {f"session:{session}"} if mode == "session" else base | {f"session:{session}"}


calls = st.fixed_dictionaries(
    {
        "agent": st.sampled_from(AGENTS),
        "session": st.sampled_from([None, "s1", "s2", "s3"]),
        "user": st.sampled_from([None, "u1", "u2"]),
        "requested": st.sampled_from([None, *SCOPES]),
        "victim": st.integers(0, 30),
        "conversation_scope": st.sampled_from([None, *CONVERSATION_SCOPES]),
        "context_window": st.sampled_from([None, 0, 1, 3]),
        "cross_session": st.sampled_from([None, True, False]),
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lists=st.dictionaries(
        st.sampled_from(["a1", "a2"]),
        st.lists(st.sampled_from(LIST_ITEMS), min_size=1, max_size=4),
        max_size=2,
    ),
    allow_unknown=st.booleans(),
    mode=st.sampled_from(["global", "session", "session+global"]),
    memories=st.lists(st.sampled_from(SCOPES), min_size=3, max_size=12),
    chat=st.lists(
        st.tuples(
            st.sampled_from(sorted(PLATFORMS)),
            st.sampled_from(SCOPES),
            st.sampled_from(["u1", "u2"]),  # who spoke
        ),
        min_size=2,
        max_size=10,
    ),
    cross_session=st.sampled_from(BREADTH),
    actions=st.lists(calls, min_size=1, max_size=4),
)
def test_no_path_leaves_the_allowed_scopes(
    lists, allow_unknown, mode, memories, chat, cross_session, actions
):
    overrides = {
        "indexing.mode": "sync",
        "scopes.agents": lists,
        "scopes.mode": mode,
        "scopes.allow_unknown_agents": allow_unknown,
        "autorecall.min_margin": -1.0,
        "capture.scope": "agent:{agent}",
        # unique texts must never be near-duplicates of each other: the hash embedder puts
        # "zebra stored by a1 <uuid>" texts close together; only identical vectors dedup here
        "capture.dedup_similarity": 1.0,
        "conversation.cross_session": cross_session,
        "conversation.window": 2,
    }
    with tempfile.TemporaryDirectory() as tmp:
        config = Config.load(env={}, overrides=overrides)
        with Memory(Path(tmp) / "p.db", config, embedder=HashEmbedder()) as mem:
            ids = [mem.add(f"zebra fact number {i}", scope=s).id for i, s in enumerate(memories)]
            messages = archive(mem, chat)
            for a in actions:
                ok = allowed(a["agent"], lists, allow_unknown, mode, a["session"], a["user"])
                check_every_path(mem, a, ok, ids)
                if ok is not None:
                    check_conversation_recall(mem, a, ok, cross_session, messages)


def archive(mem, chat: list[tuple[str, str, str]]) -> dict[str, tuple[str, str, str]]:
    """Archive one message per (session, scope, speaker); returns text -> that tuple."""
    texts: dict[str, tuple[str, str, str]] = {}
    for i, (session, scope, speaker) in enumerate(chat):
        text = f"zebra chat line {i} marker{uuid.uuid4().hex[:8]}"
        mem.ingest(
            {
                "session": session,
                "platform": PLATFORMS[session],
                "scope": scope,
                "role": "user",
                "speaker": f"p{i % 2}",
                "speaker_id": speaker,
                "text": text,
                "timestamp": 1e9 + i,
            }
        )
        texts[text] = (session, scope, speaker)
    return texts


def check_conversation_recall(mem, a, ok: set[str], cross_session: str, messages) -> None:
    tools = mem.tools(a["agent"], session=a["session"], user=a["user"])
    args = {"query": "zebra chat line", "limit": 20}
    if a["conversation_scope"] is not None:
        args["scope"] = a["conversation_scope"]
    if a["context_window"] is not None:
        args["contextWindow"] = a["context_window"]
    if a["cross_session"] is not None:
        args["crossSession"] = a["cross_session"]
    if a["session"] is None:
        with pytest.raises(ToolError):
            tools.call("conversation_recall", args)
        return
    out = tools.call("conversation_recall", args)
    # every message is archived whatever its scope: a user took part where they spoke
    spoke_in = {s for s, _scope, who in messages.values() if who == a["user"]}
    sessions = visible_sessions(
        cross_session, a["conversation_scope"], a["session"], spoke_in, a["cross_session"]
    )
    for match in out["matches"]:
        assert match["session"] in sessions
        assert messages[match["text"]][1] in ok
    shown = [t for t in messages if t in out["block"]]  # hits and their context
    assert all(messages[t][0] in sessions and messages[t][1] in ok for t in shown)
    assert out["contextWindow"] == min(
        2, a["context_window"] if a["context_window"] is not None else 2
    )


def scopes_of(memories: list[dict]) -> set[str]:
    return {m["scope"] for m in memories}


def check_every_path(mem, a, ok: set[str] | None, ids: list[str]) -> None:
    agent, session, user, requested = a["agent"], a["session"], a["user"], a["requested"]
    before = {r.id: (r.scope, r.valid_to) for r in mem.list(limit=None)}
    if ok is None:
        with pytest.raises((ScopeError, RememError)):
            mem.tools(agent, session=session, user=user)
        with pytest.raises((ScopeError, RememError)):
            mem.recall_memories("zebra facts, remember?", agent=agent, session=session, user=user)
        with pytest.raises((ScopeError, RememError)):
            mem.capture_after_turn(
                Turn(
                    agent=agent,
                    session=session,
                    user_id=user,
                    inputs=[{"role": "user", "text": "I live in Zebraland."}],
                )
            )
        assert {r.id: (r.scope, r.valid_to) for r in mem.list(limit=None)} == before
        return

    recalled = mem.recall_memories(
        "zebra facts, remember?", agent=agent, session=session, user=user
    )
    assert {h.record.scope for h in recalled.memories} <= ok

    tools = mem.tools(agent, session=session, user=user)
    narrowing_ok = requested is None or requested in ok
    for name, args in (
        ("memory_recall", {"query": "zebra fact", "limit": 20}),
        ("memory_list", {"limit": 100}),
        ("memory_stats", {}),
    ):
        if requested is not None:
            args = {**args, "scope": requested}
        if not narrowing_ok:
            with pytest.raises(ToolError):
                tools.call(name, args)
            continue
        out = tools.call(name, args)
        seen = set(out["by_scope"]) if name == "memory_stats" else scopes_of(out["memories"])
        assert seen <= ok and (requested is None or seen <= {requested})

    victim = mem.get(ids[a["victim"] % len(ids)])
    if victim is not None:
        if victim.scope in ok and narrowing_ok and (requested is None or victim.scope == requested):
            args = {"memory_id": victim.id, **({"scope": requested} if requested else {})}
            tools.call("memory_forget", args)
            assert mem.get(victim.id) is None
        else:
            with pytest.raises(ToolError):
                tools.call(
                    "memory_forget",
                    {"memory_id": victim.id, **({"scope": requested} if requested else {})},
                )
            assert mem.get(victim.id) is not None

    count = mem.stats()["records"]
    text = f"zebra stored by {agent} {uuid.uuid4().hex}"
    if narrowing_ok:
        out = tools.call(
            "memory_store", {"text": text, **({"scope": requested} if requested else {})}
        )
        # two uuids can share the hash embedder's one bucket of 64 (identical vectors: a
        # duplicate); the memory it names must be one this caller may see as well
        assert (out["memory"] if out["stored"] else out["duplicate_of"])["scope"] in ok
    else:
        with pytest.raises(ToolError):
            tools.call("memory_store", {"text": text, "scope": requested})
        assert mem.stats()["records"] == count

    captured = mem.capture_after_turn(
        Turn(
            agent=agent,
            session=session,
            user_id=user,
            inputs=[{"role": "user", "text": f"I live in Zebra City {uuid.uuid4().hex}."}],
        )
    )
    assert all(r.scope in ok for r in captured.stored)
    check_whose(mem, a, tools)


def check_whose(mem, a, tools) -> None:
    """A first-person memory is its speaker's: "where do I live" from anyone else, or from a
    caller with no user, never receives another user's "I live in ..." (issue 48)."""
    mine = f"speaker:{a['user']}" if a["user"] else None
    other = "u2" if a["user"] == "u1" else "u1"  # someone else tells the same agent first
    mem.capture_after_turn(
        Turn(
            agent=a["agent"],
            session=a["session"],
            user_id=other,
            inputs=[{"role": "user", "text": f"I live in Zebra City {uuid.uuid4().hex}."}],
        )
    )

    def others(records) -> list:
        return [r for r in records if (owner := owner_of(r)) is not None and owner[0] != mine]

    asked = "Where do I live? Zebra City"
    recalled = mem.recall_memories(asked, agent=a["agent"], session=a["session"], user=a["user"])
    assert not others([h.record for h in recalled.memories])
    found = tools.call("memory_recall", {"query": asked, "limit": 20})["memories"]
    assert not others([mem.get(m["id"]) for m in found])


FACT_BACKENDS = [pytest.param("memory", id="memory"), pytest.param("sqlite", id="sqlite")]


@pytest.mark.parametrize("backend", FACT_BACKENDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lists=st.dictionaries(
        st.sampled_from(["a1", "a2"]),
        st.lists(st.sampled_from(LIST_ITEMS), min_size=1, max_size=4),
        max_size=2,
    ),
    allow_unknown=st.booleans(),
    mode=st.sampled_from(["global", "session", "session+global"]),
    said_in=st.lists(st.sampled_from(SCOPES), min_size=1, max_size=8),
    actions=st.lists(calls, min_size=1, max_size=4),
)
def test_facts_never_leave_the_allowed_scopes(
    backend, lists, allow_unknown, mode, said_in, actions
):
    """Facts are read exactly as records are: the facts of every scope the caller may read
    (narrowed by a requested scope), none of any other, through ``Memory.facts`` and the
    ``memory_facts`` tool alike; a correction goes only where the caller may write."""
    from remem.store.memory import InMemoryStore

    overrides = {
        "indexing.mode": "sync",
        "scopes.agents": lists,
        "scopes.mode": mode,
        "scopes.allow_unknown_agents": allow_unknown,
    }
    with tempfile.TemporaryDirectory() as tmp:
        config = Config.load(env={}, overrides=overrides)
        store = {"store": InMemoryStore()} if backend == "memory" else {}
        path = None if backend == "memory" else Path(tmp) / "f.db"
        with Memory(path, config, embedder=HashEmbedder(), **store) as mem:
            for i, scope in enumerate(said_in):
                text = f"I live in Zebra{i}"
                mem.ingest({"text": text, "speaker": "Zed", "scope": scope, "timestamp": 1e9 + i})
            holding = set(said_in)  # the scopes holding a fact of Zed (corrections add some)
            for a in actions:
                ok = allowed(a["agent"], lists, allow_unknown, mode, a["session"], a["user"])
                check_fact_reads(mem, a, ok, holding)


def check_fact_reads(mem, a, ok: set[str] | None, said_in: set[str]) -> None:
    who = {"agent": a["agent"], "session": a["session"], "user": a["user"]}
    requested = a["requested"]
    if ok is None:
        with pytest.raises((ScopeError, RememError)):
            mem.facts("Zed", history=True, **who)
        with pytest.raises((ScopeError, RememError)):
            mem.correct_fact("Zed", "lives_in", "Zebraville", **who)
        return
    tools = mem.tools(a["agent"], session=a["session"], user=a["user"])
    narrowed = {"scope": requested} if requested else {}
    if requested is not None and requested not in ok:
        with pytest.raises((ScopeError, RememError)):
            mem.facts("Zed", history=True, scope=requested, **who)
        with pytest.raises(ToolError):
            tools.call("memory_facts", {"subject": "Zed", "history": True, **narrowed})
        return
    expected = {s for s in said_in if s in ok and (requested is None or s == requested)}
    read = mem.facts("Zed", history=True, scope=requested, **who)
    assert {f.scope for f in read} == expected
    told = tools.call("memory_facts", {"subject": "Zed", "history": True, **narrowed})
    assert {f["scope"] for f in told["facts"]} == expected
    done = mem.correct_fact("Zed", "lives_in", f"Zebraville{uuid.uuid4().hex[:6]}", **who)
    assert done.memory is not None and done.memory.scope in ok
    assert {f.scope for f in done.facts} <= ok
    said_in.add(done.memory.scope)
