"""What the features (recall, capture, tools, maintenance) may ask of the engine.

Features receive a ``MemoryPort``, not the ``Memory`` class: the port names the small surface
they use (the store, the configuration, search, the write path and ``memories``, the owner of
curated memories), so they can be tested with any object that provides it and never reach
further up. ``Memory`` satisfies it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np

from remem.config import Config
from remem.conversation.ingest import OnTakenId
from remem.embed.base import Embedder
from remem.facts.service import Progress, RebuildSummary
from remem.memories import CuratedMemories
from remem.recall.injections import InjectionLog
from remem.retrieve.access import AccessRecorder
from remem.retrieve.search import Searcher
from remem.schemas import RecordIn
from remem.store.base import Store
from remem.text.tokenize import Tokenizer
from remem.types import Fact, Filters, Record, SearchResult


class MemoryPort(Protocol):
    config: Config
    store: Store
    tokenizer: Tokenizer
    searcher: Searcher
    access_counts: AccessRecorder
    injections: InjectionLog
    memories: CuratedMemories  # every write of a curated memory goes through it

    def get(self, record_id: str) -> Record | None: ...
    def add(
        self,
        text: str,
        *,
        embed: bool = True,
        wait: bool | None = None,
        dedup: bool = True,
        **fields: Any,
    ) -> Record: ...
    def ingest_many(
        self,
        items: Iterable[dict[str, Any] | RecordIn],
        *,
        embed: bool = True,
        wait: bool | None = None,
        on_conflict: OnTakenId = "idempotent",
        progress: Any = None,
    ) -> list[Record]: ...
    def delete(self, ids: str | Sequence[str]) -> int: ...
    def search(
        self,
        query: str,
        k: int = 10,
        filters: Filters | dict[str, Any] | None = None,
        now: float | str | None = None,
        *,
        asker: str | None = None,
        same_user_boost: bool = False,
        explicit: bool = False,
        disable: tuple[str, ...] | frozenset[str] = (),
        channels: tuple[str, ...] = ("vector", "lexical"),
        query_vector: Any = None,
        timezone: str | None = None,
    ) -> SearchResult: ...
    def facts(
        self,
        subject: str | None = None,
        *,
        at: Any = None,
        attribute: str | None = None,
        history: bool = False,
        scope: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        user: str | None = None,
    ) -> list[Fact]: ...
    def rebuild_facts(
        self, scopes: Sequence[str] | None = None, *, progress: Progress | None = None
    ) -> RebuildSummary: ...
    def get_embedder(self) -> Embedder | None: ...
    def neutral_vectors(self, embedder: Embedder) -> np.ndarray: ...
    def embed_records(
        self, records: Sequence[Record], *, progress: Any = None
    ) -> tuple[int, int]: ...
    def embed_pending(
        self, *, batch_size: int | None = None, progress: Any = None, force: bool = False
    ) -> dict[str, int]: ...
