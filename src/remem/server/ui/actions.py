"""The web UI's changes to memories. Nothing is overwritten in place:

- an edit (text, scope, importance or category) stores a new version that ``supersedes`` the
  old one, and closes the old one (``valid_to``, ``superseded_by``): the same links automatic
  supersession makes, so ``Memory.history`` shows the chain and ``Memory.undo`` reverses it;
- undo and delete go through ``Memory.undo`` / ``Memory.delete``.

Access is checked here, with the caller's ``Caller`` from the REST API: every record an action
touches must be one the caller may read and write. A record it may not read is answered like a
missing one.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from remem.capture.remember import norm_hash
from remem.errors import NotFoundError, ValidationError
from remem.types import Record

# Metadata that belongs to one version's place in the chain, not to the fact: a new version
# starts without it.
_CHAIN_KEYS = ("supersedes", "superseded_by", "restored_from", "undone", "norm", "edited_by")


def visible(mem, caller, record_id: str) -> Record:
    """The record, if the caller may read it; else NotFoundError, the same as a missing id."""
    rec = mem.get(record_id)
    scopes = caller.scopes(mem)
    if rec is None or (scopes is not None and rec.scope not in scopes):
        raise NotFoundError(f"no record {record_id!r}")
    return rec


def visible_memory(mem, caller, record_id: str) -> Record:
    rec = visible(mem, caller, record_id)
    if rec.kind != "memory":
        raise NotFoundError(f"no memory with id {record_id!r}")
    return rec


def history(mem, caller, memory_id: str) -> list[Record]:
    """The version chain, oldest first, without versions the caller may not read."""
    visible_memory(mem, caller, memory_id)
    scopes = caller.scopes(mem)
    return [r for r in mem.history(memory_id) if scopes is None or r.scope in scopes]


def edit(
    mem,
    caller,
    memory_id: str,
    *,
    text: str | None = None,
    scope: str | None = None,
    importance: Any = None,
    category: str | None = None,
    now: float | None = None,
) -> Record:
    """Store a new version of a current memory with the given fields changed; returns it."""
    old = visible_memory(mem, caller, memory_id)
    now = time.time() if now is None else now
    if old.valid_to is not None and old.valid_to <= now:
        raise ValidationError(
            "memory_id",
            memory_id,
            "this version was replaced; edit the current one (see its history)",
        )
    changes = {
        "text": text if text is not None else old.text,
        "scope": scope or old.scope,
        "importance": old.importance if importance in (None, "") else importance,
        "category": category if category not in (None, "") else old.category,
    }
    if (
        changes["text"] == old.text
        and changes["scope"] == old.scope
        and changes["category"] == old.category
        and _same_number(changes["importance"], old.importance)
    ):
        raise ValidationError(
            "text", text, "change the text, scope, importance or category to make a new version"
        )
    caller.check_write(mem, old.scope)
    caller.check_write(mem, changes["scope"])
    meta = {k: v for k, v in old.metadata.items() if k not in _CHAIN_KEYS}
    meta.update(
        supersedes=[old.id],
        norm=norm_hash(str(changes["text"])),
        edited_by=f"ui:{caller.agent or 'operator'}",
    )
    new = mem.add(
        changes["text"],
        dedup=False,  # a new version of this memory, which may keep its text
        scope=changes["scope"],
        importance=changes["importance"],
        category=changes["category"],
        role=old.role,
        speaker_id=old.speaker_id,
        speaker_label=old.speaker_label,
        session=old.session,
        platform=old.platform,
        source_ids=list(old.source_ids),
        metadata=meta,
        created_at=now,
        valid_from=now,
    )
    assert old.rowid is not None
    try:
        mem.store.set_validity(old.rowid, now, {**old.metadata, "superseded_by": new.id})
    except Exception:
        mem.delete(new.id)  # all or nothing: never two current versions
        raise
    return new


def _same_number(value: Any, current: float) -> bool:
    try:
        return abs(float(value) - current) < 1e-9
    except (TypeError, ValueError):
        return False  # not a number: let validation name it


def undo(mem, caller, memory_id: str) -> list[Record]:
    """``Memory.undo``, after checking that the caller may write every version it changes."""
    rec = visible_memory(mem, caller, memory_id)
    touched = [rec]
    successor = rec.metadata.get("superseded_by")
    if successor and rec.valid_to is not None:
        touched.append(visible_memory(mem, caller, successor))
    else:
        touched += [visible_memory(mem, caller, i) for i in rec.metadata.get("supersedes") or []]
    for r in touched:
        caller.check_write(mem, r.scope)
    return mem.undo(memory_id)


def delete(mem, caller, record_id: str) -> Record:
    rec = visible(mem, caller, record_id)
    caller.check_write(mem, rec.scope)
    mem.delete(rec.id)
    return rec


def delete_many(mem, caller, ids: list[str]) -> int:
    """Delete records the caller may write; ids it may not see are refused like missing."""
    records = [visible(mem, caller, i) for i in ids]
    for rec in records:
        caller.check_write(mem, rec.scope)
    return mem.delete([r.id for r in records])


class Backfill:
    """One background ``Memory.embed_pending`` run at a time (the overview's button)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.running = False
        self.last: dict[str, int] | None = None
        self.error: str | None = None

    def start(self, mem) -> bool:
        """Start a run unless one is going; returns whether one was started."""
        with self._lock:
            if self.running:
                return False
            self.running = True
        threading.Thread(
            target=self._run, args=(mem,), daemon=True, name="remem-ui-backfill"
        ).start()
        return True

    def _run(self, mem) -> None:
        try:
            self.last = mem.embed_pending()
            self.error = None
        except Exception as exc:  # shown on the overview; the records stay pending
            self.error = str(exc)
        finally:
            with self._lock:
                self.running = False
