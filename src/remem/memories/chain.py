"""The version chain of a curated memory, and which versions undoing an update touches.

``supersedes`` / ``superseded_by`` (and ``restored_from``, left by an undo) in each memory's
metadata link the versions. Undo reverses the update that replaced a memory: given a
superseded version, it is reopened and the version that replaced it is closed (marked
``undone``, still in the history); given the current version, the versions it replaced are
reopened and it is closed. Nothing is deleted either way.
"""

from __future__ import annotations

from remem.errors import NotFoundError, ValidationError
from remem.store.base import Store
from remem.types import Record

# How many versions a history walk reads at most (a guard against a corrupt, looping chain).
MAX_VERSIONS = 500


def memory(store: Store, memory_id: str) -> Record:
    rec = store.get(memory_id)
    if rec is None or rec.kind != "memory":
        raise NotFoundError(f"no memory with id {memory_id!r}")
    return rec


def history(store: Store, memory_id: str) -> list[Record]:
    """Every version linked to this one, oldest first, whichever version is asked about."""
    start = memory(store, memory_id)
    chain: dict[str, Record] = {start.id: start}
    todo = [start]
    while todo and len(chain) < MAX_VERSIONS:
        rec = todo.pop()
        links = list(rec.metadata.get("supersedes") or [])
        for key in ("superseded_by", "restored_from"):
            if rec.metadata.get(key):
                links.append(rec.metadata[key])
        for link in links:
            if isinstance(link, str) and link not in chain:
                other = store.get(link)
                if other is not None:
                    chain[link] = other
                    todo.append(other)
    return sorted(chain.values(), key=lambda r: (r.created_at, r.rowid or 0))


def undo_plan(store: Store, rec: Record) -> tuple[Record, list[Record]]:
    """(the version an undo around ``rec`` closes, the versions it makes current again)."""
    successor_id = rec.metadata.get("superseded_by")
    if successor_id and rec.valid_to is not None:
        newer = store.get(successor_id)
        if newer is None:
            raise NotFoundError(
                f"memory {rec.id!r} was replaced by {successor_id!r}, which no longer exists"
            )
        return newer, [rec]
    if rec.metadata.get("supersedes") and rec.valid_to is None:
        return rec, [r for r in (store.get(i) for i in rec.metadata["supersedes"]) if r]
    raise ValidationError(
        "memory_id",
        rec.id,
        "this memory neither replaced another nor was replaced; there is no update to undo",
    )
