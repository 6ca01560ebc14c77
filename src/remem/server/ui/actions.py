"""The web UI's changes to memories. Nothing is overwritten in place:

- an edit (text, scope, importance or category) stores a new version that ``supersedes`` the
  old one, and closes the old one (``valid_to``, ``superseded_by``), in one store transaction:
  ``CuratedMemories.edit`` (``remem.memories``), which automatic supersession shares, so the
  history shows the chain and undo reverses it;
- undo goes through ``CuratedMemories.undo``, delete through ``Memory.delete``.

Access is checked here, with the caller's ``Caller`` from the REST API: every record an action
touches must be one the caller may read and write. A record it may not read is answered like a
missing one.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from remem.errors import NotFoundError, ValidationError
from remem.types import Record

if TYPE_CHECKING:
    from remem.engine import Memory


def visible(mem: Memory, caller, record_id: str) -> Record:
    """The record, if the caller may read it; else NotFoundError, the same as a missing id."""
    return caller.guard(mem).visible(mem.get(record_id), f"record {record_id!r}")


def visible_memory(mem: Memory, caller, record_id: str) -> Record:
    rec = visible(mem, caller, record_id)
    if rec.kind != "memory":
        raise NotFoundError(f"no memory with id {record_id!r}")
    return rec


def history(mem: Memory, caller, memory_id: str) -> list[Record]:
    """The version chain, oldest first, without versions the caller may not read."""
    visible_memory(mem, caller, memory_id)
    return caller.guard(mem).filter(mem.memories.history(memory_id))


def edit(
    mem: Memory,
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
    mem.memories.check_current(old, now)
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
    return mem.memories.edit(old, changes, edited_by=f"ui:{caller.agent or 'operator'}", now=now)


def _same_number(value: Any, current: float) -> bool:
    try:
        return abs(float(value) - current) < 1e-9
    except (TypeError, ValueError):
        return False  # not a number: let validation name it


def undo(mem: Memory, caller, memory_id: str) -> list[Record]:
    """``CuratedMemories.undo``, after checking that the caller may write every version it
    changes."""
    rec = visible_memory(mem, caller, memory_id)
    caller.check_write(mem, rec.scope)
    to_close, to_reopen = mem.memories.undo_plan(rec)
    for r in [to_close, *to_reopen]:
        caller.check_write(mem, visible_memory(mem, caller, r.id).scope)
    return mem.memories.undo(memory_id)


def delete(mem: Memory, caller, record_id: str) -> Record:
    rec = visible(mem, caller, record_id)
    caller.check_write(mem, rec.scope)
    mem.delete(rec.id)
    return rec


def delete_many(mem: Memory, caller, ids: list[str]) -> int:
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

    def start(self, mem: Memory) -> bool:
        """Start a run unless one is going; returns whether one was started."""
        with self._lock:
            if self.running:
                return False
            self.running = True
        threading.Thread(
            target=self._run, args=(mem,), daemon=True, name="remem-ui-backfill"
        ).start()
        return True

    def _run(self, mem: Memory) -> None:
        try:
            self.last = mem.embed_pending()
            self.error = None
        except Exception as exc:  # shown on the overview; the records stay pending
            self.error = str(exc)
        finally:
            with self._lock:
                self.running = False
