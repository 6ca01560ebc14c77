"""The lexical channel: which query tokens to ask BM25 for, then the store's BM25 top-N."""

from __future__ import annotations

from collections.abc import Sequence

from remem.store.base import LexicalStore
from remem.types import Filters


def prune_common(
    store: LexicalStore,
    tokens: list[str],
    max_df: float,
    min_docs: int,
    postings_budget: int = 0,
    stats: tuple[int, dict[str, int]] | None = None,
) -> list[str]:
    """The query tokens worth asking BM25 for, in a store of at least ``min_docs`` records
    (smaller stores get every token).

    Left out: tokens found in more than ``max_df`` of the records (they add almost nothing to
    BM25 but make it visit most rows), then, rarest first, the tokens past a budget of
    ``postings_budget`` records to visit (0: no budget). FTS5 scores every record holding any
    asked token, so the budget bounds the work whatever the store's size: the rarest tokens
    carry the most BM25 weight (the highest IDF), and a very common one left out costs little.
    When every token is over the limits, the rarest one stays. ``stats``: the store's
    ``term_stats`` of these tokens when the caller has them already."""
    n, df = stats if stats is not None else store.term_stats(tokens)
    if n < min_docs:
        return tokens
    ranked = sorted(
        (t for t in dict.fromkeys(tokens) if df.get(t, 0) <= max_df * n),
        key=lambda t: df.get(t, 0),
    )
    kept: set[str] = set()
    visits = 0
    for token in ranked:
        visits += df.get(token, 0)
        if kept and postings_budget and visits > postings_budget:
            break
        kept.add(token)
    if not kept:
        return [min(tokens, key=lambda t: df.get(t, 0))]
    return [t for t in tokens if t in kept]


def lexical_candidates(
    store: LexicalStore,
    tokens: Sequence[str],
    filters: Filters | None,
    limit: int,
    now: float | None,
    *,
    context_weight: float,
    max_df: float,
    prune_min_docs: int,
    postings_budget: int = 0,
    stats: tuple[int, dict[str, int]] | None = None,
) -> list[tuple[int, float]]:
    """(rowid, BM25 score) best first for the query's tokens (``stats``: their
    ``term_stats``, when the caller has them)."""
    query = list(tokens)
    if not query:
        return []
    if max_df < 1.0 and prune_min_docs > 0:
        query = prune_common(store, query, max_df, prune_min_docs, postings_budget, stats)
    return store.lexical_search(query, filters, limit, now, context_weight=context_weight)
