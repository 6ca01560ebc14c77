"""What the whole-store operations (``doctor``, ``transfer``, ``lancedb_import``) ask of the
facade.

They are composed from ``Memory`` (the engine layer) but receive a ``MemoryPort``, the small
surface they use, so they can be driven by any object that provides it. The features below
the engine (recall, capture, tools, ...) never see it: ``Memory`` hands each of them the
parts it works with. The port names no feature class: the search pipeline appears only as
the one call the doctor makes of it (``VectorIndexes``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from remem.config import Config
from remem.embed.base import Embedder
from remem.facts.service import RebuildSummary
from remem.index.select import SearchIndex
from remem.ingest.indexing import Progress
from remem.ingest.write_path import OnTakenId
from remem.schemas import RecordIn
from remem.store.base import Store
from remem.text.tokenize import Tokenizer
from remem.types import Record


class VectorIndexes(Protocol):
    """The search pipeline's vector index for a model (the doctor checks it)."""

    def index_for(self, embedder: Embedder) -> SearchIndex: ...


class MemoryPort(Protocol):
    config: Config
    store: Store
    tokenizer: Tokenizer

    @property
    def searcher(self) -> VectorIndexes: ...

    def get(self, record_id: str) -> Record | None: ...
    def ingest_many(
        self,
        items: Iterable[dict[str, Any] | RecordIn],
        *,
        embed: bool = True,
        wait: bool | None = None,
        on_conflict: OnTakenId = "idempotent",
        progress: Progress | None = None,
    ) -> list[Record]: ...
    def rebuild_facts(
        self, scopes: Sequence[str] | None = None, *, progress: Progress | None = None
    ) -> RebuildSummary: ...
    def wait_facts(self, timeout: float | None = None) -> bool: ...
    def get_embedder(self) -> Embedder | None: ...
    def embed_records(
        self, records: Sequence[Record], *, progress: Progress | None = None
    ) -> tuple[int, int]: ...
    def embed_pending(
        self,
        *,
        batch_size: int | None = None,
        progress: Progress | None = None,
        force: bool = False,
    ) -> dict[str, int]: ...
