"""The write path, and which archived messages become searchable.

Everything is stored (it matters for context), but only somebody talking becomes a hit:
- internal injections that carry a ``source`` (host notices, scheduled tasks, workflows,
  sub-task dispatch, friend or group requests) are not indexed;
- media the bot sent (role ``notice`` or kind ``media``), system messages, control messages
  (compaction separators, command replies) and directives are not indexed.
Curated memories are always indexed.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from remem.config import Config
from remem.errors import ConflictError, NotFoundError, ValidationError
from remem.ingest.indexing import Indexer, Progress
from remem.ingest.last_turns import LastTurns
from remem.schemas import RecordIn, content_hash, parse_time, validate_record
from remem.store.base import ContextCheckingStore, ContextMoved, OnConflict, RecordRow, Store
from remem.store.queries import TextUpdate
from remem.store.rows import inserted_record
from remem.text.tokenize import Tokenizer
from remem.types import Record

NOT_INDEXED_KINDS = frozenset({"media", "control", "directive"})
RECENT_TOKENS = 64  # texts whose tokens a writer keeps (RecordWriter.tokens_of)

# What a write does with an id that is already stored: "error" refuses it, "skip" keeps the
# stored record, "idempotent" (the API's default) answers the same record sent again with the
# stored one and refuses other content under that id.
OnTakenId = Literal["error", "skip", "idempotent"]


def index_reason(item: RecordIn) -> str | None:
    """None when the record should be indexed, else why it is stored only."""
    if item.kind != "message":
        return None
    if item.source:
        return f"internal injection (source {item.source!r})"
    if item.role == "notice":
        return "a notice (media the bot sent)"
    if item.role == "system":
        return "a system message"
    if item.message_kind in NOT_INDEXED_KINDS:
        return f"a {item.message_kind} message"
    return None


def lexical_text(kind: str, speaker: str | None, text: str) -> str:
    """What the lexical index holds for a record: a message's speaker name is searchable too
    ("what did Caroline say about ..."); a memory is its text."""
    return f"{speaker} {text}" if kind == "message" and speaker else text


def context_text(fields: dict[str, Any]) -> str:
    """What a message's successor holds of it as context: its lexical text as a message."""
    shown = fields.get("visible_text") or fields["text"]
    return lexical_text("message", fields.get("speaker_label"), shown)


@dataclass(eq=False)
class RecordWriter:
    """The write path: validate, prepare, commit (text and lexical index in one
    transaction), then hand the records to the indexer."""

    store: Store
    tokenizer: Tokenizer
    config: Config
    indexer: Indexer
    # the lexical tokens of the last texts this writer tokenized: a message's context
    # (``with_context``, one turn by default) is usually the turn it wrote just before,
    # whose tokens it made then; tokenized once, used for the row and its successor's context
    _recent_tokens: dict[str, str] = field(default_factory=dict, init=False)
    # a REST server's threads share one writer
    _recent_lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    # the turn it wrote last in each session: the next message's context without a read
    _last_turns: LastTurns = field(default_factory=LastTurns, init=False)
    # the store checks such a turn in its write (asked once: a Protocol check costs ~7 us)
    _checks_turn: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        self._checks_turn = isinstance(self.store, ContextCheckingStore)

    def tokens_of(self, text: str) -> str:
        """``Tokenizer.index_string`` of ``text``, kept for the next few writes."""
        tokens = self._recent_tokens.get(text)
        if tokens is None:
            tokens = self.tokenizer.index_string(text)
            with self._recent_lock:
                if len(self._recent_tokens) >= RECENT_TOKENS:
                    self._recent_tokens.pop(next(iter(self._recent_tokens)))  # the oldest
                self._recent_tokens[text] = tokens
        return tokens

    def prepare(self, item: RecordIn) -> tuple[dict[str, Any], str]:
        """The stored fields and lexical tokens of one validated record."""
        fields = item.model_dump()
        try:
            json.dumps(fields["metadata"])
        except (TypeError, ValueError):
            raise ValidationError(
                "metadata", fields["metadata"], "use JSON-serialisable values only"
            ) from None
        fields["id"] = item.id or uuid.uuid4().hex
        if fields["created_at"] is None:
            fields["created_at"] = time.time()
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
        text = lexical_text(item.kind, item.speaker_label, item.visible_text or item.text)
        return fields, self.tokens_of(text)

    def store_all(
        self,
        items: Iterable[dict[str, Any] | RecordIn],
        *,
        embed: bool,
        wait: bool | None = None,
        on_conflict: OnTakenId = "idempotent",
        progress: Progress | None = None,
        numbered: bool = True,
    ) -> list[Record]:
        """Validate every item, commit all in one transaction, then embed (now when ``wait``,
        else through the queue). A bad item raises naming its position; nothing is written."""
        records, repeated = self.commit(items, on_conflict=on_conflict, numbered=numbered)
        if records:
            records = self.index(records, embed=embed, wait=wait, progress=progress)
        return sorted(records + repeated, key=lambda r: r.rowid or 0)

    def commit(
        self,
        items: Iterable[dict[str, Any] | RecordIn],
        *,
        on_conflict: OnTakenId = "idempotent",
        numbered: bool = True,
    ) -> tuple[list[Record], list[Record]]:
        """Validate every item and insert them in one write, without embedding: (the records
        written, in rowid order; the ones an idempotent write found already stored). Inside a
        ``Store.transaction()`` the insert is part of it; ``index`` them once it commits."""
        prepared, given_ids = self.validated(items, numbered=numbered)
        repeated: list[Record] = []
        if on_conflict == "idempotent" and len(prepared) == 1 and given_ids:
            return self.commit_one(prepared[0])
        if on_conflict == "idempotent" and given_ids:
            prepared, repeated = self.without_repeats(prepared, given_ids)
        if not prepared:
            return [], repeated
        on_taken: OnConflict = "skip" if on_conflict == "skip" else "error"
        return self.insert(prepared, on_taken), repeated

    def validated(
        self, items: Iterable[dict[str, Any] | RecordIn], *, numbered: bool
    ) -> tuple[list[tuple[dict[str, Any], str]], list[str]]:
        """Each item's stored fields and lexical tokens, and the ids the items name."""
        prepared: list[tuple[dict[str, Any], str]] = []
        given_ids: list[str] = []
        zone = self.config.calendar.zone()
        for position, item in enumerate(items):
            try:
                valid = validate_record(item, zone=zone)
                prepared.append(self.prepare(valid))
            except ValidationError as exc:
                if not numbered:
                    raise
                raise ValidationError(
                    f"item {position + 1}: {exc.field}", exc.value, exc.fix
                ) from None
            if valid.id:
                given_ids.append(valid.id)
        return prepared, given_ids

    def insert(
        self, prepared: list[tuple[dict[str, Any], str]], on_taken: OnConflict
    ) -> list[Record]:
        """Insert the prepared records; the records as stored, in rowid order (built from
        what was written, not read back: ``rows.inserted_record``)."""
        # the records' facts are read after the acknowledgement (ingest/facts_fill.py): the
        # write marks them as waiting, durably, in its own transaction
        awaiting = self.indexer.facts is not None
        rowids = self.insert_after_last_turn(prepared, on_taken, awaiting)
        if rowids is None:
            rowids = self.store.insert_records(
                self.with_context(prepared), on_conflict=on_taken, awaiting_facts=awaiting
            )
        if self._checks_turn:
            texts = [context_text(fields) for fields, _ in prepared]
            self._last_turns.written(prepared, rowids, texts)
        records = [
            inserted_record(fields, rowid)
            for (fields, _), rowid in zip(prepared, rowids, strict=True)
            if rowid is not None
        ]
        records.sort(key=lambda r: r.rowid or 0)
        return records

    def insert_after_last_turn(
        self, prepared: list[tuple[dict[str, Any], str]], on_taken: OnConflict, awaiting: bool
    ) -> list[int | None] | None:
        """One message whose context is the turn this writer wrote last in its session,
        written without reading that turn first on a store that checks it in the write
        (``ingest/last_turns.py``); None when it was not written this way (write it as usual)."""
        if not self._checks_turn or len(prepared) != 1 or self.config.text.context_turns != 1:
            return None
        store = cast(ContextCheckingStore, self.store)  # _checks_turn says so
        fields, tokens = prepared[0]
        last = self._last_turns.before(fields)
        if last is None:
            return None
        row = (fields, tokens, self.tokens_of(last.lexical_text))
        try:
            rowid = store.insert_assuming(row, last.turn, awaiting_facts=awaiting)
        except ContextMoved:
            self._last_turns.forget(fields["session"])
            return None
        if rowid is None and on_taken == "error":
            raise ConflictError(
                "id",
                fields["id"],
                "a record with this id exists; choose another id or delete the old record first",
            )
        return [rowid]

    def commit_one(self, prepared: tuple[dict[str, Any], str]) -> tuple[list[Record], list[Record]]:
        """One record naming its id, written idempotently (``without_repeats``) without
        asking first whether the id is taken: the insert skips a taken id, and only then is
        the stored record read and compared. Nothing else is in the write, so a skip leaves
        the store as it was, as the check before the write did (one statement fewer, a
        round trip to a PostgreSQL server, on every write)."""
        written = self.insert([prepared], "skip")
        if written:
            return written, []
        fields = prepared[0]
        old = self.store.get(fields["id"])
        if old is None:  # deleted since the insert found it: write it now
            return self.insert([prepared], "error"), []
        self.check_same(fields, old)
        return [], [old]

    def index(
        self,
        records: list[Record],
        *,
        embed: bool,
        wait: bool | None = None,
        progress: Progress | None = None,
    ) -> list[Record]:
        """Embed committed records now (``wait``, or ``indexing.mode = "sync"``) or hand them
        to the queue, and owe their facts to the facts fill (read after this returns);
        returns them in rowid order, re-read when they were embedded."""
        if wait is None:
            wait = self.config.indexing.mode == "sync"
        skipped = [r for r in records if r.index_status == "skipped"]
        records = [r for r in records if r.index_status != "skipped"]
        if self.indexer.facts is not None:  # embedded or not: every write owes its facts
            self.indexer.facts.owe([r.rowid for r in records if r.rowid is not None])
        if embed and records and wait:
            done, failed = self.indexer.embed_records(records, progress=progress)
            if done or failed:  # their status changed (without a model nothing did)
                fresh = self.store.get_by_rowids([r.rowid for r in records if r.rowid])
                records = [fresh.get(r.rowid, r) if r.rowid else r for r in records]
        else:
            if embed and records:
                self.indexer.submit([r.rowid for r in records if r.rowid is not None])
            if progress:
                progress(len(records))
        return sorted(records + skipped, key=lambda r: r.rowid or 0)

    def without_repeats(
        self, prepared: list[tuple[dict[str, Any], str]], given_ids: list[str]
    ) -> tuple[list[tuple[dict[str, Any], str]], list[Record]]:
        """Writes that name their id are idempotent: an item whose id is already stored with
        the same kind, scope, session and text is that record, sent again (a retry, or a
        script run twice), and is not written again. An id that holds anything else is a
        conflict, and nothing is written."""
        stored = {
            r.id: r for r in self.store.get_by_rowids(self.store.rowids_for_ids(given_ids)).values()
        }
        if not stored:
            return prepared, []
        fresh, repeated = [], []
        for fields, tokens in prepared:
            old = stored.get(fields["id"])
            if old is None:
                fresh.append((fields, tokens))
                continue
            self.check_same(fields, old)
            repeated.append(old)
        return fresh, repeated

    @staticmethod
    def check_same(fields: dict[str, Any], old: Record) -> None:
        """Raise ConflictError unless the stored record under this id is this one, sent
        again (same kind, scope, session and text)."""
        new = (fields["kind"], fields["scope"], fields.get("session"), fields["content_hash"])
        if new != (old.kind, old.scope, old.session, old.content_hash):
            raise ConflictError(
                "id",
                fields["id"],
                "a record with this id exists and holds something else; choose another "
                "id or delete the old record first",
            )

    def with_context(self, prepared: list[tuple[dict[str, Any], str]]) -> list[RecordRow]:
        """Add each message's context tokens: the lexical text of the ``text.context_turns``
        turns before it in its session (from this batch, else from the store)."""
        n = self.config.text.context_turns
        if n <= 0:
            return [(f, t, "") for f, t in prepared]
        by_session: dict[str, list[dict[str, Any]]] = {}
        for fields, _ in prepared:
            if (
                fields["kind"] == "message"
                and fields.get("session")
                and fields["index_status"] != "skipped"
            ):
                by_session.setdefault(fields["session"], []).append(fields)
        context: dict[int, str] = {}
        for session, items in by_session.items():
            items.sort(key=lambda f: f["created_at"])
            earlier = [
                lexical_text("message", r.speaker_label, r.shown_text)
                for r in self.store.previous_texts(session, items[0]["created_at"], n)
            ]
            for fields in items:
                joined = " ".join(earlier[-n:])
                context[id(fields)] = self.tokens_of(joined) if joined else ""
                earlier.append(context_text(fields))
        return [(f, t, context.get(id(f), "")) for f, t in prepared]

    def rewrite(
        self, session: str, timestamp: float | str, new_text: str, visible_text: str | None
    ) -> Record:
        """Replace the content of the message a session holds at ``timestamp``; see
        ``Memory.rewrite``."""
        if not isinstance(new_text, str) or not new_text.strip():
            raise ValidationError("new_text", new_text, "give the message's new, non-empty text")
        if visible_text is not None and (
            not isinstance(visible_text, str) or not visible_text.strip()
        ):
            raise ValidationError(
                "visible_text",
                visible_text,
                "give the non-empty text a person sees, or leave it out",
            )
        try:
            when = parse_time(timestamp, self.config.calendar.zone())
        except ValueError:
            raise ValidationError("timestamp", timestamp, "use the message's Unix time") from None
        record = self.store.find_message(session, when) if when is not None else None
        if record is None or record.rowid is None:
            raise NotFoundError(f"no message in session {session!r} at {timestamp!r}")
        tokens = ""
        if record.index_status != "skipped":
            text = lexical_text(record.kind, record.speaker_label, visible_text or new_text)
            tokens = self.tokenizer.index_string(text)
        self.store.update_text(
            TextUpdate(record.rowid, new_text, content_hash(new_text), tokens, visible_text)
        )
        if record.index_status == "indexed":
            if self.config.indexing.mode == "sync":
                self.indexer.embed_rowids([record.rowid])
            else:
                self.indexer.submit([record.rowid])
        updated = self.store.get(record.id)
        assert updated is not None
        return updated
