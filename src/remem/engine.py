"""The facade and composition root: builds the store, indexing, search, recall, capture and
the tools with explicit collaborators, and hands each feature only the parts it works with; no
feature receives ``Memory`` or calls back into it. No retrieval logic of its own.

Write path: validate -> commit (text and lexical index, one transaction: once ``ingest``
returns, the record survives a crash) -> embed -> write the vector. If embedding fails the
record stays ``pending``, found by lexical search, until ``embed_pending`` fills the gap."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import tzinfo
from functools import partial
from pathlib import Path
from typing import Any, TypedDict, cast

import numpy as np

from remem import arguments
from remem.config import Config
from remem.embed.base import Embedder
from remem.engine_facts import FactMethods
from remem.engine_turns import TurnMethods
from remem.errors import RememError, ValidationError
from remem.facts.service import FactService
from remem.index.legacy import KEY as LEGACY_KEY
from remem.index.legacy import NAMESPACE as LEGACY_NAMESPACE
from remem.ingest.facts_fill import FactsFill
from remem.ingest.indexing import Indexer, Progress, active_model, expected_model_id
from remem.ingest.write_path import OnTakenId, RecordWriter
from remem.memories import CuratedMemories
from remem.recall.injections import InjectionLog
from remem.schemas import RecordIn, check_encodable, make_filters, validate_record
from remem.search.access_counts import AccessRecorder
from remem.search.checked import CheckedSearch, SearchRequest
from remem.search.pipeline import Searcher
from remem.store.base import Store
from remem.store.open import open_store
from remem.store.queries import RecordPage
from remem.store.stats import StoreStats
from remem.text.tokenize import Tokenizer
from remem.types import Filters, Record, SearchResult, SessionInfo, StoredMemory

log = logging.getLogger("remem")

__all__ = ["Memory", "make_filters"]


class FactLLMStats(TypedDict):
    """This process's calls to the ``facts.llm`` chat model."""

    calls: int
    errors: int
    dropped: int


class _FactLLMCalls(TypedDict, total=False):
    # a base of its own (not NotRequired): ``from __future__ import annotations`` hides
    # NotRequired from the runtime's ``__required_keys__``
    fact_llm: FactLLMStats  # only with ``facts.llm``


class FactStats(_FactLLMCalls):
    """This process's fact updates that failed (logged), and its ``facts.llm`` calls."""

    fact_update_errors: int


class EmbedderStats(TypedDict):
    """The configured embedding model, and the one ``remem reembed`` last switched the
    store to (None: never switched)."""

    provider: str
    model: str
    store_active_model: str | None


class MemoryStats(StoreStats, FactStats):
    """``Memory.stats()``: the store's counts, then this process's indexing queue, fact
    updates, background backlog and embedding model (JSON in this key order)."""

    queue: dict[str, int]
    backlog: dict[str, Any]
    embedder: EmbedderStats


class Memory(FactMethods, TurnMethods):
    """Long-term memory over one store.

    >>> mem = Memory("/tmp/demo.db")
    >>> mem.ingest({"text": "I moved to Berlin", "speaker": "Alice", "session": "s1"})
    >>> mem.search("where does Alice live?", k=3)
    """

    def __init__(
        self,
        path: str | Path | None = None,
        config: Config | None = None,
        *,
        embedder: Embedder | None = None,
        store: Store | None = None,
    ) -> None:
        self.config = config or Config.load()
        if store is not None and path is not None:
            raise ValidationError(
                "store", type(store).__name__, "give a database path or a store, not both"
            )
        if store is None:  # a file path or a postgresql:// URL; else the configured store
            store = open_store(self.config.store, path)
        self.store: Store = store
        self.tokenizer = Tokenizer.from_config(self.config.text)
        self.indexer = Indexer(self.store, self.config, embedder)
        self.writer = RecordWriter(self.store, self.tokenizer, self.config, self.indexer)
        self.searcher = Searcher(self.store, self.tokenizer, self.config, self.indexer.get_embedder)
        # facts, kept current by indexing and curated-memory changes (engine_facts.py)
        llm = self.config.llm if self.config.facts.llm else None
        self.fact_service = FactService(self.store, llm)
        # read out of messages after their write is acknowledged (ingest/facts_fill.py); a
        # curated memory's change at once (its capture closes what it supersedes)
        keep = None
        if self.config.facts.enabled and self.fact_service.kept:
            fill = FactsFill(
                self.store,
                self.fact_service.update_quietly,
                quiet_s=self.config.facts.quiet_ms / 1000,
                max_wait_s=self.config.facts.max_wait_s,
                extract_each=self.fact_service.update_each_quietly,
            )
            self.indexer.facts, keep = fill, fill.extract_now
            # a search reads what was just said; bounded, so a search made inside an open
            # store transaction (which the fill's write would wait for) cannot hang
            self.searcher.facts_ready = partial(fill.settle, self.config.facts.max_wait_s)
        # curated memories: dedup, supersession, edits, undo, history (one owner)
        self.memories = CuratedMemories(self.store, self.writer, self.searcher, self.config, keep)
        self.access_counts = AccessRecorder(
            self.store, self.config.scoring.access_debounce_s, self.config.scoring.access_window_s
        )
        self.checked_search = CheckedSearch(self.config, self.searcher, self.access_counts)
        self.injections = InjectionLog()  # auto-recall's cross-turn dedup, per session
        self._build_features()  # engine_turns.py

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Stop the background work (the indexing queue drains for up to
        ``indexing.drain_timeout_s``; what is left stays pending), write the access counts
        still waiting and close the store."""
        self.searcher.close()
        self.indexer.close()
        self.fact_service.close()
        try:
            self.access_counts.flush()
        except RememError as exc:  # never lose the close over access statistics
            log.warning("could not write access counts: %s", exc)
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def zone(self) -> tzinfo:
        """``calendar.timezone``: the clock times without a UTC offset are read on."""
        return self.config.calendar.zone()

    @property
    def path(self) -> Path | None:
        """The database file (None for a store that has none)."""
        return self.store.path

    def get_embedder(self) -> Embedder | None:
        """The configured embedder, loaded on first use (listing never loads a model)."""
        return self.indexer.get_embedder()

    # ------------------------------------------------------------------ writes
    def ingest(
        self, message: dict[str, Any] | RecordIn, *, embed: bool = True, wait: bool | None = None
    ) -> Record:
        """Store one chat message. Returns once it is durably committed.

        Embedding follows ``indexing.mode``: ``async`` (default) hands it to the background
        queue and returns at once (the record is ``pending`` and lexically searchable until
        its vector lands); ``sync`` or ``wait=True`` embeds before returning. ``embed=False``
        leaves it pending: for ``embed_pending`` / ``remem embed``, or for the background
        backfill if this process's indexing queue runs. Its facts are read after the
        acknowledgement either way (``wait_facts``).
        """
        self._check_write_flags(embed, wait)
        return self.writer.store_all([message], embed=embed, wait=wait, numbered=False)[0]

    def add(
        self,
        /,  # ``**fields`` may hold any name: ``self`` is never one of them
        text: str,
        *,
        embed: bool = True,
        wait: bool | None = None,
        dedup: bool = True,
        **fields: Any,
    ) -> StoredMemory:
        """Store one curated memory (a fact, preference, decision or entity).

        Like the ``memory_store`` tool, it does not store a memory twice: when a current
        memory of the same scope has the same text, exactly or after folding case, width,
        punctuation, spaces and Traditional/Simplified, that one is returned, nothing is
        written and the result's ``duplicate`` says how they matched. ``dedup=False`` stores
        as given (a caller that has checked already, such as a new version of a memory).
        """
        self._check_write_flags(embed, wait)
        if not isinstance(dedup, bool):
            raise ValidationError("dedup", dedup, "use True or False")
        item = validate_record({"text": text, **fields, "kind": "memory"}, zone=self.zone)
        return self.memories.add(item, dedup=dedup, embed=embed, wait=wait)

    def ingest_many(
        self,
        items: Iterable[dict[str, Any] | RecordIn],
        *,
        embed: bool = True,
        wait: bool | None = None,
        on_conflict: OnTakenId = "idempotent",
        progress: Progress | None = None,
    ) -> list[Record]:
        """Validate all, commit all in one transaction, then embed in batches (now with
        ``wait=True`` or ``indexing.mode = "sync"``, else through the background queue).

        A bad item raises ValidationError naming its position and field; nothing is written.
        An id already stored: by default the same record sent again is answered with the
        stored one (writes with an id are idempotent) and other content raises
        ConflictError; ``on_conflict="skip"`` keeps whatever is stored, ``"error"`` refuses
        any taken id.
        """
        self._check_write_flags(embed, wait)
        if isinstance(items, str | bytes | dict) or not isinstance(items, Iterable):
            raise ValidationError("items", items, "give a list of message dicts")
        if on_conflict not in ("idempotent", "error", "skip"):
            raise ValidationError("on_conflict", on_conflict, "use 'idempotent', 'error' or 'skip'")
        return self.writer.store_all(
            items, embed=embed, wait=wait, on_conflict=on_conflict, progress=progress
        )

    @staticmethod
    def _check_write_flags(embed: Any, wait: Any) -> None:
        arguments.flag("embed", embed)
        if wait is not None:
            arguments.flag("wait", wait)

    # ------------------------------------------------------------------ indexing
    def wait_indexed(self, timeout: float | None = None) -> bool:
        """Block until the background queue has embedded everything handed to it."""
        return self.indexer.wait_indexed(arguments.seconds("timeout", timeout, optional=True))

    def embed_records(
        self, records: Sequence[Record], *, progress: Progress | None = None
    ) -> tuple[int, int]:
        """Embed these records now and store their vectors; returns (embedded, failed)."""
        return self.indexer.embed_records(records, progress=progress)

    def embed_pending(
        self,
        *,
        batch_size: int | None = None,
        progress: Progress | None = None,
        force: bool = False,
    ) -> dict[str, int]:
        """Embed every record that has no vector for the configured model (backfill); with
        ``force``, re-embed every record. Resumable: a rerun picks up where it stopped."""
        arguments.count("batch_size", batch_size, minimum=1, optional=True)
        arguments.flag("force", force)
        return self.indexer.embed_pending(batch_size=batch_size, progress=progress, force=force)

    def switch_model(self, *, drop_old: bool = False) -> int:
        """After every record has a vector of the configured model (``embed_pending``
        reports nothing remaining): record it as the store's active model and, with
        ``drop_old``, delete every other model's vectors (legacy ones too, and the legacy
        marker with them, under the same lock as a marker write). Returns how many vectors
        were dropped."""
        with self.searcher.legacy.lock:
            dropped = self.indexer.finish_switch(drop_old=drop_old)
            if drop_old:
                self.store.meta_set(LEGACY_NAMESPACE, LEGACY_KEY, None)
        return dropped

    def missing_vectors(self, model_id: str | None = None) -> int:
        """Records without a vector of ``model_id`` (default: the configured model, worked out
        without loading it; 0 when there is no model)."""
        arguments.name("model_id", model_id, optional=True)
        model_id = model_id or expected_model_id(self.config.embed)
        return 0 if model_id is None else self.store.count_missing_vectors(model_id)

    def delete_where(self, filters: Filters | dict[str, Any]) -> int:
        """Delete every record passing the filters (at least one filter is required)."""
        made = make_filters(filters, self.zone)
        if made is None or made.is_empty():
            raise ValidationError("filters", filters, "give at least one filter")
        return self.fact_service.deleting(self.store.ids_where(made))

    def clear_vectors(self, filters: Filters | dict[str, Any] | None = None) -> int:
        """Drop stored vectors (the records stay, pending, for `remem embed`). The legacy-model
        marker goes too (after any marker write in flight)."""
        legacy = self.searcher.legacy
        with legacy.lock:
            cleared = self.store.clear_vectors(make_filters(filters, self.zone))
            self.store.meta_set(LEGACY_NAMESPACE, LEGACY_KEY, None)
        return cleared

    def rewrite(
        self,
        session: str,
        timestamp: float | str,
        new_text: str,
        *,
        visible_text: str | None = None,
    ) -> Record:
        """Replace the content of the message a session holds at ``timestamp`` (an edited chat
        message). Lexical search sees the new text at once; the vector is re-made through the
        indexing queue, in arrival order, and the old vector stays until the new one exists
        (if embedding fails it stays, with a warning). A message that was never embedded is not
        embedded because of a rewrite.

        The old visible text described the old content, so it is replaced too: by
        ``visible_text`` when the new content is again a structured envelope, else cleared
        (the new content is what is embedded and shown)."""
        arguments.name("session", session)
        check_encodable("new_text", new_text)
        check_encodable("visible_text", visible_text)
        record = self.writer.rewrite(session, timestamp, new_text, visible_text)
        self.fact_service.update_quietly([record])  # the chains the old text stated, too
        return record

    def set_session(
        self, session: str, *, origin_platform: str | None = None, parent: str | None = None
    ) -> SessionInfo:
        """Record where a session belongs: the platform of the group or private room it is
        (whichever entry point later drives a turn in it) and, for a sub-session, its parent.
        The ``platform`` cross-session mode uses the root session's origin platform. Messages
        can carry the same facts (``origin_platform``, ``parent_session``)."""
        arguments.name("session", session)
        arguments.name("origin_platform", origin_platform, optional=True)
        arguments.name("parent", parent, optional=True)
        if origin_platform is None and parent is None:
            raise ValidationError("origin_platform", None, "give origin_platform, parent or both")
        self.store.set_session(session, origin_platform, parent)
        info = self.store.session_info(session)
        assert info is not None
        return info

    def session_info(self, session: str) -> SessionInfo | None:
        """A session's origin platform, parent and effective platform (None if unknown)."""
        return self.store.session_info(arguments.name("session", session) or "")

    def rollback(self, session: str, after: float | str) -> int:
        """Delete a session's records created after ``after`` (a checkpoint rollback)."""
        arguments.name("session", session)
        when = arguments.moment("after", after, self.zone)
        doomed = self.store.ids_where(Filters(sessions=[session], since=when))
        undo = self.fact_service.deleting_by  # keeps the facts of the records left right
        return len(undo(doomed, lambda: self.store.delete_session_after(session, when)))

    # ------------------------------------------------------------------ curated memories
    def history(self, memory_id: str) -> list[Record]:
        """Every version of a memory, oldest first."""
        return self.memories.history(arguments.record_id("memory_id", memory_id))

    def undo(self, memory_id: str) -> list[Record]:
        """Undo the update that replaced (or was made by) this memory; returns the versions
        that are current again."""
        return self.memories.undo(arguments.record_id("memory_id", memory_id))

    def delete(self, ids: str | Sequence[str]) -> int:
        """Delete records by id; returns how many existed."""
        if isinstance(ids, str):
            ids = [ids]
        if not isinstance(ids, list | tuple) or not all(isinstance(i, str) for i in ids):
            raise ValidationError("ids", ids, "give a record id or a list of record ids")
        return self.fact_service.deleting(list(check_encodable("ids", ids)))

    # ------------------------------------------------------------------ reads
    def count(self, filters: Filters | dict[str, Any] | None = None) -> int:
        """How many records pass the filters (all without any)."""
        return self.store.count(make_filters(filters, self.zone))

    def ids_with_prefix(self, prefix: str, limit: int = 20) -> list[str]:
        """Record ids that start with ``prefix`` (for short ids typed by a person)."""
        if not isinstance(prefix, str) or not prefix:
            raise ValidationError("prefix", prefix, "give the start of a record id")
        arguments.count("limit", limit, minimum=1)
        return self.store.ids_with_prefix(check_encodable("prefix", prefix), limit=limit)

    def delete_all(self) -> int:
        """Delete every record; returns how many there were."""
        return self.store.delete(self.store.ids_where(None))

    def get(self, record_id: str) -> Record | None:
        """The record with this id, or None."""
        if not isinstance(record_id, str):
            raise ValidationError("id", record_id, "give a record id (a string)")
        return self.store.get(check_encodable("id", record_id))

    def list(
        self,
        filters: Filters | dict[str, Any] | None = None,
        *,
        limit: int | None = 50,
        offset: int = 0,
    ) -> list[Record]:
        """The records passing the filters (all without any), newest first, ``limit`` at a
        time from ``offset``."""
        arguments.count("limit", limit, optional=True)
        arguments.count("offset", offset)
        return self.store.list_records(RecordPage(make_filters(filters, self.zone), limit, offset))

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
        query_vector: np.ndarray | None = None,
        timezone: str | None = None,
    ) -> SearchResult:
        """Hybrid search through the whole read pipeline.

        ``now`` evaluates as of that moment (replays, benchmarks). ``asker`` is the user
        asking (for the same-user boost, applied only with ``same_user_boost=True``).
        ``explicit=True`` marks a deliberate recall (the recall tool): returned records' access
        counts grow, which slows their decay; automatic recalls leave them alone.
        ``disable`` switches pipeline stages off by name (see ``STAGE_NAMES``). ``timezone``
        (IANA) reads time words and offset-less times on its calendar, not the configured one.
        """
        return self.checked_search.search(
            SearchRequest(
                query=query,
                k=k,
                filters=filters,
                now=now,
                asker=asker,
                same_user_boost=same_user_boost,
                explicit=explicit,
                disable=disable,
                channels=channels,
                query_vector=query_vector,
                timezone=timezone,
            )
        )

    def stats(self) -> MemoryStats:
        """The store's counts (records by kind, scope, role, category and index status,
        vectors per model, sessions, facts) and this process's indexing queue, backlog and
        embedding model."""
        store = self.store.stats()
        # FactService.stats() is typed loosely (dict[str, object]); its keys are FactStats'
        facts = cast(FactStats, self.fact_service.stats())
        return {
            **store,
            "queue": self.indexer.queue_stats(),
            # the store's fact count stays under "facts"; this process's failed updates beside it
            **facts,
            "backlog": self.indexer.backlog(store["index_status"].get("pending", 0)),
            "embedder": {
                "provider": self.config.embed.provider,
                "model": self.config.embed.model,
                # the model `remem reembed` last switched this store to (None: never switched)
                "store_active_model": active_model(self.store),
            },
        }
