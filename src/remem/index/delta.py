"""The vectors a ``VectorIndex`` holds in memory beside its snapshot (those written after it),
and the sorted-array helpers both use."""

from __future__ import annotations

import numpy as np


class Delta:
    """Vectors written after the snapshot, in a growable matrix; one row per record."""

    def __init__(self, dim: int) -> None:
        self.matrix = np.empty((0, dim), np.float32)
        self.rowids = np.empty(0, np.int64)
        self.alive = np.zeros(0, bool)
        self.size = 0
        self._pos: dict[int, int] = {}

    @property
    def live(self) -> int:
        return int(self.alive[: self.size].sum())

    def put(self, rowids: np.ndarray, matrix: np.ndarray) -> None:
        # Rows come in sequence order, so a later row of the same record wins.
        new = [r for r in dict.fromkeys(rowids.tolist()) if r not in self._pos]
        self._grow(self.size + len(new))
        for r in new:
            self._pos[r] = self.size
            self.rowids[self.size] = r
            self.size += 1
        pos = np.fromiter((self._pos[r] for r in rowids.tolist()), np.int64, len(rowids))
        self.matrix[pos] = matrix
        self.alive[pos] = True

    def _grow(self, need: int) -> None:
        if need <= len(self.rowids):
            return
        cap = max(need, 2 * len(self.rowids), 256)
        for name in ("matrix", "rowids", "alive"):
            old = getattr(self, name)
            grown = np.zeros((cap, *old.shape[1:]), old.dtype)
            grown[: self.size] = old[: self.size]
            setattr(self, name, grown)

    def keep_only(self, live: np.ndarray) -> None:
        if self.size:
            self.alive[: self.size] &= lookup(live, self.rowids[: self.size])[1]

    def search(
        self, query: np.ndarray, k: int, allowed: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray]:
        n = self.size
        if not n:
            return np.empty(0, np.int64), np.empty(0, np.float32)
        ok = self.alive[:n]
        if allowed is not None:
            ok = ok & lookup(allowed, self.rowids[:n])[1]
        pos = None if ok.all() else np.flatnonzero(ok)
        if pos is None or 2 * len(pos) > n:
            # most rows qualify: score them all in place (gathering them would copy the
            # matrix on every search) and rank the rest out
            scores = self.matrix[:n] @ query
            if pos is not None:
                scores = np.where(ok, scores, -np.inf)
                k = min(k, len(pos))
            top = top_k(scores, k)
            return self.rowids[top], scores[top]
        scores = self.matrix[pos] @ query
        top = top_k(scores, k)
        return self.rowids[pos[top]], scores[top]

    def all_finite(self) -> bool:
        live = self.alive[: self.size]
        return bool(np.isfinite(self.matrix[: self.size][live]).all())

    def live_rowids(self) -> np.ndarray:
        return self.rowids[: self.size][self.alive[: self.size]]

    def has(self, wanted: np.ndarray) -> np.ndarray:
        """Which of these rowids have a live row here."""
        out = np.zeros(len(wanted), bool)
        for i, r in enumerate(wanted.tolist()):
            p = self._pos.get(r)
            out[i] = p is not None and bool(self.alive[p])
        return out

    def vectors_for(self, wanted: np.ndarray) -> dict[int, np.ndarray]:
        out = {}
        for r in wanted.tolist():
            p = self._pos.get(r)
            if p is not None and self.alive[p]:
                out[r] = self.matrix[p].copy()
        return out


def lookup(sorted_keys: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(positions, found) of ``keys`` in the sorted array ``sorted_keys``."""
    pos = np.searchsorted(sorted_keys, keys)
    pos = np.minimum(pos, max(len(sorted_keys) - 1, 0))
    if not len(sorted_keys):
        return pos, np.zeros(len(keys), bool)
    return pos, np.asarray(sorted_keys[pos] == keys)


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k highest scores, best first."""
    if len(scores) > k:
        top = np.argpartition(-scores, k - 1)[:k]
        return top[np.argsort(-scores[top], kind="stable")]
    return np.argsort(-scores, kind="stable")
