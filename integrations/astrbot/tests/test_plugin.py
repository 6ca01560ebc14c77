"""The plugin inside a real AstrBot: messages enter through the stub platform, run through
AstrBot's event bus and pipeline (waking, the plugin's hooks, the agent runner, the tool
executor) to the stub model, and the tests look at what the model was sent and what remem
stored. The tests share one AstrBot (and one remem database); each uses its own group."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from stubs import SCRIPT, StubPlatform

pytestmark = pytest.mark.asyncio(loop_scope="module")

TOOLS = {"memory_recall", "memory_store", "memory_forget", "conversation_recall"}


async def wait_for(condition: Callable[[], bool], what: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def platform(astrbot: Any) -> StubPlatform:
    return next(p for p in astrbot.platform_manager.platform_insts if isinstance(p, StubPlatform))


def memory(astrbot: Any) -> Any:
    """The plugin's own remem ``Memory`` (embedded mode), as AstrBot's plugin manager made it."""
    star = next(
        s
        for s in astrbot.plugin_manager.context.get_all_stars()
        if s.name == "astrbot_plugin_remem"
    )
    return star.star_cls.backend.mem


async def turn(astrbot: Any, text: str, **who: Any) -> str:
    """One message in, the bot's answer out (waits until the platform has sent it)."""
    plat = platform(astrbot)
    before = len(plat.outbox)
    plat.say(text, **who)
    await wait_for(lambda: len(plat.outbox) > before, f"the reply to {text!r}")
    return plat.outbox[-1]


def system_of(request: dict[str, Any]) -> str:
    return next(m["content"] for m in request["contexts"] if m["role"] == "system")


async def test_three_turn_group_chat_recalls_the_first_turn(astrbot: Any) -> None:
    SCRIPT.requests.clear()
    SCRIPT.replies[:] = ["Noted, Ann.", "Sunny all day.", "You are allergic to peanuts."]
    await turn(
        astrbot, "I'm allergic to peanuts, remember that.", group="g1", user="ann", name="Ann"
    )
    await turn(astrbot, "What's the weather tomorrow?", group="g1", user="bob", name="Bob")
    await turn(astrbot, "What did I say about peanuts?", group="g1", user="ann", name="Ann")

    first, second, third = SCRIPT.requests
    assert "remem-memory" not in system_of(first) and "relevant-memories" not in system_of(first)
    # Bob may not read Ann's memories: his request carries none of them
    assert "peanuts" not in system_of(second)
    # remem's block is a system part of its own in the third request, in its untrusted wrapper
    block = system_of(third).split('<relevant-memories type="untrusted-data">', 1)[1]
    assert "allergic to peanuts" in block.split("</relevant-memories>")[0]
    # the first turn is already in the request as history: recall does not repeat it
    said_block = system_of(third).partition('<remem-memory type="untrusted-data">')[2]
    assert "allergic to peanuts, remember that" not in said_block.split("</remem-memory>")[0]
    # the user's own words reach the model unchanged
    assert third["contexts"][-1] == {"role": "user", "content": "What did I say about peanuts?"}
    assert set(third["tools"]) >= TOOLS

    mem = memory(astrbot)
    session = "stubqq:GroupMessage:g1"
    said = mem.list({"kind": "message", "session": session}, limit=20)
    assert sorted((r.role, r.speaker_id, r.scope) for r in said) == sorted(
        [("user", "stubqq:ann", "user:stubqq:ann")] * 2
        + [("user", "stubqq:bob", "user:stubqq:bob")]
        + [("assistant", None, s) for s in ("user:stubqq:ann",) * 2 + ("user:stubqq:bob",)]
    )
    assert {r.group_id for r in said} == {"g1"} and {r.platform for r in said} == {
        "remem_stub_platform"
    }
    facts = mem.list({"kind": "memory", "scope": "user:stubqq:ann"}, limit=20)
    assert any("allergic to peanuts" in r.text for r in facts), [r.text for r in facts]
    assert not mem.list({"kind": "memory", "scope": "user:stubqq:bob"}, limit=20)


async def test_after_new_conversation_the_archived_chat_comes_back(astrbot: Any) -> None:
    SCRIPT.requests.clear()
    SCRIPT.replies[:] = ["Porto is lovely.", "Mia lives in Porto."]
    await turn(astrbot, "My sister Mia moved to Porto last spring.", group="g5", user="fay")
    await turn(astrbot, "/new", group="g5", user="fay")  # AstrBot's own: empty history
    await turn(astrbot, "Where does my sister live now?", group="g5", user="fay")
    last = SCRIPT.requests[-1]
    assert [m["role"] for m in last["contexts"]] == ["system", "user"]  # no history left
    block = system_of(last).split('<remem-memory type="untrusted-data">', 1)[1]
    assert "My sister Mia moved to Porto last spring." in block.split("</remem-memory>")[0]


async def test_a_sender_without_id_is_archived_under_the_session_scope(astrbot: Any) -> None:
    SCRIPT.replies[:] = ["Hello, Cara.", "Noted."]
    # a known user first, so a fallback to "the last user seen in this group" would show
    await turn(astrbot, "Hi, I'm Cara.", group="g2", user="cara", name="Cara")
    await turn(astrbot, "I'm allergic to shellfish, remember that.", group="g2", user=None)

    mem = memory(astrbot)
    session = "stubqq:GroupMessage:g2"
    said = mem.list({"kind": "message", "session": session}, limit=20)
    anonymous = [r for r in said if "shellfish" in r.text or r.text == "Noted."]
    assert len(anonymous) == 2
    assert {r.scope for r in anonymous} == {f"session:{session}"}
    assert {r.speaker_id for r in anonymous} == {None}
    facts = [r for r in mem.list({"kind": "memory"}, limit=50) if "shellfish" in r.text]
    assert facts and {r.scope for r in facts} == {f"session:{session}"}
    assert not any("shellfish" in r.text for r in mem.list({"scope": "user:stubqq:cara"}))


async def test_the_model_stores_a_memory_through_astrbots_tool_api(astrbot: Any) -> None:
    SCRIPT.requests.clear()
    SCRIPT.replies[:] = [
        {
            "tool": "memory_store",
            "args": {"text": "Dan's birthday is on May 3", "category": "fact"},
        },
        "Saved.",
    ]
    reply = await turn(astrbot, "My birthday is May 3, keep it.", group="g3", user="dan")
    assert reply == "Saved."
    result = SCRIPT.requests[-1]["contexts"][-1]  # the tool's answer, sent back to the model
    assert result["role"] == "tool" and '"stored"' in result["content"]
    facts = memory(astrbot).list({"kind": "memory", "scope": "user:stubqq:dan"}, limit=20)
    assert "Dan's birthday is on May 3" in [r.text for r in facts]


async def test_mem_commands_list_and_forget_the_users_own_memories(astrbot: Any) -> None:
    mem = memory(astrbot)
    stored = mem.add("Eve plays the cello", scope="user:stubqq:eve", category="fact")
    listed = await turn(astrbot, "/mem list", group="g4", user="eve")
    assert "Eve plays the cello" in listed
    assert "peanuts" not in listed  # Ann's memories are not Eve's
    answer = await turn(astrbot, f"/mem forget {stored.id}", group="g4", user="eve")
    assert stored.id in answer
    assert "Eve plays the cello" not in await turn(astrbot, "/mem list", group="g4", user="eve")


async def test_new_stores_the_session_summary_as_a_memory_of_the_session(astrbot: Any) -> None:
    SCRIPT.replies[:] = ["Nice, Gus.", "Done."]
    await turn(astrbot, "I'm training for the Lisbon marathon in April.", group="g6", user="gus")
    mem = memory(astrbot)
    session = "stubqq:GroupMessage:g6"

    def summaries() -> list[Any]:
        found = mem.list({"kind": "memory", "scope": "user:stubqq:gus"}, limit=50)
        return [r for r in found if r.text.startswith(f"Summary of session {session}")]

    assert summaries() == []
    await turn(astrbot, "/new", group="g6", user="gus")  # AstrBot's own conversation reset
    # the summary is stored after AstrBot has sent its answer to /new
    await wait_for(lambda: len(summaries()) == 1, "the session summary")
    (summary,) = summaries()
    assert "Lisbon marathon" in summary.text
    assert summary.metadata["kind"] == "session-summary"
    # an ordinary message after the reset stores no other summary
    await turn(astrbot, "Thanks.", group="g6", user="gus")
    assert len(summaries()) == 1
