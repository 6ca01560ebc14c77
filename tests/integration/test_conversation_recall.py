"""conversation_recall: the archived chat on the model's request, only ever narrowing."""

from __future__ import annotations

import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.recall.render import TAG
from remem.tools import ToolError, tool_specs

T = 1_800_000_000.0
MESSAGES = [  # id, session, platform, speaker, role, text
    ("a1", "s1", "qq", "u1", "user", "we talked about the glacier trip"),
    ("a2", "s1", "qq", "bot", "assistant", "yes, the glacier trip in May"),
    ("a3", "s1", "qq", "u1", "user", "pack warm socks"),
    ("a4", "s1", "qq", "u1", "user", "and a thermos of tea"),
    ("b1", "s2", "qq", "u1", "user", "the glacier photos are ready"),
    ("c1", "s3", "discord", "u1", "user", "glacier ice is blue"),
]


def make(db_path, **overrides) -> Memory:
    config = Config.load(env={}, overrides={"indexing.mode": "sync", **overrides})
    mem = Memory(db_path, config, embedder=HashEmbedder())
    mem.ingest_many(
        [
            {
                "id": i,
                "session": s,
                "platform": p,
                "speaker_id": sp,
                "speaker": sp,
                "role": role,
                "text": t,
                "timestamp": T + n,
            }
            for n, (i, s, p, sp, role, t) in enumerate(MESSAGES)
        ]
    )
    return mem


def recall(mem: Memory, session: str = "s1", **args) -> dict:
    return mem.tools("bot", session=session, user="u1").call(
        "conversation_recall", {"query": "glacier", **args}
    )


def sessions(out: dict) -> set[str]:
    return {m["session"] for m in out["matches"]}


def test_isolated_by_default_and_a_wider_scope_falls_back(db_path):
    with make(db_path) as mem:
        out = recall(mem)
        assert sessions(out) == {"s1"} and out["scope"] == "session"
        wider = recall(mem, scope="all")  # the session is isolated: asking wider cannot widen
        assert sessions(wider) == {"s1"} and wider["scope"] == "session"


def test_scope_narrows_the_configured_mode(db_path):
    with make(db_path, **{"conversation.cross_session": "all"}) as mem:
        assert sessions(recall(mem)) == {"s1", "s2", "s3"}
        platform = recall(mem, scope="platform")
        assert sessions(platform) == {"s1", "s2"} and platform["scope"] == "platform"
        assert sessions(recall(mem, scope="session")) == {"s1"}


def test_per_session_settings_decide_what_the_tool_sees(db_path):
    overrides = {
        "conversation.cross_session": "all",
        "conversation.modes": {"platform:qq": "platform"},
    }
    with make(db_path, **overrides) as mem:
        out = recall(mem, scope="all")
        assert sessions(out) == {"s1", "s2"} and out["scope"] == "platform"
        assert sessions(recall(mem, session="s3", scope="all")) == {"s1", "s2", "s3"}


def test_context_window_narrows_and_the_block_is_automatic_recalls(db_path):
    with make(db_path, **{"conversation.window": 1}) as mem:
        out = recall(mem, query="warm socks", limit=1)
        assert [m["id"] for m in out["matches"]] == ["a3"]
        block = out["block"]
        assert block.startswith(f'<{TAG} type="untrusted-data">') and block.endswith(f"</{TAG}>")
        assert "[qq/Assistant (you) @" in block  # the bot's own words, labelled as its own
        assert "thermos" in block and out["contextWindow"] == 1
        wide = recall(mem, query="warm socks", limit=1, contextWindow=5)
        assert wide["contextWindow"] == 1 and wide["block"] == block  # never more than configured
        bare = recall(mem, query="warm socks", limit=1, contextWindow=0)
        assert "thermos" not in bare["block"] and "pack warm socks" in bare["block"]


def test_scopes_of_the_agent_still_apply(db_path):
    with make(db_path, **{"conversation.cross_session": "all"}) as mem:
        mem.ingest(
            {
                "id": "x1",
                "session": "s1",
                "platform": "qq",
                "role": "user",
                "text": "glacier secret of another agent",
                "scope": "agent:other",
                "timestamp": T + 50,
            }
        )
        out = recall(mem, limit=20)
        assert "x1" not in {m["id"] for m in out["matches"]}
        assert "another agent" not in out["block"]


def test_refusals_are_tool_errors(db_path):
    with make(db_path) as mem:
        tools = mem.tools("bot", user="u1")  # no session
        with pytest.raises(ToolError, match="no current session"):
            tools.call("conversation_recall", {"query": "glacier"})
        bound = mem.tools("bot", session="s1")
        with pytest.raises(ToolError, match="scope"):
            bound.call("conversation_recall", {"query": "glacier", "scope": "galaxy"})
        with pytest.raises(ToolError, match="contextWindow"):
            bound.call("conversation_recall", {"query": "glacier", "contextWindow": -1})


def test_the_schema_names_the_arguments_as_aalis_does():
    spec = next(s for s in tool_specs() if s["name"] == "conversation_recall")
    props = spec["input_schema"]["properties"]
    assert {"query", "scope", "contextWindow", "limit"} <= set(props)
    assert props["scope"]["anyOf"][0]["enum"] == ["session", "user", "platform", "all"]


def test_archived_text_with_its_speaker_prefix_is_embedded_with_one_prefix(db_path):
    embedder = HashEmbedder()
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(db_path, config, embedder=embedder) as mem:
        mem.ingest(
            {"session": "s", "role": "user", "speaker": "alice", "text": "alice: I moved to Lisbon"}
        )
        mem.ingest({"session": "s", "role": "user", "speaker": "bob", "text": "me too"})
    assert "alice: I moved to Lisbon" in embedder.seen and "bob: me too" in embedder.seen
    assert not any("alice: alice:" in text for text in embedder.seen)


def test_user_scope_means_the_users_own_conversations(db_path):
    """Issue 44 item 9: with cross-session mode ``all``, u1 asking ``scope: "user"`` got Bob's
    private ``dm:u2`` line. ``user`` is the sessions u1 took part in (and the current one),
    whatever wider mode is configured; ``crossSession: false`` keeps to this session."""
    with make(db_path, **{"conversation.cross_session": "all"}) as mem:
        mem.ingest_many(
            [
                {"id": "d1", "session": "dm:u2", "platform": "qq", "speaker_id": "u2",
                 "role": "user", "text": "my glacier password hint is bluebird", "timestamp": T + 20},
                {"id": "g1", "session": "group:9", "platform": "qq", "speaker_id": "u2",
                 "role": "user", "text": "glacier meetup on friday", "timestamp": T + 21},
                {"id": "g2", "session": "group:9", "platform": "qq", "speaker_id": "u1",
                 "role": "user", "text": "I'll bring the glacier map", "timestamp": T + 22},
            ]
        )  # fmt: skip
        assert "dm:u2" in sessions(recall(mem, limit=20))  # mode all: everything
        mine = recall(mem, scope="user", limit=20)
        assert sessions(mine) == {"s1", "s2", "s3", "group:9"}, sessions(mine)
        assert "bluebird" not in mine["block"] and mine["scope"] == "user"
        # a user with no other conversation: only the current session
        alone = mem.tools("bot", session="s1", user="u9").call(
            "conversation_recall", {"query": "glacier", "scope": "user", "limit": 20}
        )
        assert sessions(alone) == {"s1"}
        # crossSession: false narrows to this session whatever scope asks
        assert sessions(recall(mem, crossSession=False, limit=20)) == {"s1"}
        assert sessions(recall(mem, scope="all", crossSession=False, limit=20)) == {"s1"}
        assert "dm:u2" in sessions(recall(mem, crossSession=True, limit=20))  # never widens...
    with make(db_path.with_name("iso.db")) as mem:  # ... past the configured isolated mode
        assert sessions(recall(mem, crossSession=True, limit=20)) == {"s1"}


def test_the_tool_schema_has_the_three_narrowing_knobs():
    spec = next(s for s in tool_specs() if s["name"] == "conversation_recall")
    assert {"scope", "contextWindow", "crossSession"} <= set(spec["input_schema"]["properties"])
