"""A scripted multi-turn conversation with the real bundled model: capture, recall, an update
that supersedes, history, undo and forget, in English and Chinese (the README walks the same
script)."""

from __future__ import annotations

import pytest

from remem import Config, Memory, Turn

T = 1_800_000_000.0
AGENT = "remy"


@pytest.fixture
def mem(tmp_path, e5):
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(tmp_path / "m.db", config, embedder=e5) as m:
        yield m


def turn(mem, n, user_text, reply="Noted.", *, user="u1", session="s1"):
    mem.ingest(
        {
            "id": f"u{n}",
            "session": session,
            "role": "user",
            "speaker_id": user,
            "text": user_text,
            "timestamp": T + n * 60,
        }
    )
    mem.ingest(
        {
            "id": f"a{n}",
            "session": session,
            "role": "assistant",
            "text": reply,
            "timestamp": T + n * 60 + 1,
        }
    )
    return mem.capture_after_turn(
        Turn(
            agent=AGENT,
            inputs=[f"u{n}", f"a{n}"],
            session=session,
            user_id=user,
            now=T + n * 60 + 2,
        )
    )


def test_english_script(mem):
    first = turn(mem, 1, "Hi! I live in Paris. I prefer green tea over coffee.")
    assert sorted((r.text, r.category) for r in first.stored) == [
        ("I live in Paris.", "fact"),
        ("I prefer green tea over coffee.", "preference"),
    ]
    assert any(r.text == "Hi!" and "greeting" in r.reason for r in first.rejected)
    assert all(r.scope == f"agent:{AGENT}" and r.source_ids == ["u1"] for r in first.stored)
    paris = next(r for r in first.stored if "Paris" in r.text)

    # the assistant's words are not captured by default
    assert all(r.role == "user" for r in first.stored)

    noise = turn(mem, 2, "ok thanks")
    assert noise.stored == []

    recall = mem.recall_memories(
        "What should I drink this afternoon?", agent=AGENT, session="s1", now=T + 200, user="u1"
    )
    assert "green tea" in recall.block and recall.block.startswith("<relevant-memories")

    update = turn(mem, 3, "Big news: I moved to Berlin, I live there now.")
    berlin = update.stored[0]
    assert paris.id in update.superseded
    where = mem.recall_memories(
        "Where do I live now?", agent=AGENT, session="s1", now=T + 300, user="u1"
    )
    assert "Berlin" in where.block and "Paris" not in where.block

    chain = mem.history(berlin.id)
    assert [r.id for r in chain] == [paris.id, berlin.id]
    assert chain[0].valid_to is not None and chain[1].valid_to is None

    restored = mem.undo(berlin.id)
    assert [r.id for r in restored] == [paris.id] and restored[0].valid_to is None
    back = mem.recall_memories(
        "Where do I live now?", agent=AGENT, session="s1", now=T + 400, user="u1"
    )
    assert "Paris" in back.block and "Berlin" not in back.block
    assert [r.id for r in mem.history(paris.id)] == [paris.id, berlin.id]  # nothing lost

    tools = mem.tools(AGENT, session="s1", user="u1")
    gone = tools.call("memory_forget", {"memory_id": paris.id})
    assert gone["forgotten"][0]["id"] == paris.id and mem.get(paris.id) is None

    dup = turn(mem, 4, "i prefer GREEN tea over coffee!!")
    assert dup.stored == [] and dup.duplicates[0]["how"] == "normalised"


def test_chinese_script_with_traditional(mem):
    first = turn(mem, 1, "我住在上海。我最喜欢的水果是芒果。", reply="好的，记住了。")
    assert len(first.stored) == 2
    fruit = next(r for r in first.stored if "芒果" in r.text)
    assert fruit.category == "preference" and fruit.metadata["subject"] == "favourite:水果"

    recall = mem.recall_memories(
        "我喜欢吃什么水果？", agent=AGENT, session="s1", now=T + 100, user="u1"
    )
    assert "芒果" in recall.block

    update = turn(mem, 2, "我搬到北京了。", reply="好的。")
    assert update.superseded and "北京" in update.stored[0].text
    where = mem.recall_memories(
        "我现在住在哪里？", agent=AGENT, session="s1", now=T + 200, user="u1"
    )
    assert "北京" in where.block and "上海" not in where.block
    beijing = update.stored[0]
    assert [r.text for r in mem.history(beijing.id)] == ["我住在上海。", "我搬到北京了。"]
    assert [r.text for r in mem.undo(beijing.id)] == ["我住在上海。"]
    back = mem.recall_memories(
        "我现在住在哪里？", agent=AGENT, session="s1", now=T + 250, user="u1"
    )
    assert "上海" in back.block and "北京" not in back.block

    chat = turn(mem, 9, "好的，谢谢！", reply="不客气。")
    assert chat.stored == [] and "greeting" in chat.rejected[0].reason

    # Traditional Chinese is the same memory as Simplified: a duplicate, not a second one
    same = turn(mem, 3, "我最喜歡的水果是芒果。", reply="好的。")
    assert same.stored == [] and same.duplicates[0]["existing_id"] == fruit.id

    forget = turn(mem, 4, "删除记忆：我住在北京", reply="好的。")
    assert forget.stored == []  # an instruction about memory is never stored
    assert any("instruction" in r.reason for r in forget.rejected)

    secret = turn(mem, 5, "记住，我的密码是 hunter2abc", reply="好的。")
    assert secret.stored == [] and any("secret" in r.reason for r in secret.rejected)
