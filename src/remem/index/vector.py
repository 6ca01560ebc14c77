"""One model's vector search: a snapshot on disk plus the vectors written since, kept in step
with the store across processes.

- The snapshot (``remem.index.snapshot``) holds the vectors up to some sequence number,
  memory-mapped, with an HNSW graph from ``ANN_MIN`` vectors on. Opening it reads no vectors.
- The delta holds in memory every vector written after the snapshot (read by sequence number),
  searched exactly. A delta row shadows the snapshot row of the same record (a replaced vector).
- After any delete (the store's delete counter moved) the rowids still present are read once
  and the snapshot's dead rows masked.
- When the delta or the dead rows grow past a threshold, a new snapshot is built (in a
  background thread by default; a lock file keeps it to one process at a time) and swapped in.

Filters are the caller's: ``search`` takes the allowed rowids (sorted) and returns the k best
among them, widening the graph search, or scanning the allowed rows exactly when they are few.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Hashable
from pathlib import Path

import numpy as np

from remem.index.delta import Delta, lookup, top_k
from remem.index.exact import blas_one_thread
from remem.index.snapshot import (
    Snapshot,
    build_lock,
    model_dir,
    open_snapshot,
    read_info,
    write_snapshot,
)
from remem.index.source import Allocate, VectorBatch, VectorSource
from remem.store.queries import VectorRead

log = logging.getLogger("remem.index")

# Vectors compared with the store when a snapshot is opened (see _probes_match).
PROBES = 8
# From this many vectors a snapshot carries an HNSW graph. Measured in CPU time (remem-bench's ann.py,
# 512-d): an exact scan costs ~0.27 us per vector (27 ms at 100k), the graph ~1.2 ms per query
# whatever the size, and building the graph ~1 ms per vector. Below 20k the scan stays within a
# few ms and no graph has to be built or kept in step.
ANN_MIN = 20_000
# Snapshot the vectors once this many are only in memory (read from SQL on every open: ~75 ms
# per 10k 512-d vectors) or once the delta outgrows this share of the snapshot.
DELTA_MAX = 10_000
DELTA_SHARE = 0.10
# Rebuild when this share of the snapshot's rows is dead (deleted or replaced): they cost
# graph hops and widen every search.
DEAD_SHARE = 0.20
# Allowed subsets up to this size are scanned exactly instead of through the graph: gathering
# and scoring 5k rows costs ~1 ms, less than a graph search widened to find k of them.
SUBSET_EXACT_MAX = 5_000
# An exact scan over an allowed subset holding more than this share of the snapshot scores
# every row in place and keeps the allowed ones' scores. Gathering the rows first copies
# them out of the mapped matrix (150 MB for 100k 384-d rows) and then reads them again:
# 0.1-1.3 s at 100k under load, the tail of a whole-store recall whose graph search fell
# back to a scan (issue 47). Past half the rows, one pass over all of them reads less.
SCAN_ALL_SHARE = 0.5


class VectorIndex:
    """Search one model's vectors; see the module docstring for how it stays current."""

    def __init__(
        self,
        source: VectorSource,
        root: Path,
        model_id: str,
        dim: int,
        *,
        auto_build: bool = True,
        background: bool = True,
        ann_min: int = ANN_MIN,
        delta_max: int = DELTA_MAX,
        subset_exact_max: int = SUBSET_EXACT_MAX,
    ) -> None:
        self.source = source
        self.folder = model_dir(Path(root), model_id)
        self.model_id = model_id
        self.dim = dim
        self.auto_build = auto_build
        self.background = background
        self.ann_min = ann_min
        self.delta_max = delta_max
        self.subset_exact_max = subset_exact_max
        self._lock = threading.RLock()
        self._builder: threading.Thread | None = None
        self._token: Hashable | None = None
        self._stamp: tuple[int, int, int] | None = None  # of current.json when last read
        self._rejected: str | None = None  # a generation found broken or foreign
        self._snapshot: Snapshot | None = None
        self._dead = np.zeros(0, bool)  # per snapshot row
        self._dead_count = 0
        self._delta = Delta(dim)
        self._seq = 0  # every vector with seq <= _seq is in the snapshot or the delta
        self._deletes: int | None = None  # the delete counter the masks reflect

    # ------------------------------------------------------------------ state
    @property
    def size(self) -> int:
        """Live vectors (after the last sync)."""
        snap = 0 if self._snapshot is None else len(self._snapshot) - self._dead_count
        return snap + self._delta.live

    @property
    def snapshot_info(self):
        return None if self._snapshot is None else self._snapshot.info

    def sync(self) -> None:
        """Catch up with the store (and with a snapshot another process built); start a build
        when the delta or the dead rows have grown past their thresholds."""
        self._catch_up()
        if self.auto_build and self.needs_build():
            self._start_build()

    def _catch_up(self) -> None:
        token = self.source.change_token()
        stamp = _stamp(self.folder / "current.json")
        with self._lock:
            if token == self._token and stamp == self._stamp:
                return
            state = self.source.vector_state(self.model_id, self.dim)
            probed = True  # a snapshot we already hold was checked when we took it
            if stamp != self._stamp:
                info = read_info(self.folder)
                if info is None or info.generation != self._generation():
                    self._adopt(open_snapshot(self.folder, self.model_id, self.dim))
                    if self._snapshot is None and info is not None:
                        self._rejected = info.generation
                    probed = self._snapshot is None or self._probes_match()
                self._stamp = stamp
            if not probed or self._snapshot_is_foreign(state):
                log.warning(
                    "the vector index in %s was made from another database at this "
                    "path; rebuilding it",
                    self.folder,
                )
                self._rejected = self._generation()
                self._adopt(None)
            if state.max_seq > self._seq:
                self._apply(
                    self.source.read_vectors(VectorRead(self.model_id, self.dim, self._seq))
                )
            if state.deletes != self._deletes:
                self._apply_deletes(self.source.live_rowids(self.model_id, self.dim, self._seq))
                self._deletes = state.deletes
            self._token = token

    def _probes_match(self) -> bool:
        """Do a few of the snapshot's vectors match the store's? A database deleted and
        created anew at the same path can have grown past the snapshot's sequence number;
        its vectors then differ (or are gone)."""
        snap = self._snapshot
        assert snap is not None
        if not len(snap):
            return True
        picks = np.unique(np.linspace(0, len(snap) - 1, PROBES).astype(np.int64))
        rowids = [int(r) for r in snap.rowids[picks]]
        stored = self.source.vectors_at(self.model_id, self.dim, rowids, snap.info.max_seq)
        if not stored:
            return False  # every probe gone: cannot tell, so do not trust it
        return all(
            np.array_equal(stored[r], snap.matrix[p])
            for r, p in zip(rowids, picks.tolist(), strict=True)
            if r in stored
        )

    def _generation(self) -> str | None:
        return None if self._snapshot is None else self._snapshot.info.generation

    def _snapshot_is_foreign(self, state) -> bool:
        # Sequence numbers and the delete counter only grow: a snapshot ahead of its store was
        # built from another database at this path.
        info = self.snapshot_info
        return info is not None and (info.max_seq > state.max_seq or info.deletes > state.deletes)

    def _adopt(self, snapshot: Snapshot | None) -> None:
        self._snapshot = snapshot
        self._dead = np.zeros(0 if snapshot is None else len(snapshot), bool)
        self._dead_count = 0
        self._delta = Delta(self.dim)
        self._seq = 0 if snapshot is None else snapshot.info.max_seq
        self._deletes = None if snapshot is None else snapshot.info.deletes

    def _apply(self, batch: VectorBatch) -> None:
        if len(batch):
            self._delta.put(batch.rowids, batch.matrix)
            self._mark_dead(batch.rowids)
        self._seq = max(self._seq, batch.max_seq)

    def _mark_dead(self, rowids: np.ndarray) -> None:
        if self._snapshot is None or not len(rowids):
            return
        pos, found = lookup(self._snapshot.rowids, rowids)
        self._dead[pos[found]] = True
        self._dead_count = int(self._dead.sum())

    def _apply_deletes(self, live: np.ndarray) -> None:
        """``live``: sorted rowids of the vectors still present up to ``_seq``."""
        if self._snapshot is not None:
            _, present = lookup(live, np.asarray(self._snapshot.rowids))
            self._dead |= ~present
            self._dead_count = int(self._dead.sum())
        self._delta.keep_only(live)

    # ------------------------------------------------------------------ building
    @property
    def unsnapshotted(self) -> int:
        """Live vectors held only in memory: read from the store on every open."""
        return self._delta.live

    def behind(self) -> bool:
        """A build is due and nothing will start one here (``auto_build`` off)."""
        return not self.auto_build and self.needs_build()

    def needs_build(self) -> bool:
        snap = self._snapshot
        if snap is None:
            return self._delta.live >= self.delta_max
        return (
            self._delta.live > max(self.delta_max, DELTA_SHARE * len(snap))
            or self._dead_count > DEAD_SHARE * len(snap)
            or (snap.graph is None and self.size >= self.ann_min)
        )

    def refresh(self, *, force: bool = False) -> bool:
        """Catch up with the store, then build a snapshot now, in this thread, if one is due
        (always with ``force``), waiting for another process's build lock. For commands that
        end a bulk write (``remem import``, ``remem index``): a short-lived process would
        otherwise exit before its background build ends, and every later process would read
        the vectors from SQL again. Returns whether it built."""
        if not (force or self._due_by_count()):
            self._catch_up()
            if not self.needs_build():
                return False
        self.build(wait=True)
        self._catch_up()
        return True

    def _due_by_count(self) -> bool:
        """Whether a build is due, judged from counts alone, before the vectors the current
        snapshot lacks are read into memory. Catching up first read them all when there was
        none (the end of ``remem import``): the whole matrix in anonymous memory, then again
        in the build's mapped file, 550 MB peak at 100k x 384-d for a ~160 MB import. The
        store's count less the snapshot's is at most the unsnapshotted vectors (the rest of
        them replace or outlive a snapshot row), so a build due by it is due; one that is
        not is decided exactly, after catching up."""
        info = read_info(self.folder)
        held = info.count if info is not None and info.model_id == self.model_id else 0
        new = self.source.vector_count(self.model_id) - held
        if held == 0:
            return new >= self.delta_max
        return new > max(self.delta_max, DELTA_SHARE * held)

    def build(self, *, wait: bool = True, threads: int = 0) -> bool:
        """Write a fresh snapshot from the store and switch to it. Returns False when another
        process holds the build lock and ``wait`` is False (it is building one already)."""
        seen = self._generation()
        lock = build_lock(self.folder)
        from filelock import Timeout

        try:
            lock.acquire(timeout=-1 if wait else 0)
        except Timeout:
            return False
        try:
            info = read_info(self.folder)
            if not wait and info is not None and info.generation not in (seen, self._rejected):
                return True  # another process built one since this one decided to
            state = self.source.vector_state(self.model_id, self.dim)

            def read(allocate: Allocate) -> VectorBatch:
                return self.source.read_vectors(
                    VectorRead(self.model_id, self.dim, by_rowid=True, allocate=allocate)
                )

            write_snapshot(
                self.folder,
                self.model_id,
                self.dim,
                read,
                state.deletes,
                graph_min=self.ann_min,
                threads=threads,
            )
        finally:
            lock.release()
        with self._lock:
            self._token = None  # the next sync opens the new generation
        return True

    def _start_build(self) -> None:
        if not self.background:
            if self._build_quietly():
                self._catch_up()  # switch to the new snapshot now
            return
        with self._lock:
            if self._builder is not None and self._builder.is_alive():
                return
            self._builder = threading.Thread(
                target=self._build_quietly, name=f"remem-index-{self.model_id}", daemon=True
            )
            self._builder.start()

    def _build_quietly(self) -> bool:
        try:
            return self.build(wait=False)
        except Exception as exc:  # derived data: searches go on from the store
            log.warning("building the vector index in %s failed: %s", self.folder, exc)
            return False

    def wait_for_build(self, timeout: float | None = None) -> None:
        builder = self._builder
        if builder is not None:
            builder.join(timeout)

    # ------------------------------------------------------------------ search
    def search(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """(rowid, cosine) of the k best vectors, best first; only rowids in ``allowed`` (a
        sorted int64 array) when it is given."""
        self.sync()
        query = np.ascontiguousarray(query, np.float32)
        if allowed is not None:
            allowed = _sorted_unique(allowed)
        with self._lock, blas_one_thread():
            if k <= 0 or (allowed is not None and not len(allowed)):
                return []
            keys, scores = self._delta.search(query, k, allowed)
            if self._snapshot is not None:
                more_keys, more_scores = self._search_snapshot(query, k, allowed)
                keys = np.concatenate([keys, more_keys])
                scores = np.concatenate([scores, more_scores])
        order = np.argsort(-scores, kind="stable")[:k]
        return [(int(keys[i]), float(scores[i])) for i in order]

    def _search_snapshot(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        snap = self._snapshot
        assert snap is not None
        graph = snap.graph
        if graph is not None and (allowed is None or len(allowed) > self.subset_exact_max):
            live_share = 1.0 - self._dead_count / max(len(snap), 1)
            share = live_share * (1.0 if allowed is None else min(1.0, len(allowed) / len(snap)))
            dead = self._dead

            def accept(keys: np.ndarray) -> np.ndarray:
                pos, _ = lookup(snap.rowids, keys)
                ok = ~dead[pos]
                if allowed is not None:
                    ok &= lookup(allowed, keys)[1]
                return ok

            found = graph.search(query, k, accept, share)
            if found is not None:
                return found
        # exact: over the allowed rows when given, else over everything
        pos: np.ndarray | None
        if allowed is not None:
            pos, found_rows = lookup(snap.rowids, allowed)
            pos = pos[found_rows]
            pos = pos[~self._dead[pos]]
        else:
            pos = np.flatnonzero(~self._dead) if self._dead.any() else None
        if pos is None:
            scores = snap.matrix @ query
        elif len(pos) > SCAN_ALL_SHARE * len(snap):
            scores = (snap.matrix @ query)[pos]  # no copy of the rows (SCAN_ALL_SHARE)
        else:
            scores = snap.matrix[pos] @ query
        top = top_k(scores, k)
        rows = top if pos is None else pos[top]
        return np.asarray(snap.rowids[rows]), scores[top]

    def vectors_for(self, rowids: list[int]) -> dict[int, np.ndarray]:
        """Stored vectors of these records (for diversity and neighbour stages)."""
        wanted = np.asarray(rowids, np.int64)
        out: dict[int, np.ndarray] = {}
        with self._lock:
            if self._snapshot is not None and len(wanted):
                pos, found = lookup(self._snapshot.rowids, wanted)
                keep = found.copy()
                keep[found] = ~self._dead[pos[found]]
                # one gather from the mapped matrix (a copy), not a memmap slice per row
                rows = np.asarray(self._snapshot.matrix[pos[keep]])
                out.update(zip(wanted[keep].tolist(), rows, strict=True))
            out.update(self._delta.vectors_for(wanted))
        return out

    def state_key(self) -> Hashable:
        """Changes whenever the live vectors may have changed (for callers' caches)."""
        with self._lock:
            return (self._generation(), self._seq, self._deletes, self._dead_count)

    def live_rowids(self) -> np.ndarray:
        """Sorted rowids of every live vector (after the last sync)."""
        with self._lock:
            parts = [self._delta.live_rowids()]
            if self._snapshot is not None:
                parts.append(np.asarray(self._snapshot.rowids)[~self._dead])
        return np.unique(np.concatenate(parts))

    def contains(self, rowids: np.ndarray) -> np.ndarray:
        """Which of these rowids have a live vector here (after the last sync)."""
        wanted = np.asarray(rowids, np.int64)
        with self._lock:
            out = np.zeros(len(wanted), bool)
            if self._snapshot is not None and len(wanted):
                pos, found = lookup(self._snapshot.rowids, wanted)
                out[found] = ~self._dead[pos[found]]
            out |= self._delta.has(wanted)
        return out

    def all_finite(self) -> bool:
        """Whether every live vector is finite (``remem doctor``; reads the snapshot through
        in blocks, so the check's memory stays small)."""
        self.sync()
        with self._lock:
            snap = self._snapshot
            if snap is not None:
                for start in range(0, len(snap), 65_536):
                    block = np.asarray(snap.matrix[start : start + 65_536])
                    live = ~self._dead[start : start + 65_536]
                    if not np.isfinite(block[live]).all():
                        return False
            return self._delta.all_finite()


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """Cheap identity of a file's current version (a rename gives a new inode)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _sorted_unique(rowids: np.ndarray) -> np.ndarray:
    rowids = np.asarray(rowids, np.int64)
    if len(rowids) > 1 and not bool(np.all(rowids[1:] > rowids[:-1])):
        rowids = np.unique(rowids)
    return rowids
