"""A model's vectors saved beside the database, so opening a store reads no vectors from SQL.

Layout, one folder per model under ``<db>.remem-index/``::

    <model>/current.json            which generation is current, and what it covers
    <model>/<gen>.rowids.npy        int64, sorted record rowids
    <model>/<gen>.vectors.npy       float32 (n, dim), row i is rowids[i]'s vector
    <model>/<gen>.faiss             the HNSW graph over those rows (big snapshots only)
    <model>/<gen>.columns.npz       the filter columns as of a store revision (``columns_file``)
    <model>/build.lock              held while one process builds

Everything here is derived and rebuildable, never the only copy: a missing, stale, truncated or
foreign file is ignored (the index falls back to reading the store) and the next build replaces
it. A build writes a new generation's files, then swaps ``current.json`` in one
``os.replace``, so a reader sees the old generation or the new one, never half of one; files of
older generations are removed afterwards (a process that mapped them keeps its mapping).
The ``.npy`` files are opened memory-mapped: opening costs milliseconds whatever the size, and
the pages are shared by every process on the machine.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import secrets
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from remem.index.source import Allocate, VectorBatch
from remem.store.paths import index_dir  # re-exported: the layout's root

if TYPE_CHECKING:
    from filelock import FileLock

    from remem.index.ann import Graph

log = logging.getLogger("remem.index")

FORMAT = 1


def model_dir(root: Path, model_id: str) -> Path:
    """A file-system-safe folder name per model id (readable part + hash against collisions)."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id)[:60] or "model"
    digest = hashlib.sha256(model_id.encode()).hexdigest()[:10]
    return root / f"{readable}-{digest}"


@dataclass(frozen=True, slots=True)
class SnapshotInfo:
    """What ``current.json`` says about the current generation."""

    generation: str
    model_id: str
    dim: int
    count: int
    max_seq: int  # every vector with seq <= max_seq at build time is in the snapshot
    deletes: int  # the store's delete counter when the build read the vectors
    has_graph: bool
    sizes: dict[str, int]
    built_at: float

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, **{f: getattr(self, f) for f in self.__slots__}})


class Snapshot:
    """An opened generation: rowids, vectors and the graph (if any) memory-mapped."""

    def __init__(
        self, info: SnapshotInfo, rowids: np.ndarray, matrix: np.ndarray, graph: Graph | None
    ) -> None:
        self.info = info
        self.rowids = rowids
        self.matrix = matrix
        self.graph = graph

    def __len__(self) -> int:
        return len(self.rowids)


def _paths(folder: Path, generation: str) -> dict[str, Path]:
    return {
        "rowids": folder / f"{generation}.rowids.npy",
        "vectors": folder / f"{generation}.vectors.npy",
        "graph": folder / f"{generation}.faiss",
    }


def read_info(folder: Path) -> SnapshotInfo | None:
    try:
        raw = json.loads((folder / "current.json").read_text())
        if raw.pop("format", None) != FORMAT:
            return None
        return SnapshotInfo(**raw)
    except (OSError, ValueError, TypeError):
        return None


def open_snapshot(folder: Path, model_id: str, dim: int) -> Snapshot | None:
    """The current generation, or None if there is none or it does not check out."""
    for _attempt in range(3):
        info = read_info(folder)
        if info is None:
            return None
        try:
            return _open_generation(folder, info, model_id, dim)
        except (OSError, ValueError, RuntimeError) as exc:  # faiss raises RuntimeError
            again = read_info(folder)
            if again is None or again.generation == info.generation:
                # Derived data: a broken snapshot costs a rebuild, never an error for the user.
                log.warning("ignoring the vector index in %s (%s); it will be rebuilt", folder, exc)
                return None
            # a build swapped generations between reading current.json and opening its files
    return None


def _open_generation(folder: Path, info: SnapshotInfo, model_id: str, dim: int) -> Snapshot:
    if info.model_id != model_id or info.dim != dim:
        raise ValueError(f"made for {info.model_id} ({info.dim}-d)")
    paths = _paths(folder, info.generation)
    for name, size in info.sizes.items():
        actual = paths[name].stat().st_size
        if actual != size:
            raise ValueError(f"{paths[name].name} is {actual} bytes, expected {size}")
    rowids = np.load(paths["rowids"], mmap_mode="r")
    matrix = np.load(paths["vectors"], mmap_mode="r")
    if rowids.shape != (info.count,) or matrix.shape != (info.count, dim):
        raise ValueError(f"shapes {rowids.shape} / {matrix.shape}, expected {info.count}")
    if rowids.dtype != np.int64 or matrix.dtype != np.float32:
        raise ValueError(f"dtypes {rowids.dtype} / {matrix.dtype}")
    graph = None
    if info.has_graph:
        from remem.index.ann import Graph  # faiss costs ~0.2 s to import: only when needed

        graph = Graph(paths["graph"], dim, rowids, matrix)
    return Snapshot(info, rowids, matrix, graph)


def build_lock(folder: Path) -> FileLock:
    from filelock import FileLock  # ~0.1 s to import: only when a snapshot is built

    folder.mkdir(parents=True, exist_ok=True)
    return FileLock(folder / "build.lock")


def write_snapshot(
    folder: Path,
    model_id: str,
    dim: int,
    read: Callable[[Allocate], VectorBatch],
    deletes: int,
    *,
    graph_min: int,
    threads: int = 0,
) -> SnapshotInfo:
    """Write a new generation and make it current. ``read(allocate)`` reads the vectors,
    sorted by rowid, into the arrays ``allocate`` returns: memory-mapped files of the new
    generation, so the matrix never sits in anonymous memory; the graph takes its own copy
    block by block (a build's peak is about the matrix plus the graph, plus mapped pages).
    The graph is built from ``graph_min`` vectors on.

    The caller holds ``build_lock(folder)``. Each file is complete on disk before
    ``current.json`` names it."""
    folder.mkdir(parents=True, exist_ok=True)
    generation = f"{int(time.time())}-{secrets.token_hex(4)}"
    paths = _paths(folder, generation)

    def allocate(count: int) -> tuple[np.ndarray, np.ndarray]:
        rowids = np.lib.format.open_memmap(paths["rowids"], "w+", np.int64, (count,))
        matrix = np.lib.format.open_memmap(paths["vectors"], "w+", np.float32, (count, dim))
        return rowids, matrix

    batch = read(allocate)
    if len(batch.rowids) > 1 and not bool(np.all(batch.rowids[1:] > batch.rowids[:-1])):
        raise ValueError("snapshot rowids must be sorted and unique")
    for array, name in ((batch.rowids, "rowids"), (batch.matrix, "vectors")):
        if isinstance(array, np.memmap):
            array.flush()
        else:  # a source that ignored ``allocate``
            np.save(paths[name], array, allow_pickle=False)
        _fsync(paths[name])
    has_graph = len(batch) >= max(graph_min, 1)
    if has_graph:
        from remem.index.ann import build_graph  # faiss costs ~0.2 s to import

        build_graph(paths["graph"], batch.matrix, threads=threads)
        _fsync(paths["graph"])
    sizes = {n: p.stat().st_size for n, p in paths.items() if n != "graph" or has_graph}
    info = SnapshotInfo(
        generation=generation,
        model_id=model_id,
        dim=dim,
        count=len(batch),
        max_seq=batch.max_seq,
        deletes=deletes,
        has_graph=has_graph,
        sizes=sizes,
        built_at=time.time(),
    )
    del batch
    temp = folder / f".current-{generation}.json"
    temp.write_text(info.to_json())
    _fsync(temp)
    os.replace(temp, folder / "current.json")
    _remove_other_generations(folder, generation)
    return info


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_other_generations(folder: Path, keep: str) -> None:
    for path in folder.iterdir():
        name = path.name
        if name in ("current.json", "build.lock") or name.startswith(keep + "."):
            continue
        if name.endswith((".npy", ".faiss", ".json", ".npz")):
            with suppress(OSError):  # another process may be removing it too
                path.unlink()


__all__ = [
    "Snapshot",
    "SnapshotInfo",
    "build_lock",
    "index_dir",
    "model_dir",
    "open_snapshot",
    "read_info",
    "write_snapshot",
]
