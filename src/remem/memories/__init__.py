"""Curated memories: the facts, preferences and decisions worth keeping, as versions.

``CuratedMemories`` (``versions``) owns their writes and versions: dedup (``dedup``),
supersession, edits, undo and history (``chain``), each write one store transaction.
``Memory.memories`` is the instance over a ``Memory``'s store; capture, the tools, the web UI,
the REST routes and the CLI all go through it.
"""

from remem.memories.dedup import norm_hash, normalised
from remem.memories.versions import CHAIN_KEYS, CuratedMemories, StoreOutcome

__all__ = ["CHAIN_KEYS", "CuratedMemories", "StoreOutcome", "norm_hash", "normalised"]
