"""Which of a question's words the records a search may return hold.

The relevance stage reads a word no record holds as the store never having talked of it
(``query_terms.unseen_share``, ``unseen_latin``; the translations the store holds,
``translate.py``). Counted over the whole store, that reads other chats: in a store a bot
shares between many groups, a name one group mentions made every group's question about it
look talked of; and the chat path's own turn, archived before its recall runs (and left out of
it by id), made every word of the turn look held. So a search narrowed by filters counts what
its filters let it see: the records matching them (up to what the rules need to know) and, of
the words the whole store holds, those some such record holds in its text or its context.

IDF weights stay the store's: a word's weight is how common it is in the language of the
store, which a narrow filter of a few records would only make noisy.
"""

from __future__ import annotations

from collections.abc import Sequence

from remem.store.base import Store
from remem.types import Filters

Stats = tuple[int, dict[str, int]]  # (records, {token: records holding it})


def narrows(filters: Filters | None) -> bool:
    """Whether a search with these filters may see fewer records than the store holds."""
    return filters is not None and not filters.is_empty()


def in_scope(
    store: Store, stats: Stats, filters: Filters | None, now: float | None, *, at_least: int
) -> Stats:
    """``stats`` (the whole store's ``term_stats``) as the records passing ``filters`` see
    them: how many records pass, counted no further than ``at_least``, and each token's count
    kept for the tokens one of them holds (the others dropped: the search sees none).
    Unchanged without filters. The unseen-word rules are off below ``at_least`` records, so
    there the tokens are not probed and no token is held."""
    if not narrows(filters):
        return stats
    n, df = stats
    seen = store.count(filters, up_to=at_least) if n >= at_least else n
    if seen < at_least:
        return seen, {}
    held = held_tokens(store, [t for t, c in df.items() if c], filters, now)
    return seen, {t: c for t, c in df.items() if t in held}


def held_tokens(
    store: Store, tokens: Sequence[str], filters: Filters | None, now: float | None
) -> set[str]:
    """The tokens some record passing ``filters`` holds in its own text or its context (the
    columns ``term_stats`` counts): one index probe each, stopped at the first record."""
    return {
        t
        for t in dict.fromkeys(tokens)
        if store.lexical_newest([t], filters, 1, now, context_weight=1.0)
    }
