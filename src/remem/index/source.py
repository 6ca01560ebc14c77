"""What a snapshot vector index needs from a store: a few ``VectorStore`` methods.

The index is derived data: it reads one model's vectors from the store, never writes them. It
needs five things, all cheap except the full read:

- a change token that moves whenever anyone commits (a search that sees the same token skips
  every other question);
- the state of one model's vectors: the highest sequence number (every insert takes a new one,
  a replaced vector too) and the delete counter (bumped by every delete of records or vectors);
- the vectors with a sequence number above N, as one contiguous float32 matrix;
- the rowids of the vectors still present up to sequence N (asked only after a delete);
- the vectors of a few records (probes, asked when a snapshot is opened).

Every ``Store`` answers them (the SQLite store reads a full matrix on a connection of its own,
so a background build never holds up searches). The reads are declared once, as the store's
``SnapshotReads`` protocol; these protocols add the change token an index asks first.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Protocol

from remem.store.base import IndexMetaRow, SnapshotReads, VectorRows, VectorState
from remem.store.queries import Allocate

# The index's name for one read of vectors (rowids[i] is the record of matrix[i]).
VectorBatch = VectorRows


class FilterSource(Protocol):
    """The records' filter columns as a vector index keeps them (``FilteredVectorIndex``)."""

    def change_token(self) -> Hashable: ...
    def filter_rows(self, after_rev: int) -> tuple[list[IndexMetaRow], int]: ...


class VectorSource(SnapshotReads, Protocol):
    """The store as a vector index sees it (one model, one dimension at a time): its
    ``SnapshotReads`` and the change token."""

    def change_token(self) -> Hashable: ...


__all__ = ["Allocate", "FilterSource", "VectorBatch", "VectorSource", "VectorState"]
