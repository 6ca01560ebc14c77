"""Vector search over a store's vectors (derived and rebuildable, never the only copy)."""

from remem.index.exact import ExactIndex
from remem.index.filtered import FilteredVectorIndex
from remem.index.vector import VectorIndex

__all__ = ["ExactIndex", "FilteredVectorIndex", "VectorIndex"]
