"""The facts service over a real store: rebuild, the indexing path's update, hand
corrections, edits, undo and deletes, and what a failure leaves behind."""

from __future__ import annotations

import pytest

from remem.errors import StoreError, ValidationError
from remem.facts.model import name_subject
from unit.facts.conftest import MakeMemory

NOV_2 = "2025-11-02T10:00:00+00:00"
NOV_20 = "2025-11-20T10:00:00+00:00"
DEC_8 = "2025-12-08T10:00:00+00:00"


def say(mem, text: str, when: str, speaker: str = "Tom", **fields) -> str:
    msg = {"text": text, "speaker": speaker, "session": "chat", "timestamp": when, **fields}
    return mem.ingest(msg).id


def values(facts) -> list[tuple[str, bool]]:
    """(value, still open) of each fact, oldest first."""
    return [(f.value, f.valid_to is None) for f in facts]


def test_indexing_keeps_the_facts_current(make_memory: MakeMemory):
    mem = make_memory()
    first = say(mem, "I live in Shenzhen now", NOV_2)
    assert values(mem.facts("Tom")) == [("Shenzhen", True)]
    moved = say(mem, "I moved to Shanghai", DEC_8)
    history = mem.facts("Tom", history=True)
    assert values(history) == [("Shenzhen", False), ("Shanghai", True)]
    assert history[0].closed_by == moved and history[0].source_ids == (first,)
    assert history[0].subject == name_subject("Tom")
    assert [f.value for f in mem.facts("tom", at="2025-11-15")] == ["Shenzhen"]
    assert mem.facts("Ann") == [] and mem.facts("Tom", attribute="works_at") == []


def test_async_indexing_updates_after_the_write_returns(make_memory: MakeMemory):
    mem = make_memory(**{"indexing.mode": "async"})
    say(mem, "I live in Shenzhen now", NOV_2)
    assert mem.wait_indexed(timeout=60)
    assert values(mem.facts("Tom")) == [("Shenzhen", True)]


def test_disabled_facts_are_derived_only_by_a_rebuild(make_memory: MakeMemory):
    mem = make_memory(**{"facts.enabled": False})
    say(mem, "I live in Shenzhen now", NOV_2)
    assert mem.facts("Tom") == []
    summary = mem.rebuild_facts()
    assert (summary.records, summary.statements, summary.facts) == (1, 1, 1)
    assert values(mem.facts("Tom")) == [("Shenzhen", True)]


def test_rebuild_writes_the_same_facts_again(make_memory: MakeMemory):
    mem = make_memory()
    say(mem, "I live in Shenzhen now", NOV_2)
    say(mem, "I moved to Shanghai", DEC_8)
    say(mem, "I live in Lisbon", NOV_20, speaker="Ann", scope="custom:other")
    before = mem.facts(history=True)
    summary = mem.rebuild_facts()
    assert summary.scopes == {"custom:other": 1, "global": 2} and summary.removed == 3
    assert mem.facts(history=True) == before


def test_update_refolds_only_the_chains_it_touches(make_memory: MakeMemory):
    mem = make_memory()
    say(mem, "I live in Lisbon", NOV_2, speaker="Ann")
    say(mem, "I live in Shenzhen now", NOV_2)
    ann = mem.facts("Ann")
    say(mem, "I moved to Shanghai", DEC_8)
    assert mem.facts("Ann") == ann  # Ann's chain was not rewritten
    assert values(mem.facts("Tom")) == [("Shanghai", True)]


def test_a_failed_rebuild_leaves_the_old_facts(make_memory: MakeMemory, monkeypatch):
    mem = make_memory()
    say(mem, "I live in Shenzhen now", NOV_2)
    say(mem, "I live in Lisbon", NOV_2, speaker="Ann", scope="custom:other")
    before = mem.facts(history=True)
    mem.store.clear_facts()  # what a rebuild must restore for global, and not touch elsewhere
    mem.store.put_facts(before)
    written = mem.store.put_facts

    def fail_for_global(facts):
        if any(f.scope == "global" for f in facts):
            raise StoreError("disk full")
        return written(facts)

    monkeypatch.setattr(mem.store, "put_facts", fail_for_global)
    with pytest.raises(StoreError):
        mem.rebuild_facts(["global"])
    assert mem.facts(history=True) == before


def test_a_failing_update_never_fails_the_indexing(make_memory: MakeMemory, monkeypatch):
    mem = make_memory()

    def broken(*args, **kwargs):
        raise StoreError("facts table locked")

    monkeypatch.setattr(mem.store, "facts", broken)
    record = mem.ingest({"text": "I live in Shenzhen now", "speaker": "Tom", "timestamp": NOV_2})
    assert mem.get(record.id).index_status == "indexed"
    assert mem.wait_indexed(60)  # the facts are read after the write is acknowledged
    assert mem.stats()["fact_update_errors"] == 1


def test_a_correction_wins_and_undo_refolds(make_memory: MakeMemory):
    mem = make_memory()
    say(mem, "I live in Shenzhen now", NOV_2)
    first = mem.correct_fact("Tom", "lives_in", "Hangzhou", note="he told me in person")
    assert first.memory is not None and first.memory.kind == "memory"
    assert first.memory.metadata["fact_correction"]["note"] == "he told me in person"
    now = mem.facts("Tom")
    assert values(now) == [("Hangzhou", True)] and now[0].origin == "manual"
    assert now[0].confidence == 1.0
    second = mem.correct_fact("Tom", "lives_in", "Beijing")
    assert values(mem.facts("Tom")) == [("Beijing", True)]
    assert [r.id for r in mem.history(second.memory.id)] == [first.memory.id, second.memory.id]
    mem.undo(second.memory.id)
    assert values(mem.facts("Tom")) == [("Hangzhou", True)]
    mem.delete(first.memory.id)  # the first correction replaced nothing: forgetting undoes it
    assert values(mem.facts("Tom")) == [("Shenzhen", True)]


def test_closing_a_fact_by_hand(make_memory: MakeMemory):
    mem = make_memory()
    say(mem, "I live in Shenzhen now", NOV_2)
    done = mem.correct_fact("Tom", "lives_in", close=True)
    assert mem.facts("Tom") == []
    assert values(done.facts) == [("Shenzhen", False)]
    assert done.facts[0].closed_by == done.memory.id
    with pytest.raises(ValidationError, match="attribute"):
        mem.correct_fact("Tom", "lives_at", "Paris")
    with pytest.raises(ValidationError, match="value"):
        mem.correct_fact("Tom", "lives_in")


def test_an_edit_refolds_the_old_and_new_text(make_memory: MakeMemory):
    mem = make_memory()
    kept = mem.add("I live in Porto", speaker_id="ann", scope="user:ann")
    assert values(mem.facts("ann")) == [("Porto", True)]
    mem.memories.edit(
        kept,
        {"text": "I like tea", "scope": "user:ann", "importance": 0.5, "category": "fact"},
        edited_by="test",
    )
    # the edit took "Porto" back (and states a liking instead)
    assert mem.facts("ann", attribute="lives_in", history=True) == []
    assert values(mem.facts("ann", attribute="likes")) == [("tea", True)]
    mem.undo(kept.id)
    assert values(mem.facts("ann")) == [("Porto", True)]


def test_deleting_one_source_keeps_a_fact_another_record_states(make_memory: MakeMemory):
    mem = make_memory()
    first = say(mem, "I live in Shenzhen now", NOV_2)
    again = say(mem, "I live in Shenzhen", NOV_20)
    assert [f.source_ids for f in mem.facts("Tom")] == [(first, again)]
    mem.delete(again)
    assert [f.source_ids for f in mem.facts("Tom")] == [(first,)]
    moved = say(mem, "I moved to Shanghai", DEC_8)
    mem.delete_where({"ids": [moved]})
    assert values(mem.facts("Tom")) == [("Shenzhen", True)]  # reopened by the store


def test_a_rewritten_message_takes_back_what_it_said(make_memory: MakeMemory):
    mem = make_memory()
    say(mem, "I live in Shenzhen now", NOV_2)
    mem.rewrite("chat", NOV_2, "I like Shenzhen a lot")
    assert mem.facts("Tom", attribute="lives_in", history=True) == []


def test_a_rollback_keeps_the_facts_of_the_records_left(make_memory: MakeMemory):
    mem = make_memory()
    first = say(mem, "I live in Shenzhen now", NOV_2)
    say(mem, "I live in Shenzhen", NOV_20)
    say(mem, "I moved to Shanghai", DEC_8)
    assert mem.rollback("chat", "2025-11-10") == 2
    assert [(f.value, f.source_ids, f.valid_to) for f in mem.facts("Tom", history=True)] == [
        ("Shenzhen", (first,), None)
    ]


def test_async_memory_offers_the_fact_methods():
    import asyncio

    from helpers import HashEmbedder
    from remem import AsyncMemory, Config
    from remem.store.memory import InMemoryStore

    async def run() -> None:
        config = Config.load(env={}, overrides={"indexing.mode": "sync"})
        async with AsyncMemory(
            store=InMemoryStore(), config=config, embedder=HashEmbedder()
        ) as mem:
            await mem.ingest(
                {"text": "I live in Shenzhen now", "speaker": "Tom", "timestamp": NOV_2}
            )
            assert [f.value for f in await mem.facts("Tom")] == ["Shenzhen"]
            done = await mem.correct_fact("Tom", "lives_in", "Hangzhou")
            assert done.memory is not None
            assert (await mem.rebuild_facts()).facts == 2

    # on a thread of its own: a browser test earlier in this worker may leave its event
    # loop marked running on the main thread, where asyncio.run refuses to start
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run()).result()
