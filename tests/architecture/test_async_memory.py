"""``AsyncMemory`` is spelled out (issue 42): every public ``Memory`` method has a coroutine
twin, bound to that very method, with the same parameters, return type and docstring."""

from __future__ import annotations

import asyncio
import inspect
import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from remem import AsyncMemory, Memory
from remem.config import Config
from remem.store.memory import InMemoryStore

# Public Memory methods without a coroutine twin, and what AsyncMemory offers instead.
NOT_MIRRORED = {
    "tools": "call_tool (a MemoryTools' calls are blocking: AsyncMemory runs each in a thread)",
}


def public_methods() -> list[str]:
    """Memory's public methods, in the order they are written (the facade, then its mixins)."""
    names: list[str] = []
    for cls in Memory.__mro__:
        if cls is object:
            continue
        for name, value in vars(cls).items():
            if not name.startswith("_") and callable(value) and name not in names:
                names.append(name)
    return names


MIRRORED = [name for name in public_methods() if name not in NOT_MIRRORED]


def test_every_public_memory_method_is_found():
    assert {"search", "ingest", "add", "facts", "recall_for_turn", "tools"} <= set(public_methods())


@pytest.mark.parametrize("name", MIRRORED)
def test_each_public_method_has_a_coroutine_twin_with_the_same_parameters(name):
    sync, twin = getattr(Memory, name), inspect.getattr_static(AsyncMemory, name, None)
    assert inspect.iscoroutinefunction(twin), f"AsyncMemory.{name} is not bound"
    # bound to the method of its own name (not, by a slip, to another one)
    assert inspect.unwrap(twin) is sync
    assert list(inspect.signature(twin).parameters.values()) == list(
        inspect.signature(sync).parameters.values()
    )
    assert typing.get_type_hints(twin) == typing.get_type_hints(sync)
    assert twin.__doc__ == sync.__doc__


def test_what_has_no_twin_says_what_to_use_instead():
    for name, instead in NOT_MIRRORED.items():
        assert name in public_methods()
        assert hasattr(AsyncMemory, instead.split()[0])


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


@pytest.mark.slow  # runs mypy over remem (~1 min)
def test_a_type_checker_sees_each_twins_full_signature_and_awaited_result(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from remem import AsyncMemory\n"
        "async def use(mem: AsyncMemory) -> None:\n"
        "    reveal_type(await mem.search('q', k=3))\n"
        "    await mem.search(3)\n"
        "    await mem.list(limit='all')\n",
        encoding="utf-8",
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", str(probe)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(root / "src")},
        timeout=600,
    )
    out = done.stdout
    assert 'Revealed type is "remem.types.SearchResult"' in out, out
    assert 'Argument 1 to "search" of "Memory" has incompatible type "int"' in out or (
        'incompatible type "int"; expected "str"' in out
    ), out
    assert 'incompatible type "str"; expected "int | None"' in out, out
