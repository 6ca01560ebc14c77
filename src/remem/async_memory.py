"""``AsyncMemory``: the ``Memory`` API for asyncio code, each call in a worker thread.

Each public ``Memory`` method is bound here once, by name, through ``_in_thread``: the
coroutine takes the method's own parameters (``ParamSpec``, so a type checker sees the full
signature), carries its docstring and returns what it returns. ``Memory.tools`` has no twin:
use ``call_tool``, which runs one tool call in a worker thread.
``tests/architecture/test_async_memory.py`` checks that every public method is bound.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from datetime import tzinfo
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from remem.config import Config
from remem.embed.base import Embedder
from remem.engine import Memory
from remem.store.base import Store

P = ParamSpec("P")
R = TypeVar("R")


def _in_thread(
    method: Callable[Concatenate[Memory, P], R],
) -> Callable[Concatenate[AsyncMemory, P], Coroutine[Any, Any, R]]:
    """A coroutine method of ``AsyncMemory`` that runs ``method`` on its ``Memory`` in a
    worker thread, with the same parameters, return type, name and docstring."""

    async def twin(self: AsyncMemory, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(method, self._sync, *args, **kwargs)

    functools.update_wrapper(twin, method)
    twin.__qualname__ = f"AsyncMemory.{method.__name__}"
    return twin


class AsyncMemory:
    """The same API for asyncio code: every method runs the ``Memory`` method of the same
    name in a worker thread, so a slow embedding never blocks the event loop."""

    # Memory's own parameters, written out: a constructor assigned from a typed wrapper
    # (as the methods below are) makes mypy read the whole class as Any
    def __init__(
        self,
        path: str | Path | None = None,
        config: Config | None = None,
        *,
        embedder: Embedder | None = None,
        store: Store | None = None,
    ) -> None:
        self._sync = Memory(path, config, embedder=embedder, store=store)

    @property
    def sync(self) -> Memory:
        """The ``Memory`` underneath (for code that is not asynchronous)."""
        return self._sync

    @property
    def path(self) -> Path | None:
        """The database file (None for a store that has none)."""
        return self._sync.path

    @property
    def zone(self) -> tzinfo:
        """``calendar.timezone``: the clock times without a UTC offset are read on."""
        return self._sync.zone

    async def call_tool(
        self, agent: str, name: str, arguments: dict[str, Any] | None = None, **kw: Any
    ) -> dict[str, Any]:
        """Call one memory tool as ``agent`` (see ``Memory.tools``)."""

        def run() -> dict[str, Any]:
            return self._sync.tools(agent, **kw).call(name, arguments)

        return await asyncio.to_thread(run)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # writing, embedding and models
    close = _in_thread(Memory.close)
    get_embedder = _in_thread(Memory.get_embedder)
    ingest = _in_thread(Memory.ingest)
    add = _in_thread(Memory.add)
    ingest_many = _in_thread(Memory.ingest_many)
    wait_indexed = _in_thread(Memory.wait_indexed)
    embed_records = _in_thread(Memory.embed_records)
    embed_pending = _in_thread(Memory.embed_pending)
    switch_model = _in_thread(Memory.switch_model)
    missing_vectors = _in_thread(Memory.missing_vectors)
    neutral_vectors = _in_thread(Memory.neutral_vectors)
    clear_vectors = _in_thread(Memory.clear_vectors)
    # records, sessions and curated-memory versions
    rewrite = _in_thread(Memory.rewrite)
    set_session = _in_thread(Memory.set_session)
    session_info = _in_thread(Memory.session_info)
    rollback = _in_thread(Memory.rollback)
    history = _in_thread(Memory.history)
    undo = _in_thread(Memory.undo)
    delete = _in_thread(Memory.delete)
    delete_where = _in_thread(Memory.delete_where)
    delete_all = _in_thread(Memory.delete_all)
    count = _in_thread(Memory.count)
    ids_with_prefix = _in_thread(Memory.ids_with_prefix)
    get = _in_thread(Memory.get)
    stats = _in_thread(Memory.stats)
    # searching, facts and access
    search = _in_thread(Memory.search)
    facts = _in_thread(Memory.facts)
    wait_facts = _in_thread(Memory.wait_facts)
    rebuild_facts = _in_thread(Memory.rebuild_facts)
    correct_fact = _in_thread(Memory.correct_fact)
    scope_access = _in_thread(Memory.scope_access)
    # around an LLM turn
    capture_after_turn = _in_thread(Memory.capture_after_turn)
    recall_memories = _in_thread(Memory.recall_memories)
    session_reset = _in_thread(Memory.session_reset)
    recall_for_turn = _in_thread(Memory.recall_for_turn)
    conversation_recall = _in_thread(Memory.conversation_recall)
    # last: a class attribute named ``list`` hides the builtin from what follows it
    list = _in_thread(Memory.list)
