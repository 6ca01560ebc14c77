"""``AsyncMemory``: the ``Memory`` API for asyncio code, each call in a worker thread."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from remem.config import Config
from remem.embed.base import Embedder
from remem.engine import Memory
from remem.store.base import Store

# Memory's public methods that AsyncMemory offers as coroutines (one list, not copies).
ASYNC_METHODS: tuple[str, ...] = (
    "ingest",
    "ingest_many",
    "add",
    "search",
    "get",
    "list",
    "delete",
    "delete_where",
    "stats",
    "rewrite",
    "rollback",
    "set_session",
    "session_info",
    "embed_pending",
    "embed_records",
    "wait_indexed",
    "clear_vectors",
    "capture_after_turn",
    "recall_memories",
    "recall_for_turn",
    "session_reset",
    "history",
    "undo",
    "facts",
    "rebuild_facts",
    "correct_fact",
)


class AsyncMemory:
    """The same API for asyncio code: every call of ``ASYNC_METHODS`` runs in a worker
    thread, so a slow embedding never blocks the event loop."""

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
        return self._sync

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        if name not in ASYNC_METHODS:
            raise AttributeError(f"AsyncMemory has no method {name!r}")
        method = getattr(self._sync, name)

        @functools.wraps(method)
        async def call(*args: Any, **kwargs: Any) -> Any:
            return await asyncio.to_thread(method, *args, **kwargs)

        return call

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *ASYNC_METHODS})

    async def call_tool(
        self, agent: str, name: str, arguments: dict[str, Any] | None = None, **kw: Any
    ) -> dict[str, Any]:
        """Call one memory tool as ``agent`` (see ``Memory.tools``)."""

        def run() -> dict[str, Any]:
            return self._sync.tools(agent, **kw).call(name, arguments)

        return await asyncio.to_thread(run)

    async def close(self) -> None:
        await asyncio.to_thread(self._sync.close)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
