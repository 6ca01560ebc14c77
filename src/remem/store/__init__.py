"""Storage backends behind one protocol. SQLite is the embedded default and the source of
truth; ``InMemoryStore`` is the reference implementation the conformance tests share."""

from remem.store.base import Store
from remem.store.memory import InMemoryStore
from remem.store.sqlite import SQLiteStore

__all__ = ["InMemoryStore", "SQLiteStore", "Store"]
