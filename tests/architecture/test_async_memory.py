"""``AsyncMemory`` is written out (issue 42): every public ``Memory`` method has a coroutine
twin with the same parameters, return type and docstring, and the module is exactly what
``python -m docgen.async_memory`` writes."""

from __future__ import annotations

import asyncio
import inspect
import typing

import pytest
from docgen.async_memory import NOT_MIRRORED, TARGET, public_methods, render

from remem import AsyncMemory, Memory
from remem.config import Config
from remem.store.memory import InMemoryStore

MIRRORED = [name for name in public_methods() if name not in NOT_MIRRORED]


def test_every_public_memory_method_is_found():
    assert {"search", "ingest", "add", "facts", "recall_for_turn", "tools"} <= set(public_methods())


@pytest.mark.parametrize("name", MIRRORED)
def test_each_public_method_has_a_coroutine_twin_with_the_same_parameters(name):
    sync, twin = getattr(Memory, name), inspect.getattr_static(AsyncMemory, name, None)
    assert inspect.iscoroutinefunction(twin), f"AsyncMemory.{name} is not written out"
    assert list(inspect.signature(twin).parameters.values()) == list(
        inspect.signature(sync).parameters.values()
    )
    assert typing.get_type_hints(twin) == typing.get_type_hints(sync)
    assert twin.__doc__ == sync.__doc__


def test_what_has_no_twin_says_what_to_use_instead():
    for name, instead in NOT_MIRRORED.items():
        assert name in public_methods()
        assert hasattr(AsyncMemory, instead.split()[0])


def test_the_module_is_what_the_generator_writes():
    assert TARGET.read_text(encoding="utf-8") == render(), "run: python -m docgen.async_memory"


def test_no_public_memory_method_returns_any():
    untyped = [
        name
        for name in public_methods()
        if typing.get_type_hints(getattr(Memory, name)).get("return", typing.Any) is typing.Any
    ]
    assert untyped == []


def test_a_twin_runs_its_method_and_passes_every_argument():
    config = Config.load(env={}, overrides={"indexing.mode": "sync", "embed.provider": "none"})

    async def run() -> None:
        async with AsyncMemory(config=config, store=InMemoryStore()) as mem:
            await mem.ingest({"text": "the glacier moved", "session": "s1"}, wait=True)
            stored = await mem.add("I like green tea", scope="global", category="preference")
            assert stored.scope == "global" and stored.category == "preference"
            listed = await mem.list({"kind": "message"}, limit=5)
            assert [r.text for r in listed] == ["the glacier moved"]
            hits = (await mem.search("glacier", k=3, channels=("lexical",))).hits
            assert [h.record.text for h in hits] == ["the glacier moved"]
            assert mem.path is None and mem.zone == config.calendar.zone()

    asyncio.run(run())
