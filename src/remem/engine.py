"""The facade: wires store + embedder + tokenizer + search. No retrieval logic of its own.

Write path: validate -> commit (text and lexical index, one transaction: once ``ingest``
returns, the record survives a crash) -> embed -> write the vector. If embedding fails the
record stays ``pending`` and is still found by lexical search; ``embed_pending`` (``remem
embed``) fills the gap later.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from remem.capture.autorecall import InjectionLog
from remem.config import Config
from remem.conversation.ingest import index_reason
from remem.conversation.queue import IndexQueue
from remem.embed.base import Embedder, chunk_limit, embed_with_chunks
from remem.embed.factory import make_embedder, model_id_for
from remem.embed.reads import interactive
from remem.errors import NotFoundError, RememError, ValidationError
from remem.index.legacy import KEY as LEGACY_KEY
from remem.index.legacy import NAMESPACE as LEGACY_NAMESPACE
from remem.retrieve.access import AccessRecorder
from remem.retrieve.search import STAGE_NAMES, Searcher
from remem.schemas import RecordIn, parse_time, validate_record, validate_scope
from remem.store.sqlite import SQLiteStore
from remem.text.tokenize import Tokenizer
from remem.types import KINDS, ROLES, Filters, Record, SearchResult

log = logging.getLogger("remem")

Progress = Callable[[int], None]


def expected_model_id(cfg) -> str | None:
    """The model id the configured embedder will report, without loading it."""
    return model_id_for(cfg)


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Memory:
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
    ) -> None:
        self.config = config or Config.load()
        db_path = path if path is not None else self.config.store.resolved_path()
        self.store = SQLiteStore(db_path, busy_timeout_ms=self.config.store.busy_timeout_ms)
        self.tokenizer = Tokenizer.from_config(self.config.text)
        if embedder is None:
            self._follow_model_switch()
        self._embedder: Embedder | None = embedder
        self._embedder_loaded = embedder is not None
        self._embedder_lock = threading.RLock()
        self._queue: IndexQueue | None = None
        self.searcher = Searcher(self.store, self.tokenizer, self.config, self.get_embedder)
        self.access = AccessRecorder(self.store, self.config.scoring.access_debounce_s)
        self.injections = InjectionLog()  # auto-recall's cross-turn dedup, per session
        self._neutral: dict[str, Any] = {}

    def _follow_model_switch(self) -> None:
        """Cut over after `remem reembed`: when the store records a completed switch to another
        bundled model and embed.model was not set explicitly, use the switched-to model. Then
        report, once, a configured model that has no vectors while others do."""
        cfg = self.config.embed
        active = self.store.meta_get("embed", "active-model")
        if (
            active
            and active.startswith("local:")
            and cfg.provider == "local"
            and self.config.source_of("embed.model") == "default"
            and active != f"local:{cfg.model}"
        ):
            cfg.model = active.split(":", 1)[1]
            log.info("using %s: the store was switched to it with `remem reembed`", active)
        expected = expected_model_id(cfg)
        if expected is None:
            return
        stats = self.store.vector_stats()
        if stats and all(model != expected for model, _dim, _n in stats):
            others = ", ".join(f"{m} ({n})" for m, _d, n in stats)
            log.warning(
                "this store's vectors were made by %s, not the configured %s: vector search "
                "finds nothing until `remem reembed --model %s` (or set embed.model back)",
                others, expected, cfg.model,
            )  # fmt: skip

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        if self._queue is not None:
            # Whatever is still queued after the timeout stays pending for `remem embed`.
            self._queue.close(drain=True, timeout=self.config.indexing.drain_timeout_s)
        try:
            self.access.flush()
        except RememError as exc:  # never lose the close over access statistics
            log.warning("could not write access counts: %s", exc)
        self.store.close()
        closer = getattr(self._embedder, "close", None)
        if callable(closer):
            closer()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def path(self) -> Path:
        return self.store.path

    def get_embedder(self) -> Embedder | None:
        """The configured embedder, loaded on first use (listing never loads a model)."""
        if not self._embedder_loaded:
            with self._embedder_lock:
                if not self._embedder_loaded:
                    self._embedder = make_embedder(self.config.embed)
                    self._embedder_loaded = True
        return self._embedder

    # ------------------------------------------------------------------ writes
    def _prepare(self, item: RecordIn) -> tuple[dict[str, Any], str]:
        fields = item.model_dump()
        try:
            json.dumps(fields["metadata"])
        except (TypeError, ValueError):
            raise ValidationError(
                "metadata", fields["metadata"], "use JSON-serialisable values only"
            ) from None
        fields["id"] = item.id or uuid.uuid4().hex
        now = time.time()
        if fields["created_at"] is None:
            fields["created_at"] = now
        if item.kind == "memory" and fields["valid_from"] is None:
            fields["valid_from"] = fields["created_at"]
        fields["content_hash"] = content_hash(item.text)
        reason = index_reason(item)
        if reason is not None:
            # Stored for context, never a hit: no lexical tokens, no vector.
            fields["index_status"] = "skipped"
            fields["index_error"] = f"not indexed: {reason}"
            return fields, ""
        fields["index_status"] = "pending"
        tokens = self.tokenizer.index_string(
            lexical_text(item.kind, item.speaker_label, item.visible_text or item.text)
        )
        return fields, tokens

    def ingest(
        self, message: dict[str, Any] | RecordIn, *, embed: bool = True, wait: bool | None = None
    ) -> Record:
        """Store one chat message. Returns once it is durably committed.

        Embedding follows ``indexing.mode``: ``async`` (default) hands it to the background
        queue and returns at once (the record is ``pending`` and lexically searchable until
        its vector lands); ``sync`` or ``wait=True`` embeds before returning. ``embed=False``
        leaves it for ``embed_pending`` / ``remem embed``.
        """
        return self._store_all([message], embed=embed, wait=wait, numbered=False)[0]

    def add(
        self, text: str, *, embed: bool = True, wait: bool | None = None, **fields: Any
    ) -> Record:
        """Store one curated memory (a fact, preference, decision or entity)."""
        data = {"text": text, **fields, "kind": "memory"}
        return self._store_all([data], embed=embed, wait=wait, numbered=False)[0]

    def ingest_many(
        self,
        items: Iterable[dict[str, Any] | RecordIn],
        *,
        embed: bool = True,
        wait: bool | None = None,
        on_conflict: str = "error",
        progress: Progress | None = None,
    ) -> list[Record]:
        """Validate all, commit all in one transaction, then embed in batches (now with
        ``wait=True`` or ``indexing.mode = "sync"``, else through the background queue).

        A bad item raises ValidationError naming its position and field; nothing is written.
        """
        return self._store_all(
            items, embed=embed, wait=wait, on_conflict=on_conflict, progress=progress
        )

    def _store_all(
        self,
        items: Iterable[dict[str, Any] | RecordIn],
        *,
        embed: bool,
        wait: bool | None = None,
        on_conflict: str = "error",
        progress: Progress | None = None,
        numbered: bool = True,
    ) -> list[Record]:
        prepared: list[tuple[dict[str, Any], str]] = []
        for position, item in enumerate(items):
            try:
                prepared.append(self._prepare(validate_record(item)))
            except ValidationError as exc:
                if not numbered:
                    raise
                raise ValidationError(
                    f"item {position + 1}: {exc.field}", exc.value, exc.fix
                ) from None
        if not prepared:
            return []
        rows = self._with_context(prepared)
        rowids = self.store.insert_records(rows, on_conflict=on_conflict)
        stored = [
            (rowid, fields)
            for rowid, (fields, _tokens) in zip(rowids, prepared, strict=True)
            if rowid is not None
        ]
        records = list(self.store.get_by_rowids([r for r, _ in stored]).values())
        records.sort(key=lambda r: r.rowid or 0)
        if wait is None:
            wait = self.config.indexing.mode == "sync"
        skipped = [r for r in records if r.index_status == "skipped"]
        records = [r for r in records if r.index_status != "skipped"]
        if embed and records and wait:
            self._embed_records(records, progress=progress)
            fresh = self.store.get_by_rowids([r.rowid for r in records if r.rowid])
            records = [fresh.get(r.rowid, r) for r in records]
        else:
            if embed and records:
                self.queue.submit([r.rowid for r in records if r.rowid is not None])
            if progress:
                progress(len(records))
        return sorted(records + skipped, key=lambda r: r.rowid or 0)

    # ------------------------------------------------------------------ indexing queue
    @property
    def queue(self) -> IndexQueue:
        """The background indexing queue (started on first use)."""
        if self._queue is None:
            with self._embedder_lock:
                if self._queue is None:
                    cfg = self.config.indexing
                    self._queue = IndexQueue(
                        self._embed_rowids, concurrency=cfg.concurrency,
                        max_queue=cfg.max_queue, batch_size=cfg.batch_size,
                        on_drop=self._count_dropped,
                    )  # fmt: skip
        return self._queue

    def _count_dropped(self, n: int) -> None:
        # Kept in the file so `remem stats` in another process still sees it.
        try:
            self.store.meta_add("indexing", "dropped", n)
        except RememError as exc:
            log.warning("could not record dropped queue items: %s", exc)

    def _embed_rowids(self, rowids: Sequence[int]) -> tuple[int, int]:
        # Records deleted since they were queued simply are not there any more.
        records = sorted(self.store.get_by_rowids(rowids).values(), key=lambda r: r.rowid or 0)
        if not records:
            return 0, 0
        return self._embed_records(records)

    def wait_indexed(self, timeout: float | None = None) -> bool:
        """Block until the background queue has embedded everything handed to it."""
        return True if self._queue is None else self._queue.wait_idle(timeout)

    def _with_context(
        self, prepared: list[tuple[dict[str, Any], str]]
    ) -> list[tuple[dict[str, Any], str, str]]:
        """Add each message's context tokens: the lexical text of the ``text.context_turns``
        turns before it in its session (from this batch, else from the store)."""
        n = self.config.text.context_turns
        if n <= 0:
            return [(f, t, "") for f, t in prepared]
        by_session: dict[str, list[dict[str, Any]]] = {}
        for fields, _ in prepared:
            if (fields["kind"] == "message" and fields.get("session")
                    and fields["index_status"] != "skipped"):  # fmt: skip
                by_session.setdefault(fields["session"], []).append(fields)
        context: dict[int, str] = {}
        for session, items in by_session.items():
            items.sort(key=lambda f: f["created_at"])
            earlier = [
                lexical_text("message", r.speaker_label, r.shown_text)
                for r in self.store.previous_texts(session, items[0]["created_at"], n)
            ]
            for fields in items:
                context[id(fields)] = self.tokenizer.index_string(" ".join(earlier[-n:]))
                earlier.append(lexical_text("message", fields.get("speaker_label"),
                                               fields.get("visible_text") or fields["text"]))  # fmt: skip
        return [(f, t, context.get(id(f), "")) for f, t in prepared]

    def embed_records(
        self, records: Sequence[Record], *, progress: Progress | None = None
    ) -> tuple[int, int]:
        """Embed these records now and store their vectors; returns (embedded, failed)."""
        return self._embed_records(records, progress=progress)

    def _embed_records(
        self, records: Sequence[Record], *, progress: Progress | None = None
    ) -> tuple[int, int]:
        """Embed and store vectors; returns (embedded, failed). Failures leave records
        pending with the error noted, for ``embed_pending`` to retry."""
        try:
            embedder = self.get_embedder()
        except RememError as exc:
            self.store.mark_index_status([r.rowid for r in records if r.rowid], "pending", str(exc))
            log.warning(
                "embedding model unavailable (%s); %d records left pending", exc, len(records)
            )
            return 0, len(records)
        if embedder is None:
            if progress:
                progress(len(records))
            return 0, 0
        cfg = self.config.embed
        max_chars = chunk_limit(embedder, cfg)
        done = failed = 0
        for start in range(0, len(records), cfg.batch_size):
            batch = records[start : start + cfg.batch_size]
            texts = [r.embed_text(cfg.with_speaker) for r in batch]
            rowids = [r.rowid for r in batch if r.rowid is not None]
            try:
                vectors = embed_with_chunks(
                    embedder,
                    texts,
                    is_query=False,
                    max_chars=max_chars,
                    overlap=cfg.chunk_overlap,
                    batch_size=cfg.batch_size,
                )
            except RememError as exc:
                # Never-embedded records stay pending (backfill retries them); records that
                # already have a vector (a rewrite) keep it and say the refresh failed.
                fresh = [r.rowid for r in batch if r.rowid and r.index_status != "indexed"]
                stale = [r.rowid for r in batch if r.rowid and r.index_status == "indexed"]
                self.store.mark_index_status(fresh, "pending", str(exc))
                self.store.mark_index_status(
                    stale, "indexed", f"re-embedding failed, previous vector kept: {exc}"
                )
                log.warning("embedding failed (%s); %d records left pending, %d keep their "
                            "previous vector", exc, len(fresh), len(stale))  # fmt: skip
                failed += len(batch)
            else:
                self.store.put_vectors(
                    embedder.model_id,
                    embedder.provider,
                    embedder.model,
                    list(zip(rowids, vectors, strict=True)),
                )
                done += len(batch)
            if progress:
                progress(len(batch))
        return done, failed

    def embed_pending(
        self, *, batch_size: int | None = None, progress: Progress | None = None,
        force: bool = False,
    ) -> dict[str, int]:  # fmt: skip
        """Embed every record that has no vector for the configured model (backfill); with
        ``force``, re-embed every record.

        Resumable: work is committed batch by batch, and a rerun picks up where it stopped
        (for ``force``, the last finished record is kept in the store until the run ends).
        """
        embedder = self.get_embedder()
        if embedder is None:
            return {"embedded": 0, "failed": 0, "remaining": 0}
        size = batch_size or self.config.embed.batch_size
        marker = f"force:{embedder.model_id}"
        after = int(self.store.meta_get("embed", marker) or 0) if force else 0
        embedded = failed = 0
        while True:
            if force:
                batch = list(itertools.islice(self.store.iter_records(batch=size, after=after),
                                              size))  # fmt: skip
            else:
                batch = self.store.records_missing_vectors(
                    embedder.model_id, limit=size, after_rowid=after
                )
            if not batch:
                break
            after = batch[-1].rowid or after
            ok, bad = self._embed_records(batch, progress=progress)
            embedded += ok
            failed += bad
            if force:
                self.store.meta_set("embed", marker, str(after))
        if force:
            self.store.meta_set("embed", marker, None)
        remaining = self.store.count_missing_vectors(embedder.model_id)
        return {"embedded": embedded, "failed": failed, "remaining": remaining}

    def delete_where(self, filters: Filters | dict[str, Any]) -> int:
        """Delete every record passing the filters (at least one filter is required)."""
        made = make_filters(filters)
        if made is None or made.is_empty():
            raise ValidationError("filters", filters, "give at least one filter")
        return self.store.delete(self.store.ids_where(made))

    def clear_vectors(self, filters: Filters | dict[str, Any] | None = None) -> int:
        """Drop stored vectors (the records stay, pending, for `remem embed`). The legacy-model
        marker goes too (after any marker write in flight)."""
        legacy = self.searcher.legacy
        with legacy.lock:
            cleared = self.store.clear_vectors(make_filters(filters))
            self.store.meta_set(LEGACY_NAMESPACE, LEGACY_KEY, None)
        return cleared

    def rewrite(self, session: str, timestamp: float | str, new_text: str, *,
                visible_text: str | None = None) -> Record:  # fmt: skip
        """Replace the content of the message a session holds at ``timestamp`` (an edited chat
        message). Lexical search sees the new text at once; the vector is re-made through the
        indexing queue, in arrival order, and the old vector stays until the new one exists
        (if embedding fails it stays, with a warning). A message that was never embedded is not
        embedded because of a rewrite.

        The old visible text described the old content, so it is replaced too: by
        ``visible_text`` when the new content is again a structured envelope, else cleared
        (the new content is what is embedded and shown)."""
        if not isinstance(new_text, str) or not new_text.strip():
            raise ValidationError("new_text", new_text, "give the message's new, non-empty text")
        if visible_text is not None and (not isinstance(visible_text, str)
                                         or not visible_text.strip()):  # fmt: skip
            raise ValidationError("visible_text", visible_text,
                                  "give the non-empty text a person sees, or leave it out")  # fmt: skip
        try:
            when = parse_time(timestamp)
        except ValueError:
            raise ValidationError("timestamp", timestamp, "use the message's Unix time") from None
        record = self.store.find_message(session, when) if when is not None else None
        if record is None or record.rowid is None:
            raise NotFoundError(f"no message in session {session!r} at {timestamp!r}")
        tokens = (
            "" if record.index_status == "skipped"
            else self.tokenizer.index_string(
                lexical_text(record.kind, record.speaker_label, visible_text or new_text))
        )  # fmt: skip
        self.store.update_text(record.rowid, new_text, content_hash(new_text), tokens,
                               visible_text=visible_text)  # fmt: skip
        if record.index_status == "indexed":
            if self.config.indexing.mode == "sync":
                self._embed_rowids([record.rowid])
            else:
                self.queue.submit([record.rowid])
        updated = self.store.get(record.id)
        assert updated is not None
        return updated

    def set_session(self, session: str, *, origin_platform: str | None = None,
                    parent: str | None = None) -> dict[str, Any]:  # fmt: skip
        """Record where a session belongs: the platform of the group or private room it is
        (whichever entry point later drives a turn in it) and, for a sub-session, its parent.
        The ``platform`` cross-session mode uses the root session's origin platform. Messages
        can carry the same facts (``origin_platform``, ``parent_session``)."""
        for name, value in (("session", session), ("origin_platform", origin_platform),
                            ("parent", parent)):  # fmt: skip
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ValidationError(name, value, "give a non-empty string (or leave it out)")
        if origin_platform is None and parent is None:
            raise ValidationError("origin_platform", None, "give origin_platform, parent or both")
        self.store.set_session(session, origin_platform, parent)
        info = self.store.session_info(session)
        assert info is not None
        return info

    def session_info(self, session: str) -> dict[str, Any] | None:
        """A session's origin platform, parent and effective platform (None if unknown)."""
        return self.store.session_info(session)

    def rollback(self, session: str, after: float | str) -> int:
        """Delete a session's records created after ``after`` (a checkpoint rollback)."""
        try:
            when = parse_time(after)
        except ValueError:
            raise ValidationError("after", after, "use Unix seconds or an ISO-8601 date") from None
        if when is None:
            raise ValidationError("after", after, "give the checkpoint time")
        return len(self.store.delete_session_after(session, when))

    # ------------------------------------------------------------------ curated memories
    def scope_access(self, agent: str, *, session: str | None = None,
                     user: str | None = None) -> Any:  # fmt: skip
        """What ``agent`` may read and write in this call (the one scope resolver)."""
        from remem.scopes import resolve

        return resolve(self.config, agent, session=session, user=user)

    def neutral_vectors(self, embedder: Embedder) -> Any:
        """Vectors of a few neutral sentences for this model (the relevance baseline of
        auto-recall), embedded once per model."""
        from remem.capture.autorecall import NEUTRAL

        cached = self._neutral.get(embedder.model_id)
        if cached is None:
            with interactive():  # a recall waits for these: the query deadline applies
                cached = self._neutral[embedder.model_id] = embedder.embed_passages(list(NEUTRAL))
        return cached

    def capture_after_turn(self, turn) -> Any:
        """After an LLM response: capture this turn's memories (see ``remem.capture``)."""
        from remem.capture.capture import capture_after_turn

        return capture_after_turn(self, turn)

    def recall_memories(self, query: str, *, agent: str, session: str | None = None,
                        user: str | None = None, now: float | None = None) -> Any:  # fmt: skip
        """Before an LLM request: the relevant memories as a ``<relevant-memories>`` block."""
        from remem.capture.autorecall import recall_memories

        with interactive():  # one query deadline for every embedding this recall waits for
            return recall_memories(self, query, agent=agent, session=session, user=user, now=now)

    def tools(self, agent: str, *, session: str | None = None, user: str | None = None) -> Any:
        """The memory tools (recall, store, forget, list, stats) bound to one agent."""
        from remem.tools import MemoryTools

        return MemoryTools(self, agent, session=session, user=user)

    def history(self, memory_id: str) -> list[Record]:
        """Every version of a memory, oldest first."""
        from remem.capture.history import history

        return history(self, memory_id)

    def undo(self, memory_id: str) -> list[Record]:
        """Undo the update that replaced (or was made by) this memory; returns the versions
        that are current again."""
        from remem.capture.history import undo

        return undo(self, memory_id)

    def session_reset(self, session: str, *, agent: str, user: str | None = None,
                      now: float | None = None) -> Any:  # fmt: skip
        """A session ends: store one summary memory of it when ``capture.session_summary`` is
        on (returns the store outcome, or None)."""
        from remem.capture.summary import summarize_session

        return summarize_session(self, session, agent=agent, user=user, now=now)

    def recall_for_turn(self, turn) -> Any:
        """Before an LLM call: recall for this turn's archived inputs and render the block to
        inject (see ``remem.conversation.recall``)."""
        from remem.conversation.recall import recall_for_turn

        return recall_for_turn(self, turn)

    def delete(self, ids: str | Sequence[str]) -> int:
        """Delete records by id; returns how many existed."""
        if isinstance(ids, str):
            ids = [ids]
        return self.store.delete(list(ids))

    # ------------------------------------------------------------------ reads
    def get(self, record_id: str) -> Record | None:
        return self.store.get(record_id)

    def list(
        self,
        filters: Filters | dict[str, Any] | None = None,
        *,
        limit: int | None = 50,
        offset: int = 0,
    ) -> list[Record]:
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise ValidationError("limit", limit, "use a whole number >= 0")
        if not isinstance(offset, int) or offset < 0:
            raise ValidationError("offset", offset, "use a whole number >= 0")
        return self.store.list_records(make_filters(filters), limit=limit, offset=offset)

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
    ) -> SearchResult:
        """Hybrid search through the whole read pipeline.

        ``now`` evaluates as of that moment (replays, benchmarks). ``asker`` is the user
        asking (for the same-user boost, applied only with ``same_user_boost=True``).
        ``explicit=True`` marks a deliberate recall (the recall tool): returned records' access
        counts grow, which slows their decay; automatic recalls leave them alone.
        ``disable`` switches pipeline stages off by name (see ``STAGE_NAMES``).
        """
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query", query, "give a non-empty query")
        max_k = self.config.search.max_k
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= max_k:
            raise ValidationError("k", k, f"use a whole number from 1 to {max_k}")
        unknown = set(disable) - set(STAGE_NAMES)
        if unknown:
            raise ValidationError(
                "disable", sorted(unknown), f"stage names are {', '.join(STAGE_NAMES)}"
            )
        bad_channels = set(channels) - {"vector", "lexical"}
        if not channels or bad_channels:
            raise ValidationError("channels", channels, "use 'vector' and/or 'lexical'")
        try:
            when = time.time() if now is None else parse_time(now)
        except ValueError:
            raise ValidationError("now", now, "use Unix seconds or an ISO-8601 date") from None
        result = self.searcher.search(
            query, k, make_filters(filters), when, query_vector=query_vector,
            channels=tuple(channels), asker=asker, same_user_boost=same_user_boost,
            disable=frozenset(disable),
        )  # fmt: skip
        if explicit and result.hits:
            # Explicit recalls reinforce (debounced); automatic ones never do.
            self.access.touch([h.record.rowid for h in result.hits if h.record.rowid], when)
        return result

    def stats(self) -> dict[str, Any]:
        data = self.store.stats()
        data["queue"] = (
            self._queue.stats() if self._queue is not None
            else {"queued": 0, "in_flight_batches": 0, "embedded": 0, "failed": 0,
                  "dropped": 0, "workers": 0}
        )  # fmt: skip
        data["embedder"] = {
            "provider": self.config.embed.provider,
            "model": self.config.embed.model,
        }
        return data


def lexical_text(kind: str, speaker: str | None, text: str) -> str:
    """What the lexical index holds for a record: a message's speaker name is searchable too
    ("what did Caroline say about ..."); a memory is its text."""
    return f"{speaker} {text}" if kind == "message" and speaker else text


def make_filters(filters: Filters | dict[str, Any] | None) -> Filters | None:
    """Filters from a Filters, a plain dict (API/CLI) or None; validates values."""
    if filters is None or isinstance(filters, Filters):
        return filters
    if not isinstance(filters, dict):
        raise ValidationError("filters", filters, "pass a dict such as {'kind': 'message'}")
    data = dict(filters)
    out = Filters()

    def as_list(name: str, value: Any) -> list[str]:
        values = [value] if isinstance(value, str) else list(value)
        if not values or not all(isinstance(v, str) and v for v in values):
            raise ValidationError(name, value, "give a non-empty string or list of strings")
        return values

    for key, value in data.items():
        if value is None:
            continue
        if key in ("kind", "kinds"):
            out.kinds = as_list(key, value)
            bad = [v for v in out.kinds if v not in KINDS]
            if bad:
                raise ValidationError(key, bad[0], f"use one of {', '.join(KINDS)}")
        elif key in ("scope", "scopes"):
            out.scopes = [validate_scope(s, key) for s in as_list(key, value)]
        elif key in ("session", "sessions"):
            out.sessions = as_list(key, value)
        elif key in ("role", "roles"):
            out.roles = as_list(key, value)
            bad = [v for v in out.roles if v not in ROLES]
            if bad:
                raise ValidationError(key, bad[0], f"use one of {', '.join(ROLES)}")
        elif key in ("since", "until"):
            try:
                setattr(out, key, parse_time(value))
            except ValueError:
                raise ValidationError(key, value, "use Unix seconds or an ISO-8601 date") from None
        elif key in ("platform", "category"):
            if not isinstance(value, str) or not value.strip():
                raise ValidationError(key, value, "give a non-empty string")
            setattr(out, key, value)
        elif key == "include_superseded":
            out.include_superseded = bool(value)
        elif key == "ids":
            out.ids = as_list(key, value)
        else:
            raise ValidationError(
                "filters",
                key,
                "unknown filter; use kind, scope, session, role, since, until, platform, "
                "category, ids",
            )
    if out.since is not None and out.until is not None and out.since > out.until:
        raise ValidationError("since", out.since, "since must not be later than until")
    return out


class AsyncMemory:
    """The same API for asyncio code: every call runs in a worker thread, so a slow
    embedding never blocks the event loop."""

    def __init__(
        self,
        path: str | Path | None = None,
        config: Config | None = None,
        *,
        embedder: Embedder | None = None,
    ) -> None:
        self._sync = Memory(path, config, embedder=embedder)

    @property
    def sync(self) -> Memory:
        return self._sync

    async def ingest(self, message: dict[str, Any] | RecordIn, **kw: Any) -> Record:
        return await asyncio.to_thread(self._sync.ingest, message, **kw)

    async def ingest_many(self, items: Iterable[dict[str, Any]], **kw: Any) -> list[Record]:
        return await asyncio.to_thread(self._sync.ingest_many, list(items), **kw)

    async def add(self, text: str, **kw: Any) -> Record:
        return await asyncio.to_thread(self._sync.add, text, **kw)

    async def search(
        self, query: str, k: int = 10, filters: Any = None, now: Any = None, **kw: Any
    ) -> SearchResult:
        return await asyncio.to_thread(self._sync.search, query, k, filters, now, **kw)

    async def get(self, record_id: str) -> Record | None:
        return await asyncio.to_thread(self._sync.get, record_id)

    async def delete(self, ids: str | Sequence[str]) -> int:
        return await asyncio.to_thread(self._sync.delete, ids)

    async def list(self, filters: Any = None, **kw: Any) -> list[Record]:
        return await asyncio.to_thread(self._sync.list, filters, **kw)

    async def stats(self) -> dict[str, Any]:
        return await asyncio.to_thread(self._sync.stats)

    async def embed_pending(self, **kw: Any) -> dict[str, int]:
        return await asyncio.to_thread(self._sync.embed_pending, **kw)

    async def capture_after_turn(self, turn: Any) -> Any:
        return await asyncio.to_thread(self._sync.capture_after_turn, turn)

    async def recall_memories(self, query: str, **kw: Any) -> Any:
        return await asyncio.to_thread(self._sync.recall_memories, query, **kw)

    async def recall_for_turn(self, turn: Any) -> Any:
        return await asyncio.to_thread(self._sync.recall_for_turn, turn)

    async def call_tool(self, agent: str, name: str, arguments: dict[str, Any] | None = None,
                        **kw: Any) -> dict[str, Any]:  # fmt: skip
        def run() -> dict[str, Any]:
            return self._sync.tools(agent, **kw).call(name, arguments)

        return await asyncio.to_thread(run)

    async def close(self) -> None:
        await asyncio.to_thread(self._sync.close)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
