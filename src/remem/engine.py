"""The facade: wires store + embedder + tokenizer + search. No retrieval logic of its own.

Write path: validate -> commit (text and lexical index, one transaction: once ``ingest``
returns, the record survives a crash) -> embed -> write the vector. If embedding fails the
record stays ``pending``, found by lexical search, until ``embed_pending`` fills the gap."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from datetime import tzinfo
from pathlib import Path
from typing import Any

from remem import arguments
from remem.config import Config
from remem.conversation.indexing import Indexer, Progress, active_model, expected_model_id
from remem.conversation.ingest import OnTakenId, RecordWriter
from remem.embed.base import Embedder
from remem.embed.reads import interactive
from remem.engine_facts import FactMethods
from remem.errors import RememError, ValidationError
from remem.facts.service import FactService
from remem.index.legacy import KEY as LEGACY_KEY
from remem.index.legacy import NAMESPACE as LEGACY_NAMESPACE
from remem.memories import CuratedMemories
from remem.recall.injections import InjectionLog
from remem.retrieve.access import AccessRecorder
from remem.retrieve.search import Searcher
from remem.retrieve.stages import STAGE_NAMES
from remem.schemas import RecordIn, check_encodable, make_filters, validate_record
from remem.store.base import Store
from remem.store.open import open_store
from remem.text.tokenize import Tokenizer
from remem.types import Filters, Record, SearchResult, StoredMemory, Turn

log = logging.getLogger("remem")

__all__ = ["Memory", "make_filters"]


class Memory(FactMethods):
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
        self.searcher = Searcher(self.store, self.tokenizer, self.config, self.get_embedder)
        # facts, kept current by indexing and curated-memory changes (engine_facts.py)
        llm = self.config.llm if self.config.facts.llm else None
        self.fact_service = FactService(self.store, llm)
        keep = self.fact_service.update_quietly if self.config.facts.enabled else None
        self.indexer.on_indexed = keep
        # curated memories: dedup, supersession, edits, undo, history (one owner)
        self.memories = CuratedMemories(self.store, self.writer, self.searcher, self.config, keep)
        self.access_counts = AccessRecorder(
            self.store, self.config.scoring.access_debounce_s, self.config.scoring.access_window_s
        )
        self.injections = InjectionLog()  # auto-recall's cross-turn dedup, per session
        self._neutral: dict[str, Any] = {}

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
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
        backfill if this process's indexing queue runs.
        """
        self._check_write_flags(embed, wait)
        return self.writer.store_all([message], embed=embed, wait=wait, numbered=False)[0]

    def add(
        self,
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
    ) -> dict[str, Any]:
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

    def session_info(self, session: str) -> dict[str, Any] | None:
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
    def scope_access(
        self, agent: str, *, session: str | None = None, user: str | None = None
    ) -> Any:
        """What ``agent`` may read and write in this call (the one scope resolver)."""
        from remem.scopes import resolve

        return resolve(self.config, agent, session=session, user=user)

    def neutral_vectors(self, embedder: Embedder) -> Any:
        """Vectors of a few neutral sentences for this model (the relevance baseline of
        auto-recall), embedded once per model."""
        from remem.recall.memories import NEUTRAL

        cached = self._neutral.get(embedder.model_id)
        if cached is None:
            with interactive():  # a recall waits for these: the query deadline applies
                cached = self._neutral[embedder.model_id] = embedder.embed_passages(list(NEUTRAL))
        return cached

    def capture_after_turn(self, turn: Turn) -> Any:
        """After an LLM response: capture this turn's memories (see ``remem.capture``)."""
        from remem.capture.capture import capture_after_turn

        return capture_after_turn(self, arguments.turn(turn))

    def recall_memories(
        self,
        query: str,
        *,
        agent: str,
        session: str | None = None,
        user: str | None = None,
        now: float | None = None,
        preview: bool = False,
        timezone: str | None = None,
    ) -> Any:
        """Before an LLM request: the relevant memories as a ``<relevant-memories>`` block
        (``timezone``: the asker's, for time words and the memories' dates)."""
        from remem.recall.memories import recall_memories

        asked: dict[str, Any] = {"agent": agent, "session": session, "user": user, "now": now}
        with interactive():  # one query deadline for every embedding this recall waits for
            return recall_memories(self, query, **asked, preview=preview, timezone=timezone)

    def tools(self, agent: str, *, session: str | None = None, user: str | None = None) -> Any:
        """The agent tools bound to one agent, and to a session and user when given."""
        from remem.tools import MemoryTools

        return MemoryTools(self, agent, session=session, user=user)

    def history(self, memory_id: str) -> list[Record]:
        """Every version of a memory, oldest first."""
        return self.memories.history(arguments.record_id("memory_id", memory_id))

    def undo(self, memory_id: str) -> list[Record]:
        """Undo the update that replaced (or was made by) this memory; returns the versions
        that are current again."""
        return self.memories.undo(arguments.record_id("memory_id", memory_id))

    def session_reset(
        self, session: str, *, agent: str, user: str | None = None, now: float | None = None
    ) -> Any:
        """A session ends: store one summary memory of it when ``capture.session_summary`` is
        on (returns the store outcome, or None)."""
        from remem.capture.summary import summarize_session

        arguments.name("session", session)
        arguments.unix_time("now", now, optional=True)
        return summarize_session(self, session, agent=agent, user=user, now=now)

    def recall_for_turn(self, turn: Turn) -> Any:
        """Before an LLM call: recall for this turn's archived inputs and render the block to
        inject (see ``remem.recall.messages``)."""
        from remem.recall.messages import recall_for_turn

        return recall_for_turn(self, arguments.turn(turn))

    def conversation_recall(self, turn: Turn, query: str, **narrowing: Any) -> Any:
        """Search the archived chat ``turn``'s session may recall for ``query``; ``scope``,
        ``context_window`` and ``limit`` only narrow (see ``remem.recall.conversation``)."""
        from remem.recall.conversation import conversation_recall

        return conversation_recall(self, turn, query, **narrowing)

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
        arguments.count("limit", limit, optional=True)
        arguments.count("offset", offset)
        return self.store.list_records(make_filters(filters, self.zone), limit=limit, offset=offset)

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
    ) -> SearchResult:
        """Hybrid search through the whole read pipeline.

        ``now`` evaluates as of that moment (replays, benchmarks). ``asker`` is the user
        asking (for the same-user boost, applied only with ``same_user_boost=True``).
        ``explicit=True`` marks a deliberate recall (the recall tool): returned records' access
        counts grow, which slows their decay; automatic recalls leave them alone.
        ``disable`` switches pipeline stages off by name (see ``STAGE_NAMES``). ``timezone``
        (IANA) reads time words and offset-less times on its calendar, not the configured one.
        """
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query", query, "give a non-empty query")
        check_encodable("query", query)
        limit = self.config.search.max_query_chars
        if len(query) > limit:
            raise ValidationError(
                "query",
                f"{query[:40]}... ({len(query)} characters)",
                f"use at most {limit} characters (search.max_query_chars)",
            )
        max_k = self.config.search.max_k
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= max_k:
            raise ValidationError("k", k, f"use a whole number from 1 to {max_k}")
        arguments.choices("disable", disable, STAGE_NAMES)
        if not arguments.choices("channels", channels, ("vector", "lexical")):
            raise ValidationError("channels", channels, "use 'vector' and/or 'lexical'")
        arguments.name("asker", asker, optional=True)
        arguments.flag("same_user_boost", same_user_boost)
        arguments.flag("explicit", explicit)
        zone = arguments.zone("timezone", timezone) or self.zone
        when = time.time() if now is None else arguments.moment("now", now, zone)
        result = self.searcher.search(
            query,
            k,
            make_filters(filters, zone),
            when,
            query_vector=query_vector,
            channels=tuple(channels),
            asker=asker,
            same_user_boost=same_user_boost,
            disable=frozenset(disable),
            zone=zone,
        )
        if explicit and result.hits:
            # Explicit recalls reinforce (debounced); automatic ones never do.
            self.access_counts.touch([h.record for h in result.hits], when)
        return result

    def stats(self) -> dict[str, Any]:
        data = self.store.stats()
        data["queue"] = self.indexer.queue_stats()
        # the store's fact count stays under "facts"; this process's failed updates beside it
        data.update(self.fact_service.stats())
        data["backlog"] = self.indexer.backlog(data["index_status"].get("pending", 0))
        data["embedder"] = {
            "provider": self.config.embed.provider,
            "model": self.config.embed.model,
            # the model `remem reembed` last switched this store to (None: never switched)
            "store_active_model": active_model(self.store),
        }
        return data
