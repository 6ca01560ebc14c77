"""Fusing the vector and lexical candidate lists into one ranking.

- ``rrf``: reciprocal rank fusion, sum over channels of w / (rrf_k + rank), divided by the
  best score attainable so it lies in [0, 1]. Rank based, so it needs no calibration between
  cosine and BM25.
- ``weighted``: each channel's scores min-max normalised over its candidate pool, then
  combined as vector_weight x v + lexical_weight x l and divided by the weights' sum, so it lies
  in [0, 1]. Keeps "how much better" information that ranks throw away.

Both leave the fused score in ``Candidate.fused`` and ``Candidate.score`` so the scoring stages
that follow work on one scale.
"""

from __future__ import annotations

from remem.search.candidates import Candidate


def _merge(
    vector: list[tuple[int, float]], lexical: list[tuple[int, float]]
) -> dict[int, Candidate]:
    pool: dict[int, Candidate] = {}
    for rank, (rowid, score) in enumerate(vector, start=1):
        pool[rowid] = Candidate(rowid, vector_rank=rank, vector_score=score)
    for rank, (rowid, score) in enumerate(lexical, start=1):
        cand = pool.get(rowid)
        if cand is None:
            cand = pool[rowid] = Candidate(rowid)
        cand.lexical_rank = rank
        cand.lexical_score = score
    return pool


def rrf_fuse(
    vector: list[tuple[int, float]],
    lexical: list[tuple[int, float]],
    *,
    k: int = 60,
    vector_weight: float = 1.0,
    lexical_weight: float = 1.0,
) -> list[Candidate]:
    pool = _merge(vector, lexical)
    best = (vector_weight if vector else 0.0) + (lexical_weight if lexical else 0.0)
    best = best / (k + 1) if best > 0 else 1.0
    for cand in pool.values():
        score = 0.0
        if cand.vector_rank is not None:
            score += vector_weight / (k + cand.vector_rank)
        if cand.lexical_rank is not None:
            score += lexical_weight / (k + cand.lexical_rank)
        cand.fused = cand.score = score / best
    return _sorted(pool)


def _minmax(values: list[float]) -> tuple[float, float]:
    lo, hi = min(values), max(values)
    return lo, (hi - lo) if hi > lo else 0.0


def weighted_fuse(
    vector: list[tuple[int, float]],
    lexical: list[tuple[int, float]],
    *,
    vector_weight: float = 0.7,
    lexical_weight: float = 0.3,
    min_vector_span: float = 0.0,
) -> list[Candidate]:
    pool = _merge(vector, lexical)
    v_lo, v_span = _minmax([s for _, s in vector]) if vector else (0.0, 0.0)
    # Min-max over a small pool turns a cosine gap of 0.03 into "best vs worthless"; a floor
    # on the span keeps small gaps small (the top still maps to 1 when the span is wide).
    if vector and min_vector_span > v_span:
        v_hi = v_lo + v_span
        v_span = min_vector_span
        v_lo = v_hi - v_span
    # BM25 is normalised by the best lexical score only (not min-max) so that the weakest
    # lexical candidate still counts for something when it is the only lexical match.
    l_hi = max((s for _, s in lexical), default=0.0)
    for cand in pool.values():
        score = 0.0
        if cand.vector_score is not None:
            v = (cand.vector_score - v_lo) / v_span if v_span else 1.0
            score += vector_weight * v
        if cand.lexical_score is not None and l_hi > 0:
            score += lexical_weight * (cand.lexical_score / l_hi)
        total = (vector_weight if vector else 0.0) + (lexical_weight if lexical else 0.0)
        cand.fused = cand.score = score / total if total > 0 else 0.0
    return _sorted(pool)


def _sorted(pool: dict[int, Candidate]) -> list[Candidate]:
    # Ties broken by best single-channel rank, then rowid, so results are deterministic.
    def key(c: Candidate) -> tuple[float, int, int]:
        best = min(r for r in (c.vector_rank, c.lexical_rank, 10**9) if r is not None)
        return (-c.fused, best, c.rowid)

    return sorted(pool.values(), key=key)
