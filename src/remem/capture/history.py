"""The version chain of a memory, and undoing an update.

``supersedes`` / ``superseded_by`` in each memory's metadata link the versions. ``history``
returns the chain oldest first, whichever version it is asked about. ``undo`` reverses the
update that replaced a memory: given a superseded version, it is reopened and the version that
replaced it is closed (marked ``undone``, still in the history); given the current version, the
versions it replaced are reopened and it is closed. Nothing is deleted either way.
"""

from __future__ import annotations

import time

from remem.errors import NotFoundError, ValidationError
from remem.ports import MemoryPort
from remem.types import Record


def _memory(mem: MemoryPort, memory_id: str) -> Record:
    rec = mem.get(memory_id)
    if rec is None or rec.kind != "memory":
        raise NotFoundError(f"no memory with id {memory_id!r}")
    return rec


def history(mem: MemoryPort, memory_id: str) -> list[Record]:
    start = _memory(mem, memory_id)
    chain: dict[str, Record] = {start.id: start}
    todo = [start]
    while todo and len(chain) < 500:
        rec = todo.pop()
        links = list(rec.metadata.get("supersedes") or [])
        for key in ("superseded_by", "restored_from"):
            if rec.metadata.get(key):
                links.append(rec.metadata[key])
        for link in links:
            if isinstance(link, str) and link not in chain:
                other = mem.get(link)
                if other is not None:
                    chain[link] = other
                    todo.append(other)
    return sorted(chain.values(), key=lambda r: (r.created_at, r.rowid or 0))


def undo(mem: MemoryPort, memory_id: str, now: float | None = None) -> list[Record]:
    """Undo the update around ``memory_id``; returns the versions that are current again."""
    now = time.time() if now is None else now
    rec = _memory(mem, memory_id)
    successor_id = rec.metadata.get("superseded_by")
    if successor_id and rec.valid_to is not None:
        newer = mem.get(successor_id)
        if newer is None:
            raise NotFoundError(
                f"memory {memory_id!r} was replaced by {successor_id!r}, which no longer exists"
            )
        to_close, to_reopen = newer, [rec]
    elif rec.metadata.get("supersedes") and rec.valid_to is None:
        to_close = rec
        to_reopen = [r for r in (mem.get(i) for i in rec.metadata["supersedes"]) if r]
    else:
        raise ValidationError(
            "memory_id",
            memory_id,
            "this memory neither replaced another nor was replaced; there is no update to undo",
        )
    assert to_close.rowid is not None
    mem.store.set_validity(to_close.rowid, now, {**to_close.metadata, "undone": True})
    restored = []
    for old in to_reopen:
        assert old.rowid is not None
        meta = {k: v for k, v in old.metadata.items() if k != "superseded_by"}
        meta["restored_from"] = to_close.id
        mem.store.set_validity(old.rowid, None, meta)
        restored.append(mem.get(old.id))
    return [r for r in restored if r is not None]
