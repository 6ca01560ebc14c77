"""Writing one curated memory: dedup, then store, then supersede (shared by auto-capture,
the ``memory_store`` tool and session summaries).

Dedup runs in order: the exact text, the normalised text (case, width, punctuation, spaces,
Traditional/Simplified folded), then vector similarity (``capture.dedup_similarity``) within
the target scope. If the duplicate check itself fails the memory is stored anyway and a
warning says so (fail open: losing a memory is worse than a duplicate).

Updates lose nothing: a memory about the same subject as an older current one from the same
speaker in the same scope ("I moved to Berlin" after "I live in Paris") closes the older one
(``valid_to``) and links both ways (``supersedes`` / ``superseded_by`` in the metadata).
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
import unicodedata
from dataclasses import dataclass, field

from remem.errors import RememError
from remem.ports import MemoryPort
from remem.schemas import content_hash
from remem.scopes import Access, ScopeGuard
from remem.store.base import Store
from remem.text.normalize import to_simplified
from remem.text.triggers import subject_key
from remem.types import Filters, Record

log = logging.getLogger("remem.capture")

_PUNCT = re.compile(r"[\W_]+", re.UNICODE)


def normalised(text: str) -> str:
    folded = to_simplified(unicodedata.normalize("NFKC", text)).casefold()
    return _PUNCT.sub("", folded)


def norm_hash(text: str) -> str:
    return hashlib.sha256(normalised(text).encode("utf-8")).hexdigest()


@dataclass
class StoreOutcome:
    record: Record | None = None  # the new memory (None when a duplicate)
    duplicate_of: Record | None = None
    duplicate_how: str | None = None
    superseded: list[Record] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def find_equal(store: Store, text: str, scope: str, now: float) -> tuple[Record, str] | None:
    """A current memory of ``scope`` with the same text ("exact") or the same normalised text
    ("normalised"); ``Memory.add`` stops here, ``memory_store`` goes on to similar vectors."""
    exact = store.current_memories(scope, now, content_hash=content_hash(text), limit=1)
    if exact:
        return exact[0], "exact"
    similar = store.current_memories(scope, now, metadata_equals=("norm", norm_hash(text)), limit=1)
    if similar:
        return similar[0], "normalised"
    return None


def find_duplicate(mem: MemoryPort, text: str, scope: str, now: float) -> tuple[Record, str] | None:
    equal = find_equal(mem.store, text, scope, now)
    if equal is not None:
        return equal
    threshold = mem.config.capture.dedup_similarity
    result = mem.search(
        text,
        k=1,
        filters=Filters(kinds=["memory"], scopes=[scope], include_superseded=False),
        now=now,
        channels=("vector",),
    )
    if result.degraded or not result.hits:
        return None
    hit = result.hits[0]
    cosine = hit.explain.vector_score
    if cosine is not None and cosine >= threshold:
        return hit.record, f"similar ({cosine:.3f})"
    return None


def store_memory(
    mem: MemoryPort,
    access: Access,
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
) -> StoreOutcome:
    """Dedup, store and supersede one memory in ``scope`` (which the caller has checked
    ``access`` may write)."""
    ScopeGuard(access).check_write(scope)
    now = time.time() if now is None else now
    out = StoreOutcome()
    try:
        dup = find_duplicate(mem, text, scope, now)
    except RememError as exc:
        dup = None
        message = f"duplicate check failed ({exc}); stored anyway"
        out.warnings.append(message)
        log.warning(message)
    if dup is not None:
        out.duplicate_of, out.duplicate_how = dup
        return out
    subject = subject or subject_key(text)
    meta = dict(metadata or {})
    meta["norm"] = norm_hash(text)
    if subject:
        meta["subject"] = subject
    if role == "assistant":
        meta["said_by"] = "assistant"  # never a fact the user stated
    older = []
    if subject and mem.config.capture.supersede:
        older = mem.store.current_memories(
            scope, now, metadata_equals=("subject", subject), speaker_id=speaker_id
        )
        if older:
            meta["supersedes"] = [r.id for r in older]
    record = mem.add(
        text,
        dedup=False,  # checked above, vectors included
        scope=scope,
        category=category,
        importance=importance,
        role=role,
        speaker_id=speaker_id,
        source_ids=list(source_ids or []),
        metadata=meta,
        created_at=now,
        valid_from=now,
    )
    out.record = record
    try:
        for old in older:
            assert old.rowid is not None
            old_meta = {**old.metadata, "superseded_by": record.id}
            mem.store.set_validity(old.rowid, now, old_meta)
            out.superseded.append(old)
    except Exception:
        # all or nothing: reopen what was closed and take the new memory back
        for old in out.superseded:
            assert old.rowid is not None
            mem.store.set_validity(old.rowid, old.valid_to, old.metadata)
        mem.delete(record.id)
        raise
    return out
