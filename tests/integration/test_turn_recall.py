"""recall_for_turn: query from archived inputs, cross-session modes, roles, expansion."""

from __future__ import annotations

from helpers import HashEmbedder
from remem import Config, Memory, Turn
from remem.recall.messages import build_query
from remem.types import Record

T = 1_800_000_000.0


def mem_with(db_path, **overrides):
    config = Config.load(env={}, overrides={"indexing.mode": "sync", **overrides})
    mem = Memory(db_path, config, embedder=HashEmbedder())
    msgs = [
        ("a1", "s1", "qq", "u1", "user", "my favourite fruit is the mango"),
        ("a2", "s1", "qq", "bot", "assistant", "noted, mango it is"),
        ("a3", "s1", "qq", "u1", "system", "system: session resumed"),
        ("a4", "s1", "qq", "u1", "user", "and I dislike durian"),
        ("b1", "s2", "discord", "u2", "user", "the mango harvest was late this year"),
        ("c1", "s3", "qq", "u1", "user", "mango smoothies every morning"),
    ]
    mem.ingest_many(
        [
            {
                "id": i,
                "session": s,
                "platform": p,
                "speaker_id": sp,
                "role": role,
                "text": t,
                "timestamp": T + n,
            }
            for n, (i, s, p, sp, role, t) in enumerate(msgs)
        ]
    )
    return mem


def ask(mem, session="s1", platform="qq", text="what fruit do I like, mango?"):
    mem.ingest(
        {
            "id": "q",
            "session": session,
            "platform": platform,
            "speaker_id": "u1",
            "role": "user",
            "text": text,
            "timestamp": T + 100,
        }
    )
    return mem.recall_for_turn(
        Turn(session=session, inputs=["q"], user_id="u1", platform=platform, now=T + 101)
    )


def test_isolated_mode_stays_in_the_session_and_never_returns_the_input(db_path):
    with mem_with(db_path) as mem:
        out = ask(mem)
        ids = [h.record.id for h in out.hits]
        assert ids and set(ids) <= {"a1", "a2", "a4"} and "q" not in ids
        assert out.query == "what fruit do I like, mango?"
        assert "a3" not in [r.id for r in out.context]  # system lines are not context
        assert out.block.startswith("<remem-memory")


def test_cross_session_modes(db_path, tmp_path):
    with mem_with(db_path, **{"conversation.cross_session": "all"}) as mem:
        assert "b1" in [h.record.id for h in ask(mem).hits]
    with mem_with(tmp_path / "p.db", **{"conversation.cross_session": "platform"}) as mem:
        ids = [h.record.id for h in ask(mem).hits]
        assert "c1" in ids and "b1" not in ids


def test_others_only_removes_own_replies_as_hits_but_labels_them_in_context(db_path):
    with mem_with(db_path, **{"conversation.recall_roles": "others-only"}) as mem:
        out = ask(mem)
        assert "a2" not in [h.record.id for h in out.hits]
        assert "a2" in [r.id for r in out.context]  # still there as a neighbour
        assert "Assistant (you)" in out.block


def test_no_archived_input_means_no_recall(db_path):
    with mem_with(db_path) as mem:
        out = mem.recall_for_turn(Turn(session="s1", inputs=["never-archived"]))
        assert out.hits == [] and out.block == "" and "archived" in out.skipped_reason


def test_query_drops_the_earliest_inputs_past_the_limit():
    recs = [
        Record(id=str(i), kind="message", text=t)
        for i, t in enumerate(["a" * 3000, "b" * 2000, "c" * 1000])
    ]
    q = build_query(recs, 4000)
    assert q == "b" * 2000 + "\n" + "c" * 1000
    assert build_query([Record(id="x", kind="message", text="z" * 5000)], 4000) == "z" * 4000


def test_window_must_be_a_non_negative_integer():
    import pytest

    from remem.errors import ConfigError

    for bad in (-1, "two", 1.5):
        with pytest.raises(ConfigError, match=r"conversation\.window"):
            Config.load(env={}, overrides={"conversation.window": bad})


def test_layered_modes_narrowest_layer_wins_and_broken_means_isolated():
    from remem.ingest.modes import narrow, resolve_mode

    layers = {
        "platform:qq": "all",
        "group:g1": "platform",
        "session:s9": "user",
        "group:bad": "everyone",
    }
    assert resolve_mode(layers, "isolated", session="s1", platform="qq") == ("all", "platform:qq")
    assert resolve_mode(layers, "isolated", session="s1", group="g1", platform="qq") == (
        "platform",
        "group:g1",
    )
    assert resolve_mode(layers, "isolated", session="s9", group="g1")[0] == "user"
    mode, source = resolve_mode(layers, "all", session="s1", group="bad", platform="qq")
    assert mode == "isolated" and "invalid" in source  # never the wider platform layer
    assert resolve_mode({}, "user", session="s1") == ("user", "default")
    assert narrow("user", "isolated") == "isolated"
    assert narrow("isolated", "all") == "isolated"  # a request can only narrow
    assert narrow("platform", "magic") == "isolated"


def test_turn_settings_and_requested_mode(db_path):
    with mem_with(db_path, **{"conversation.cross_session": "all"}) as mem:
        mem.ingest(
            {
                "id": "q",
                "session": "s1",
                "platform": "qq",
                "speaker_id": "u1",
                "role": "user",
                "text": "mango?",
                "timestamp": T + 100,
            }
        )
        narrowed = mem.recall_for_turn(
            Turn(session="s1", inputs=["q"], platform="qq", requested_mode="isolated")
        )
        assert narrowed.mode == "isolated"
        assert {h.record.session for h in narrowed.hits} <= {"s1"}
        broken = mem.recall_for_turn(
            Turn(session="s1", inputs=["q"], platform="qq", settings={"session:s1": "wide open"})
        )
        assert broken.mode == "isolated" and "invalid" in broken.mode_source
        wide = mem.recall_for_turn(Turn(session="s1", inputs=["q"], platform="qq"))
        assert wide.mode == "all" and "b1" in [h.record.id for h in wide.hits]


def test_session_origin_and_roots(db_path):
    import pytest

    from remem.errors import ValidationError

    with mem_with(db_path) as mem:
        assert mem.session_info("s1") is None
        mem.set_session("child", parent="root")
        mem.set_session("grandchild", parent="child")
        assert mem.session_info("grandchild")["platform"] is None  # the root's is unknown
        mem.set_session("root", origin_platform="qq")  # later facts reach every descendant
        assert mem.session_info("grandchild")["platform"] == "qq"
        mem.set_session("child", origin_platform="discord")  # the root's still decides
        assert mem.session_info("grandchild")["platform"] == "qq"
        mem.set_session("root", parent="grandchild")  # a cycle stops where it repeats
        assert mem.session_info("root")["platform"] in {"qq", "discord"}
        for bad in ({"origin_platform": ""}, {"parent": 5}, {}):
            with pytest.raises(ValidationError):
                mem.set_session("s1", **bad)
