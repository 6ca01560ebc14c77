"""How two embedding models' candidate lists are fused into one vector channel, and the
figures that say whether a top score separates answerable questions from the rest.

Pure functions over (position, score) lists, for ``benchmarks/scripts/model_fusion.py``; every rule returns
at most ``n`` candidates, best first, ties broken by position so runs rank alike.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

import numpy as np

RRF_K = 60
Ranked = list[tuple[int, float]]  # (position in the conversation, score), best first
Rule = Callable[[dict[str, Ranked], dict[str, np.ndarray], int], Ranked]


def top(scored: Ranked, n: int) -> Ranked:
    """The n best, ties broken by position so every run ranks alike.

    >>> top([(3, 0.5), (1, 0.9), (2, 0.5)], 2)
    [(1, 0.9), (2, 0.5)]
    """
    return sorted(scored, key=lambda p: (-p[1], p[0]))[:n]


def _union(lists: dict[str, Ranked]) -> list[int]:
    return sorted({i for ranked in lists.values() for i, _ in ranked})


def mean_cosine(lists: dict[str, Ranked], cos: dict[str, np.ndarray], n: int) -> Ranked:
    """Mean of the models' exact cosines over the union of their top lists.

    >>> cos = {"a": np.array([0.9, 0.5, 0.1]), "b": np.array([0.2, 0.6, 0.7])}
    >>> mean_cosine({"a": [(0, 0.9)], "b": [(2, 0.7)]}, cos, 5)
    [(0, 0.55), (2, 0.4)]
    """
    scored = [(i, round(float(np.mean([cos[m][i] for m in lists])), 6)) for i in _union(lists)]
    return top(scored, n)


def rrf(lists: dict[str, Ranked], cos: dict[str, np.ndarray], n: int) -> Ranked:
    """Reciprocal-rank fusion, divided by the best attainable score (as the engine's
    ``rrf_fuse``) so it lies in [0, 1].

    >>> rrf({"a": [(0, 0.9), (1, 0.8)], "b": [(1, 0.7)]}, {}, 5)
    [(1, 0.9919), (0, 0.5)]
    """
    score: dict[int, float] = defaultdict(float)
    for ranked in lists.values():
        for rank, (i, _) in enumerate(ranked, start=1):
            score[i] += 1.0 / (RRF_K + rank)
    best = len(lists) / (RRF_K + 1)
    return top([(i, round(s / best, 4)) for i, s in score.items()], n)


def _minmax(ranked: Ranked, cos: np.ndarray, ids: list[int]) -> np.ndarray:
    """Each id's exact cosine scaled by the min and max of the model's own top list; below
    that list's last (a candidate only the other model found) counts as 0, not negative."""
    scores = [s for _, s in ranked]
    lo, hi = min(scores), max(scores)
    values = cos[ids]
    return np.clip((values - lo) / (hi - lo), 0.0, 1.0) if hi > lo else np.ones(len(ids))


def max_minmax(lists: dict[str, Ranked], cos: dict[str, np.ndarray], n: int) -> Ranked:
    """The better of the models' min-max normalised cosines (each over its own top list).

    >>> cos = {"a": np.array([0.9, 0.5, 0.1]), "b": np.array([0.2, 0.6, 0.7])}
    >>> max_minmax({"a": [(0, 0.9), (1, 0.5)], "b": [(2, 0.7), (1, 0.6)]}, cos, 5)
    [(0, 1.0), (2, 1.0), (1, 0.0)]
    """
    ids = _union(lists)
    scaled = np.max([_minmax(lists[m], cos[m], ids) for m in lists], axis=0)
    return top([(i, round(float(s), 6)) for i, s in zip(ids, scaled, strict=True)], n)


def mean_minmax(lists: dict[str, Ranked], cos: dict[str, np.ndarray], n: int) -> Ranked:
    """The mean of the models' min-max normalised cosines (each over its own top list).

    >>> cos = {"a": np.array([0.9, 0.5, 0.1]), "b": np.array([0.2, 0.6, 0.7])}
    >>> mean_minmax({"a": [(0, 0.9), (1, 0.5)], "b": [(2, 0.7), (1, 0.6)]}, cos, 5)
    [(0, 0.5), (2, 0.5), (1, 0.0)]
    """
    return weighted_minmax({m: 1.0 for m in lists})(lists, cos, n)


def weighted_minmax(weights: dict[str, float]) -> Rule:
    """A rule: the weighted mean of the models' min-max normalised cosines.

    >>> cos = {"a": np.array([0.9, 0.5, 0.1]), "b": np.array([0.2, 0.6, 0.7])}
    >>> lists = {"a": [(0, 0.9), (1, 0.5)], "b": [(2, 0.7), (1, 0.6)]}
    >>> weighted_minmax({"a": 3.0, "b": 1.0})(lists, cos, 5)
    [(0, 0.75), (2, 0.25), (1, 0.0)]
    """

    def rule(lists: dict[str, Ranked], cos: dict[str, np.ndarray], n: int) -> Ranked:
        ids = _union(lists)
        total = sum(weights[m] for m in lists)
        scaled = sum(weights[m] * _minmax(lists[m], cos[m], ids) for m in lists) / total
        return top([(i, round(float(s), 6)) for i, s in zip(ids, scaled, strict=True)], n)

    return rule


FUSION_RULES: dict[str, Rule] = {
    "mean-cos": mean_cosine,
    "rrf": rrf,
    "max-minmax": max_minmax,
    "mean-minmax": mean_minmax,
    # one sensitivity point, not a tuned weight: e5 is the stronger model on LoCoMo
    "minmax-e5x2": weighted_minmax({"e5": 2.0, "use": 1.0}),
}


def auc(positives: list[float], negatives: list[float]) -> float | None:
    """P(a positive scores above a negative), ties counting half (Mann-Whitney U / n1 n2).

    >>> auc([0.9, 0.8], [0.1, 0.8])
    0.875
    """
    if not positives or not negatives:
        return None
    pos, neg = np.asarray(positives)[:, None], np.asarray(negatives)[None, :]
    return round(float(np.mean((pos > neg) + 0.5 * (pos == neg))), 4)


def spread(values: list[float]) -> dict[str, float | int]:
    """n and p10/p50/p90 (nearest rank).

    >>> spread([0.1, 0.2, 0.3, 0.4, 0.5])
    {'n': 5, 'p10': 0.1, 'p50': 0.3, 'p90': 0.5}
    """
    if not values:
        return {"n": 0}
    q = np.quantile(np.asarray(values), [0.1, 0.5, 0.9], method="nearest")
    return {
        "n": len(values),
        **{f"p{p}": round(float(v), 4) for p, v in zip((10, 50, 90), q, strict=True)},
    }
