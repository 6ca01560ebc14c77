"""Vector search over a store's vectors (derived and rebuildable, never the only copy)."""

from remem.index.exact import ExactIndex

__all__ = ["ExactIndex"]
