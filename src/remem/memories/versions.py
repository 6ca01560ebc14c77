"""``CuratedMemories``: the one owner of curated-memory versions.

Every write of a curated memory comes here: ``Memory.add`` (the REST route, the CLI), the
``memory_store`` tool, auto-capture and session summaries (``remember``), the web UI's edit,
and undo. Each write is one ``Store.transaction()``: the new version and the closing of the
versions it replaces commit together or not at all, so a store never holds two current
versions of one subject, nor a closed version whose successor is missing, even when the
process dies halfway. The slow parts stay outside the transaction: the vector duplicate check
(it embeds the text) before it, embedding the new version after it commits.

Its collaborators are passed in (the store, the write path, the searcher for the vector
duplicate check, the configuration); it never calls back into ``Memory``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from remem.access import Access, check_write
from remem.config import Config
from remem.errors import RememError, ValidationError
from remem.ingest.write_path import RecordWriter
from remem.memories import chain, statements, subjects
from remem.memories.dedup import find_equal, find_similar, norm_hash
from remem.schemas import RecordIn, validate_record
from remem.search.pipeline import Searcher
from remem.store.base import MemoryMatch, Store
from remem.text.assertion import not_a_statement
from remem.types import Record, StoredMemory

log = logging.getLogger("remem.capture")

# Metadata that belongs to one version's place in the chain, not to the fact: a new version
# made by an edit starts without it.
CHAIN_KEYS = ("supersedes", "superseded_by", "restored_from", "undone", "norm", "edited_by")


@dataclass
class StoreOutcome:
    record: Record | None = None  # the new memory (None when a duplicate)
    duplicate_of: Record | None = None
    duplicate_how: str | None = None
    superseded: list[Record] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class CuratedMemories:
    """Dedup, supersede, edit, undo and history of curated memories over one store."""

    def __init__(
        self,
        store: Store,
        writer: RecordWriter,
        searcher: Searcher,
        config: Config,
        on_change: Callable[[Sequence[Record]], None] | None = None,
    ) -> None:
        self.store = store
        self.writer = writer
        self.searcher = searcher
        self.config = config
        # after each committed write, with the versions it wrote, closed or reopened (the
        # facts' update: an edit or undo changes what is true); must not raise
        self.on_change = on_change

    def _changed(self, records: Sequence[Record]) -> None:
        if self.on_change is not None and records:
            self.on_change(records)

    # ------------------------------------------------------------------ writes
    def add(
        self, item: RecordIn, *, dedup: bool, embed: bool = True, wait: bool | None = None
    ) -> StoredMemory:
        """Store one validated memory as given (``Memory.add``). With ``dedup``, a current
        memory of the scope with the same text, exactly or normalised, is returned instead
        and nothing is written."""
        if "norm" not in item.metadata:  # what later normalised-text dedup compares
            item = item.model_copy(
                update={"metadata": {**item.metadata, "norm": norm_hash(item.text)}}
            )
        with self.store.transaction():
            if dedup:
                equal = find_equal(self.store, item.text, item.scope, time.time())
                if equal is not None:
                    return StoredMemory.of(*equal)
            records, repeated = self.writer.commit([item], numbered=False)
        stored = self.writer.index(records, embed=embed, wait=wait) if records else repeated
        self._changed(records)
        return StoredMemory.of(stored[0])

    def remember(
        self,
        access: Access | None,
        text: str,
        *,
        scope: str,
        category: str,
        importance: float,
        role: str | None = "user",
        speaker_id: str | None = None,
        source_ids: list[str] | None = None,
        subject: str | None = None,
        metadata: dict | None = None,
        now: float | None = None,
        similar: bool = True,
    ) -> StoreOutcome:
        """Dedup (exact, normalised, then similar vectors unless ``similar`` is off), store,
        and close the current
        memories of the same subject from the same speaker in ``scope`` (linked both ways:
        ``supersedes`` / ``superseded_by``). If the duplicate check itself fails the memory
        is stored anyway and a warning says so (losing a memory is worse than a duplicate).
        ``access`` None: the local operator, who may write anywhere."""
        check_write(access, scope)
        now = time.time() if now is None else now
        out = StoreOutcome()
        dup = self._duplicate(text, scope, now, out.warnings, similar)
        if dup is not None:
            out.duplicate_of, out.duplicate_how = dup
            return out
        # a question, a hedge, a quote ... closes nothing, whoever named its subject (an LLM
        # extractor or a caller may pass one): only an assertion replaces a memory
        said = statements.Said(None)
        if not_a_statement(text) is None:
            said = statements.read(text, role=role, speaker_id=speaker_id, scope=scope, now=now)
        subject = (subject or said.subject) if not_a_statement(text) is None else None
        meta = dict(metadata or {})
        meta["norm"] = norm_hash(text)
        if subject:
            meta["subject"] = subject
        if said.value and not said.negation:
            meta["fact_value"] = said.value  # what a later negation of this value matches
        if role == "assistant":
            meta["said_by"] = "assistant"  # never a fact the user stated
        meta.update(subjects.about(text, role, speaker_id))  # whose fact: recall asks
        fields = {"scope": scope, "category": category, "importance": importance, "role": role}
        fields.update(speaker_id=speaker_id, source_ids=list(source_ids or []), metadata=meta)
        item = self._item(text, fields, now)
        with self.store.transaction():
            # a writer that committed since the check above, e.g. the same turn captured twice
            equal = self._equal(text, scope, now, out.warnings)
            if equal is not None:
                out.duplicate_of, out.duplicate_how = equal
                return out
            older: list[Record] = []
            if subject and self.config.capture.supersede:
                older = self.store.current_memories(
                    MemoryMatch(
                        scope, now, metadata_equals=("subject", subject), speaker_id=speaker_id
                    )
                )
                older = statements.denied(said, older)
            if older:
                meta = {**item.metadata, "supersedes": [r.id for r in older]}
                item = item.model_copy(update={"metadata": meta})
            records, _ = self.writer.commit([item], numbered=False)
            for old in older:
                self._close(old, now, {"superseded_by": records[0].id})
        out.superseded = older
        out.record = StoredMemory.of(self.writer.index(records, embed=True)[0])
        self._changed([*records, *older])
        return out

    def edit(
        self, old: Record, changes: Mapping[str, Any], *, edited_by: str, now: float | None = None
    ) -> StoredMemory:
        """Store a new version of the current memory ``old`` with ``changes`` (text, scope,
        importance, category, each given) and close ``old``: the links automatic supersession
        makes, so history shows the chain and undo reverses it."""
        now = time.time() if now is None else now
        self.check_current(old, now)
        meta = {k: v for k, v in old.metadata.items() if k not in CHAIN_KEYS}
        meta.update(supersedes=[old.id], norm=norm_hash(str(changes["text"])), edited_by=edited_by)
        fields = {k: changes[k] for k in ("scope", "importance", "category")}
        fields.update(role=old.role, speaker_id=old.speaker_id, speaker_label=old.speaker_label)
        fields.update(session=old.session, platform=old.platform, source_ids=list(old.source_ids))
        item = self._item(changes["text"], {**fields, "metadata": meta}, now)
        with self.store.transaction():
            current = chain.memory(self.store, old.id)  # as it is now, not as it was read
            self.check_current(current, now)
            records, _ = self.writer.commit([item], numbered=False)
            self._close(current, now, {"superseded_by": records[0].id})
        stored = StoredMemory.of(self.writer.index(records, embed=True)[0])
        self._changed([current, *records])  # the old text's chains and the new one's
        return stored

    def undo(self, memory_id: str, now: float | None = None) -> list[Record]:
        """Undo the update around ``memory_id`` (see ``remem.memories.chain``); returns the
        versions that are current again."""
        now = time.time() if now is None else now
        with self.store.transaction():
            to_close, to_reopen = chain.undo_plan(self.store, chain.memory(self.store, memory_id))
            self._close(to_close, now, {"undone": True})
            for old in to_reopen:
                assert old.rowid is not None
                meta = {k: v for k, v in old.metadata.items() if k != "superseded_by"}
                meta["restored_from"] = to_close.id
                self.store.set_validity(old.rowid, None, meta)
            restored = [self.store.get(old.id) for old in to_reopen]
        back = [r for r in restored if r is not None]
        self._changed([to_close, *back])
        return back

    # ------------------------------------------------------------------ reads
    def history(self, memory_id: str) -> list[Record]:
        """Every version of a memory, oldest first."""
        return chain.history(self.store, memory_id)

    def undo_plan(self, rec: Record) -> tuple[Record, list[Record]]:
        """(the version undoing around ``rec`` would close, the ones it would reopen), for a
        caller that checks it may write each of them first."""
        return chain.undo_plan(self.store, rec)

    @staticmethod
    def check_current(rec: Record, now: float) -> None:
        """Refuse to make a new version of a version that was replaced."""
        if rec.valid_to is not None and rec.valid_to <= now:
            raise ValidationError(
                "memory_id",
                rec.id,
                "this version was replaced; edit the current one (see its history)",
            )

    # ------------------------------------------------------------------ helpers
    def _item(self, text: Any, fields: dict[str, Any], now: float) -> RecordIn:
        data = {"text": text, **fields, "kind": "memory", "created_at": now, "valid_from": now}
        return validate_record(data, zone=self.config.calendar.zone())

    def _close(self, rec: Record, now: float, links: dict[str, Any]) -> None:
        assert rec.rowid is not None
        self.store.set_validity(rec.rowid, now, {**rec.metadata, **links})

    def _duplicate(
        self, text: str, scope: str, now: float, warnings: list[str], similar: bool = True
    ) -> tuple[Record, str] | None:
        equal = self._equal(text, scope, now, warnings)
        if equal is not None or warnings or not similar:
            return equal
        try:
            threshold = self.config.capture.dedup_similarity
            return find_similar(self.searcher, text, scope, now, threshold)
        except RememError as exc:
            self._check_failed(exc, warnings)
            return None

    def _equal(
        self, text: str, scope: str, now: float, warnings: list[str]
    ) -> tuple[Record, str] | None:
        try:
            return find_equal(self.store, text, scope, now)
        except RememError as exc:
            self._check_failed(exc, warnings)
            return None

    @staticmethod
    def _check_failed(exc: RememError, warnings: list[str]) -> None:
        """Fail open, once: a duplicate is better than a lost memory."""
        if not warnings:
            message = f"duplicate check failed ({exc}); stored anyway"
            warnings.append(message)
            log.warning(message)
