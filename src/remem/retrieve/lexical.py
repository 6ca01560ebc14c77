"""The lexical channel: which query tokens to ask BM25 for, then the store's BM25 top-N."""

from __future__ import annotations

from collections.abc import Sequence

from remem.store.base import LexicalStore
from remem.types import Filters


def prune_common(store: LexicalStore, tokens: list[str], max_df: float, min_docs: int) -> list[str]:
    """In a store of at least ``min_docs`` records, leave out query tokens found in more than
    ``max_df`` of them: they add almost nothing to BM25 but make it visit most rows. When
    every token is that common, the rarest one stays."""
    n, df = store.term_stats(tokens)
    if n < min_docs:
        return tokens
    kept = [t for t in tokens if df.get(t, 0) <= max_df * n]
    return kept or [min(tokens, key=lambda t: df.get(t, 0))]


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
) -> list[tuple[int, float]]:
    """(rowid, BM25 score) best first for the query's tokens."""
    query = list(tokens)
    if not query:
        return []
    if max_df < 1.0 and prune_min_docs > 0:
        query = prune_common(store, query, max_df, prune_min_docs)
    return store.lexical_search(query, filters, limit, now, context_weight=context_weight)
