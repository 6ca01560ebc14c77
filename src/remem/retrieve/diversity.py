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
from remem.text.intent import is_aggregate


def diversity(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    cfg = ctx.config.diversity
    if cfg.mode == "off" or len(cands) < 2:
        return cands
    ordered = sorted(cands, key=lambda c: -c.score)
    if cfg.max_per_session > 0:
        ordered = session_quota(ordered, cfg.max_per_session)
    if cfg.session_coverage > 0:
        ordered = session_coverage(ordered, ctx.k, cfg.session_coverage)
    if not ctx.vectors:
        return ordered
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


def aggregate_spread(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    """A question that counts, sums, compares or orders things across occasions ("how many
    concerts did I go to?", "我一共去了几次") needs every occasion, and each usually sits in
    its own session; the turns around the best one are not enough. For such questions, hits of
    one session beyond ``aggregate_max_per_session`` move below the rest."""
    quota = ctx.config.diversity.aggregate_max_per_session
    if quota <= 0 or len(cands) < 2 or not is_aggregate(ctx.query):
        return cands
    ctx.notes.append(f"aggregate question: at most {quota} hits per session on top")
    return session_quota(cands, quota)


def session_quota(ordered: list[Candidate], quota: int) -> list[Candidate]:
    """Beyond ``quota`` hits from one session, further hits of that session move below the
    rest (kept, not dropped), so one long session cannot fill the whole top k."""
    seen: dict[str, int] = {}
    head: list[Candidate] = []
    tail: list[Candidate] = []
    for c in ordered:
        session = c.record.session if c.record else None
        if session:
            seen[session] = seen.get(session, 0) + 1
            if seen[session] > quota:
                c.notes.append(f"more than {quota} hits from session {session}: moved down")
                tail.append(c)
                continue
        head.append(c)
    return head + tail


def session_coverage(ordered: list[Candidate], k: int, ratio: float) -> list[Candidate]:
    """Give sessions missing from the top k a seat: the best hit of each such session that
    scores at least ``ratio`` x the top score takes the place of the lowest-ranked hit of a
    session that holds several places. Evidence often spans sessions; one long session should
    not hide the others."""
    if len(ordered) <= k or not ordered:
        return ordered
    top, rest = list(ordered[:k]), list(ordered[k:])

    def session(c: Candidate) -> str | None:
        return c.record.session if c.record else None

    counts: dict[str | None, int] = {}
    for c in top:
        counts[session(c)] = counts.get(session(c), 0) + 1
    floor = ratio * top[0].score
    seen: set[str | None] = set(counts)
    promote: list[Candidate] = []
    for c in rest:
        s = session(c)
        if s is not None and s not in seen and c.score >= floor:
            seen.add(s)
            promote.append(c)
    for newcomer in promote:
        victim_index = next(
            (
                i
                for i in range(len(top) - 1, 0, -1)
                if session(top[i]) is not None and counts[session(top[i])] > 1
            ),
            None,
        )
        if victim_index is None:
            break
        victim = top.pop(victim_index)
        counts[session(victim)] -= 1
        counts[session(newcomer)] = 1
        rest.remove(newcomer)
        rest.insert(0, victim)
        newcomer.notes.append("best hit of a session missing from the top: given a place")
        top.append(newcomer)
    return top + rest


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
