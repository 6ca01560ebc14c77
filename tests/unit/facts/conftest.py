"""Memories over each backend for the facts tests: in memory and a real SQLite file (the
PostgreSQL backend is held to the same behaviour by the store conformance suite)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from helpers import HashEmbedder
from remem import Config, Memory
from remem.store.memory import InMemoryStore

BACKENDS = [pytest.param("memory", id="memory"), pytest.param("sqlite", id="sqlite")]

MakeMemory = Callable[..., Memory]


def open_memory(backend: str, folder: Path, config: Config, embedder: object) -> Memory:
    if backend == "memory":
        return Memory(store=InMemoryStore(), config=config, embedder=embedder)  # type: ignore[arg-type]
    return Memory(folder / "facts.db", config, embedder=embedder)  # type: ignore[arg-type]


@pytest.fixture(params=BACKENDS)
def make_memory(request, tmp_path) -> Iterator[MakeMemory]:
    """Memory(**overrides) over the parametrised backend, with the hash embedder and
    synchronous indexing unless the overrides say otherwise; all closed afterwards."""
    opened: list[Memory] = []

    def make(**overrides: object) -> Memory:
        settings = {"indexing.mode": "sync", **overrides}
        config = Config.load(env={}, overrides=settings)
        folder = tmp_path / f"m{len(opened)}"
        folder.mkdir()
        mem = open_memory(request.param, folder, config, HashEmbedder())
        opened.append(mem)
        return mem

    yield make
    for mem in opened:
        mem.close()
