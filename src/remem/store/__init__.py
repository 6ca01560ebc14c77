"""Storage backends. SQLite is the embedded default and the source of truth."""

from remem.store.base import Store
from remem.store.sqlite import SQLiteStore

__all__ = ["SQLiteStore", "Store"]
