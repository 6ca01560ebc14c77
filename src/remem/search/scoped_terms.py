"""Which of a question's words the records a search may return hold.

The relevance stage reads a word no record holds as the store never having talked of it
(``query_terms.unseen_share``, ``unseen_latin``; the translations the store holds,
``translate.py``). Counted over the whole store, that reads other chats: in a store a bot
shares between many groups, a name one group mentions made every group's question about it
look talked of; and the chat path's own turn, archived before its recall runs (and left out of
it by id), made every word of the turn look held. So a search narrowed by filters counts what
its filters let it see: the records matching them (up to what the rules need to know) and, of
the question's words the whole store holds, those some such record holds in its text or its
context (a word held by more than PROBE_MAX records is taken as held: no name a chat never
said is that common, and a probe for a word its records lack walks all of the word's rows).

A search narrowed to under half the store (and under SCOPE_MAX records) by filters that select
records, not only leave some out, also weighs words by the records it may return
(``statistics_scope``, ``scoped_stats``): its BM25 and its IDF weights count them, not the
store. In a store shared by many chats a chat's own speakers' names are rare store-wide and
common in the chat; counted over the store they outweighed everything else (LoCoMo in one
store, each conversation asked through its sessions: MRR 0.562 against 0.606 in a store per
conversation, and 0.606 again with the scope's counts; remem-bench's shared-store.json).
"""

from __future__ import annotations

from collections.abc import Sequence

from remem.store.base import Store
from remem.store.queries import LexicalQuery
from remem.types import Filters

Stats = tuple[int, dict[str, int]]  # (records, {token: records holding it})

# A word held by more records than this is taken as held by a narrowed search's records
# without a probe (a probe for a word they lack walks all of its rows: ~50 ms for 100k).
PROBE_MAX = 2_000


def narrows(filters: Filters | None) -> bool:
    """Whether a search with these filters may see fewer records than the store holds."""
    return filters is not None and not filters.is_empty()


def in_scope(
    store: Store,
    stats: Stats,
    filters: Filters | None,
    now: float | None,
    *,
    at_least: int,
    wanted: Sequence[str] | None = None,
) -> Stats:
    """``stats`` (the whole store's ``term_stats``) as the records passing ``filters`` see
    them: how many records pass, counted no further than ``at_least``, and each token's count
    kept for the tokens one of them holds (the others dropped: the search sees none); only
    the ``wanted`` tokens are asked about (all by default). Unchanged without filters. The
    unseen-word rules are off below ``at_least`` records, so there the tokens are not probed
    and no token is held."""
    if not narrows(filters):
        return stats
    n, df = stats
    seen = store.count(filters, up_to=at_least) if n >= at_least else n
    if seen < at_least:
        return seen, {}
    asked = df if wanted is None else {t: df[t] for t in wanted if t in df}
    held = held_tokens(store, [t for t, c in asked.items() if c], filters, now, df)
    return seen, {t: c for t, c in asked.items() if t in held}


def held_tokens(
    store: Store,
    tokens: Sequence[str],
    filters: Filters | None,
    now: float | None,
    df: dict[str, int] | None = None,
) -> set[str]:
    """The tokens some record passing ``filters`` holds in its own text or its context (the
    columns ``term_stats`` counts): one index probe each, stopped at the first record; with
    ``df`` (the store's counts), a token held by more than PROBE_MAX records is taken as
    held unasked."""
    common = {t for t in tokens if df is not None and df.get(t, 0) > PROBE_MAX}
    return common | {
        t
        for t in dict.fromkeys(tokens)
        if t not in common and store.lexical_newest(LexicalQuery([t], filters, now, 1.0), 1)
    }


# A narrowed search's BM25 counts the records it may return (scoped_stats) once its filters
# leave it under this share of the store, and under SCOPE_MAX records: past either, the
# scope's counts are near the store's, and counting them would walk most of each word's rows.
STORE_SHARE = 0.5
SCOPE_MAX = 20_000
# Filters that only leave records out (the turn itself, the bot's own lines, memories that
# ended) select no chat: the store's counts stand, and nothing is counted to learn it.
_SELECTING = ("kinds", "scopes", "sessions", "roles", "since", "until", "platform", "category")
# Exactly counted, rarest first, up to this many of the question words' rows (one walk of
# 20k rows costs a few ms); the rest, common words that weigh little, get their share of the
# store.
COUNT_BUDGET = 20_000


def statistics_scope(store: Store, filters: Filters | None, n: int) -> Filters | None:
    """The filters whose records a search's BM25 is counted over: its own, when they select
    records (not only leave some out) and leave it under STORE_SHARE of the store's ``n``
    records and under SCOPE_MAX; else None (the store's counts)."""
    if filters is None or n <= 1:
        return None
    if filters.ids is None and not any(getattr(filters, f) is not None for f in _SELECTING):
        return None
    share = max(1, min(int(n * STORE_SHARE), SCOPE_MAX))
    return filters if store.count(filters, up_to=share) < share else None


def scoped_stats(
    store: Store,
    tokens: Sequence[str],
    scope: Filters,
    now: float | None,
    context_weight: float,
    stats: Stats,
) -> Stats:
    """(records passing ``scope``, {token: those holding it}) as BM25 counts them
    (``Store.phrase_counts``), for the tokens the store holds (``stats``: its counts): the
    rarest exactly, within COUNT_BUDGET of their rows, the others their share of the store."""
    n, df = stats
    exact: list[str] = []
    walked = 0
    for token in sorted((t for t in dict.fromkeys(tokens) if df.get(t, 0)), key=df.__getitem__):
        walked += df[token]
        if walked > COUNT_BUDGET:
            break
        exact.append(token)
    inside, counted = store.phrase_counts(LexicalQuery(exact, scope, now, context_weight))
    for token, count in df.items():
        if count and token not in exact and n:
            counted[token] = max(1, round(count * inside / n))
    return inside, counted


def search_counts(
    store: Store,
    tokens: Sequence[str],
    filters: Filters | None,
    now: float | None,
    context_weight: float,
    stats: Stats,
) -> Stats | None:
    """The counts a search with ``filters`` weighs its words by (``scoped_stats``), or None
    when the store's (``stats``) stand (``statistics_scope``)."""
    scope = statistics_scope(store, filters, stats[0])
    if scope is None:
        return None
    return scoped_stats(store, tokens, scope, now, context_weight, stats)
