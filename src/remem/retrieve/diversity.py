"""Diversity: keep near-duplicates from crowding out everything else.

- ``demote``: a candidate whose cosine to a better-ranked kept one exceeds the threshold is
  moved below all non-duplicates (not dropped: if nothing else exists it still shows).
- ``mmr``: maximal marginal relevance, lambda x score - (1 - lambda) x max cosine to the
  already chosen, greedily.
Candidates without a stored vector (lexical-only, other model) are never treated as duplicates.
"""

from __future__ import annotations

import numpy as np

from remem.index.exact import blas_one_thread
from remem.retrieve.candidates import Candidate
from remem.retrieve.context import StageContext


def diversity(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    cfg = ctx.config.diversity
    if cfg.mode == "off" or len(cands) < 2 or not ctx.vectors:
        return cands
    ordered = sorted(cands, key=lambda c: -c.score)
    if cfg.mode == "mmr":
        return _mmr(ordered, ctx, cfg.mmr_lambda)
    # One matrix of pairwise cosines, and a running "closest kept hit" per candidate.
    with_vec = [i for i, c in enumerate(ordered) if c.rowid in ctx.vectors]
    if len(with_vec) < 2:
        return ordered
    pos = {i: j for j, i in enumerate(with_vec)}
    matrix = np.stack([ctx.vectors[ordered[i].rowid] for i in with_vec])
    with blas_one_thread():
        sims = matrix @ matrix.T
    closest = np.full(len(with_vec), -np.inf, dtype=np.float32)
    kept: list[Candidate] = []
    demoted: list[Candidate] = []
    for i, c in enumerate(ordered):
        j = pos.get(i)
        if j is not None and closest[j] > cfg.threshold:
            c.notes.append(f"near-duplicate of a better hit (cosine {closest[j]:.3f}): moved down")
            demoted.append(c)
            continue
        kept.append(c)
        if j is not None:
            np.maximum(closest, sims[j], out=closest)
    for c in demoted:
        c.stages.append(("diversity", c.score))
    return kept + demoted


def _mmr(ordered: list[Candidate], ctx: StageContext, lam: float) -> list[Candidate]:
    remaining = list(ordered)
    chosen: list[Candidate] = []
    chosen_vecs: list[np.ndarray] = []
    while remaining and len(chosen) < max(ctx.k, 1) * 2:
        best, best_value = None, -np.inf
        for c in remaining:
            v = ctx.vectors.get(c.rowid)
            sim = (
                float(np.max(np.stack(chosen_vecs) @ v)) if (v is not None and chosen_vecs) else 0.0
            )
            value = lam * c.score - (1 - lam) * sim
            if value > best_value:
                best, best_value = c, value
        assert best is not None
        remaining.remove(best)
        chosen.append(best)
        v = ctx.vectors.get(best.rowid)
        if v is not None:
            chosen_vecs.append(v)
        best.stages.append(("mmr", best_value))
    return chosen + remaining
