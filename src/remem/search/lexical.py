"""The lexical channel: which query tokens to ask BM25 for, then the store's BM25 top-N."""

from __future__ import annotations

from collections.abc import Sequence

from remem.store.base import LexicalStore
from remem.store.queries import LexicalQuery
from remem.types import Filters

# The first pass of a two-pass keyword search keeps this many times the rows asked for.
FIRST_PASS_FACTOR = 4


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
    first_pass_budget: int = 0,
    stats: tuple[int, dict[str, int]] | None = None,
    scoped: tuple[int, dict[str, int]] | None = None,
) -> list[tuple[int, float]]:
    """(rowid, BM25 score) best first for the query's tokens (``stats``: their
    ``term_stats``, when the caller has them). In a store of ``prune_min_docs`` records or
    more, common words are left out (``prune_common``) and, when the words left hold more
    than ``first_pass_budget`` postings, the search runs in two passes (``two_pass``). With
    ``scoped`` (the counts of the records a narrowed search may return,
    ``scoped_terms.scoped_stats``), the rows found are scored with those counts
    (``rescored``); which words are asked stays decided by the store's."""
    query = list(tokens)
    if not query:
        return []
    if max_df < 1.0 and prune_min_docs > 0:
        stats = stats if stats is not None else store.term_stats(query)
        query = prune_common(store, query, max_df, prune_min_docs, postings_budget, stats)
        big = stats[0] >= prune_min_docs
        if big and first_pass_budget and _postings(query, stats) > first_pass_budget:
            rare = prune_common(store, query, max_df, prune_min_docs, first_pass_budget, stats)
            ranked = _postings(rare, stats) <= first_pass_budget
            return two_pass(store, rare, query, filters, limit, now, context_weight, ranked, scoped)
    if scoped is not None:
        pool = store.lexical_search(
            LexicalQuery(query, filters, now, context_weight), FIRST_PASS_FACTOR * limit
        )
        return rescored(store, [r for r, _ in pool], query, context_weight, scoped, limit)
    return store.lexical_search(LexicalQuery(query, filters, now, context_weight), limit)


def weigh_terms(
    store: LexicalStore,
    found: list[tuple[int, float]],
    terms: Sequence[str],
    weight: float,
    context_weight: float,
    scoped: tuple[int, dict[str, int]] | None = None,
) -> list[tuple[int, float]]:
    """The keyword channel's hits with these asked words' share of their BM25 score scaled by
    ``weight``, best first. BM25 is a sum over the asked words, so their share is their BM25
    over the same rows: subtracted in part (``weight`` < 1: a dictionary translation is
    weaker evidence than a word the question says) or added again in part (``weight`` > 1:
    a chat's speaker name says whose notes answer it)."""
    if weight == 1 or not terms or not found:
        return found
    share = store.lexical_rescore([r for r, _ in found], list(terms), context_weight, stats=scoped)
    scores = [(rowid, score + (weight - 1) * share.get(rowid, 0.0)) for rowid, score in found]
    return sorted(scores, key=lambda hit: (-hit[1], hit[0]))


def rescored(
    store: LexicalStore,
    rowids: list[int],
    tokens: list[str],
    context_weight: float,
    scoped: tuple[int, dict[str, int]],
    limit: int,
) -> list[tuple[int, float]]:
    """The best ``limit`` of these rows by BM25 with a scope's counts. The store's own BM25
    found them (FIRST_PASS_FACTOR x ``limit``): in a store shared by many chats a chat's
    speakers' names are rare store-wide and common in the chat, and the store's counts
    ranked the lines that name them first (remem-bench's shared-store.json)."""
    scores = store.lexical_rescore(rowids, tokens, context_weight, stats=scoped)
    return sorted(scores.items(), key=lambda hit: (-hit[1], hit[0]))[:limit]


def _postings(tokens: list[str], stats: tuple[int, dict[str, int]]) -> int:
    """Rows a BM25 query of these tokens visits (their document frequencies, summed)."""
    df = stats[1]
    return sum(df.get(t, 0) for t in dict.fromkeys(tokens))


def two_pass(
    store: LexicalStore,
    rare: list[str],
    scored: list[str],
    filters: Filters | None,
    limit: int,
    now: float | None,
    context_weight: float,
    ranked: bool = True,
    scoped: tuple[int, dict[str, int]] | None = None,
) -> list[tuple[int, float]]:
    """The keyword search of a big store in two passes. The full-text index scores every
    row holding an asked word, so its time follows the asked words' postings: the first pass
    asks only for the rarest words (``rare``, a few thousand postings) and keeps
    FIRST_PASS_FACTOR x ``limit`` rows; the second scores just those rows for every word worth
    asking (``scored``), with the same BM25 statistics (``lexical_rescore``). Rows that hold
    none of the rare words are missed; on the 100k store of remem-bench's ``lexical_budget.py`` that
    cost 0.0001 recall@10, against 0.03 for asking the rare words alone.

    When even the rarest word is over the budget (``ranked`` False: a query of common words
    only), ranking all its rows would visit them all; the first pass takes the newest rows
    holding it instead (``lexical_newest``), so the cost stays bounded. With ``scoped``, every
    row found is scored with those counts (``rescored``)."""
    pool = FIRST_PASS_FACTOR * limit
    if not ranked:
        rowids = store.lexical_newest(LexicalQuery(rare, filters, now, context_weight), pool)
        scores = store.lexical_rescore(rowids, scored, context_weight, stats=scoped)
        return sorted(scores.items(), key=lambda hit: (-hit[1], hit[0]))[:limit]
    found = dict(store.lexical_search(LexicalQuery(rare, filters, now, context_weight), pool))
    if scoped is not None:
        return rescored(store, list(found), scored, context_weight, scoped, limit)
    # BM25 is a sum over the query's phrases, each with its own idf and the row's length:
    # the first pass's scores already hold the rare words' share, so only the other words
    # are scored here (every occurrence of a rare word is in ``rare``; see prune_common)
    kept = set(rare)
    others = [t for t in scored if t not in kept]
    if others:
        for rowid, more in store.lexical_rescore(list(found), others, context_weight).items():
            found[rowid] += more
    return sorted(found.items(), key=lambda hit: (-hit[1], hit[0]))[:limit]
