"""The in-memory store: the whole ``Store`` protocol in plain Python (and numpy for vectors),
written only against the protocol. Fast unit tests use it; the conformance suite in
``tests/store`` holds it and the SQLite store to the same behaviour.

Nothing persists: ``path`` is None and closing drops nothing but the right to use it. One
lock guards everything; every write validates first and then applies, so an error leaves the
store unchanged. Rowids and vector sequence numbers only grow (never reused).
"""

from __future__ import annotations

from remem.store.memory.changes import ChangesMixin
from remem.store.memory.dashboard import DashboardMixin
from remem.store.memory.facts import FactsMixin
from remem.store.memory.latent import LatentMixin
from remem.store.memory.lexical import LexicalMixin
from remem.store.memory.maintenance import MaintenanceMixin
from remem.store.memory.vectors import VectorsMixin


class InMemoryStore(
    ChangesMixin,
    LexicalMixin,
    VectorsMixin,
    LatentMixin,
    FactsMixin,
    MaintenanceMixin,
    DashboardMixin,
):
    """Records, sessions, a BM25 index, vectors, facts and meta, all in this process's memory."""


__all__ = ["InMemoryStore"]
