"""The question's words, weighed: what the relevance stage and the stages that read words
(speakers, links, adaptive fusion) count a candidate's text against.

- IDF weights from the store's term counts, computed once per search (``query_weights``);
  in a store under UNSEEN_MIN_RECORDS records, where IDF cannot tell, the words weigh what
  they say in general language instead (``general_weights``, ``embed/word_rarity.py``).
- Coverage: the share of that weight a text holds (``term_coverage``), a word's other forms
  counting as the word (``text/word_forms.py``). A query that is the chat so far
  (``text/dialogue.py``) is also read message by message (``message_weights``): a line that
  holds what one message asks covers the chat, the older messages counting a little less than
  the newest.
- What the store never saw: the share of the weight on words no record holds
  (``unseen_share``) and a Chinese or Japanese question's Latin-script words no record holds
  (``unseen_latin``), which the relevance stage reads as the store never having talked of
  what is asked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from remem.embed.word_rarity import word_rarity
from remem.search.context import StageContext
from remem.search.scoped_terms import Stats, in_scope, search_counts
from remem.store.base import LexicalStore
from remem.text.dialogue import dialogue_messages
from remem.text.tokenize import Tokenizer
from remem.text.word_forms import other_forms


def idf_weights(store: LexicalStore, tokens: Sequence[str]) -> dict[str, float]:
    """BM25's IDF of each distinct query token, ln(1 + (N - df + 0.5) / (df + 0.5))."""
    distinct = list(dict.fromkeys(tokens))
    if not distinct:
        return {}
    return idf_from_stats(store.term_stats(distinct), distinct)


def idf_from_stats(stats: tuple[int, dict[str, int]], tokens: Sequence[str]) -> dict[str, float]:
    """``idf_weights`` from term statistics the caller already has (``LexicalStore.term_stats``
    of at least these tokens)."""
    n, df = stats
    return {
        t: math.log(1 + (n - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5))
        for t in dict.fromkeys(tokens)
    }


def term_coverage(
    weights: dict[str, float], text_tokens: Iterable[str], forms: dict[str, str] | None = None
) -> float:
    """IDF-weighted share of the query's terms that the text contains, in [0, 1]; with
    ``forms`` (another form's token -> the query's token: ``ctx.understood.forms``) a text holding
    "went" holds the query's "go"."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    present = set(text_tokens)
    if forms:
        present.update(forms[t] for t in present.intersection(forms))
    return sum(w for t, w in weights.items() if t in present) / total


def query_weights(ctx: StageContext) -> dict[str, float]:
    """The query's IDF weights, computed once per search (and ``ctx.understood.unseen`` and
    ``ctx.understood.forms`` with them, from the same term counts)."""
    if ctx.understood.weights is None:
        if ctx.readers.tokenizer is None or ctx.readers.store is None:
            return {}
        tokens = list(dict.fromkeys(ctx.readers.tokenizer.query_tokens(ctx.request.query)))
        forms = other_forms(ctx.readers.tokenizer, tokens, on=ctx.request.config.text.word_forms)
        asked = tokens + list(forms)
        stats = ctx.readers.store.term_stats(asked) if tokens else (0, {})
        # as the keyword channel would have counted them (search.py), had it run
        weight = ctx.request.config.search.context_weight
        scoped = search_counts(
            ctx.readers.store, asked, ctx.request.filters, ctx.request.now, weight, stats
        )
        weigh_query(ctx, tokens, forms, stats, scoped)
    return ctx.understood.weights or {}


def weigh_query(
    ctx: StageContext,
    tokens: list[str],
    forms: dict[str, str],
    stats: Stats,
    scoped: Stats | None = None,
) -> None:
    """Set the query's IDF weights, unseen share and word forms from the store's term counts
    of its tokens and their other forms (``text/word_forms.py``), or from the counts of the
    records a narrowed search may return (``scoped``: ``scoped_terms.scoped_stats``). A word
    is as common as all its forms together: the records holding "went" also hold what "go"
    asks. What is unseen is counted over the records the search's filters let it see
    (``scoped_terms.py``)."""
    weighed = scoped if scoped is not None else stats
    n = weighed[0]
    ctx.understood.forms = forms
    ctx.understood.weights = idf_from_stats(with_forms(weighed, forms), tokens)
    # what the search may return has talked of: its filters' records (scoped_terms.py)
    seen = weighed
    if scoped is None and ctx.readers.store is not None:
        wanted = [*tokens, *forms]  # not the translations: the rules read the question's words
        seen = in_scope(
            ctx.readers.store,
            stats,
            ctx.request.filters,
            ctx.request.now,
            at_least=UNSEEN_MIN_RECORDS,
            wanted=wanted,
        )
    seen = with_forms(seen, forms)
    ctx.understood.unseen = unseen_share(ctx.understood.weights, seen)
    if ctx.readers.tokenizer is not None:
        capitalised = set(capitalised_tokens(ctx.readers.tokenizer, ctx.request.query))
        ctx.understood.unseen_latin = unseen_latin([t for t in tokens if t in capitalised], seen)
    if tokens and n < UNSEEN_MIN_RECORDS and ctx.readers.tokenizer is not None:
        general = general_weights(ctx.readers.tokenizer, ctx.request.query, tokens)
        if general is not None:
            ctx.understood.weights = general


def with_forms(stats: Stats, forms: dict[str, str]) -> Stats:
    """Term counts with each query token counting the records of its other forms too."""
    n, df = stats
    merged = dict(df)
    for form, token in forms.items():
        # a record holding "go" and "went" is one record: never more than the store holds
        merged[token] = min(n, merged.get(token, 0) + df.get(form, 0))
    return n, merged


def general_weights(tokenizer: Tokenizer, query: str, tokens: list[str]) -> dict[str, float] | None:
    """The query's tokens weighed by how much their words say in general language
    (``embed/word_rarity.py``), for a store too small for IDF to tell; None without it, or
    when it weighs every token at nothing (then the store's IDF stands)."""
    word_of: dict[str, str] = {}
    for word, token in tokenizer.word_pairs(query):
        word_of.setdefault(token, word)
    found = word_rarity().weights(word_of.get(t, t) for t in tokens)
    if not found or not any(found.values()):
        return None
    return {t: found[word_of.get(t, t)] for t in tokens}


# A word no record holds says the store never talked about it only once the store has had room
# to: in LongMemEval oracle's stores (2-68 records, the evidence sessions alone) "total",
# "number" or "interest" are missing from answerable questions' stores; the same questions asked
# of 220- and 550-record pools of them (remem-bench's pooled_longmemeval.py) lose nothing to it.
UNSEEN_MIN_RECORDS = 100


def unseen_share(weights: dict[str, float], stats: tuple[int, dict[str, int]]) -> float:
    """The share of the query's IDF carried by words no record of the store holds (0 in a store
    of fewer than UNSEEN_MIN_RECORDS records)."""
    n, df = stats
    total = sum(weights.values())
    if total <= 0 or n < UNSEEN_MIN_RECORDS:
        return 0.0
    return sum(w for t, w in weights.items() if not df.get(t, 0)) / total


_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def capitalised_tokens(tokenizer: Tokenizer, query: str) -> list[str]:
    """The keyword tokens of the query's Latin-script words written with a capital: in a
    Chinese question the names and products (Caroline, MySQL, iPhone), not an English word
    typed among the Chinese ("外婆 checkup 查出什么问题？")."""
    words = [w.lower() for w in _LATIN_WORD.findall(query) if not w.islower()]
    return [t for t in tokenizer.word_tokens(words) if t]


def unseen_latin(tokens: list[str], stats: tuple[int, dict[str, int]]) -> tuple[str, ...]:
    """Of the given Latin-script tokens, those no record holds, in a store of
    UNSEEN_MIN_RECORDS records or more: words of three characters or more, two of them
    different, not numbers (Wi-Fi's "wi", v2.x's "x", "hhh" laughing are no names)."""
    n, df = stats
    if n < UNSEEN_MIN_RECORDS:
        return ()
    return tuple(
        t
        for t in tokens
        if t.isascii() and t.isalpha() and len(t) >= 3 and len(set(t)) >= 2 and not df.get(t, 0)
    )


def unseen_in_either_script(ctx: StageContext, words: Sequence[str]) -> tuple[str, ...]:
    """Of the question's Latin-script words no record holds, those whose dictionary
    translations (CC-CEDICT) the store does not hold either, as the search's translation
    found them (``ctx.understood.held_english``): "Hospital" in a chat that says 医院 was talked of;
    nor a speaker the question names otherwise than their label ("Xiaoming" for 王小明)."""
    if not words:
        return ()
    named: set[str] = set()
    if ctx.understood.named and ctx.readers.tokenizer is not None:
        aliases = [n.casefold() for pair in ctx.understood.named.items() for n in pair]
        named = {t for alias in aliases for t in ctx.readers.tokenizer.phrase_tokens(alias)}
    return tuple(w for w in words if w not in ctx.understood.held_english and w not in named)


# A message of the chat so far is judged on its own only when it holds this many of the query's
# weighed words: one word ("morning!", "ok thanks") says too little to vouch for a line.
MESSAGE_MIN_WORDS = 2
# Each message older than the newest counts this much less than the one after it.
MESSAGE_AGE_FACTOR = 0.9


def message_weights(ctx: StageContext) -> list[tuple[float, dict[str, float]]]:
    """For a query that is the chat so far (``text/dialogue.py``): (how much it counts, the
    query's weights of its words) for each message of MESSAGE_MIN_WORDS weighed words or more,
    newest first, the newest counting 1 and each older one MESSAGE_AGE_FACTOR times less;
    [] for any other query. Computed once per search."""
    if ctx.understood.message_weights is None:
        ctx.understood.message_weights = []
        weights = query_weights(ctx)
        messages = dialogue_messages(ctx.request.query) if ctx.readers.tokenizer is not None else []
        for age, message in enumerate(reversed(messages)):
            assert ctx.readers.tokenizer is not None
            own = {
                t: weights[t] for t in ctx.readers.tokenizer.query_tokens(message) if t in weights
            }
            if len(own) >= MESSAGE_MIN_WORDS:
                ctx.understood.message_weights.append((MESSAGE_AGE_FACTOR**age, own))
    return ctx.understood.message_weights


def own_coverage(text: str, ctx: StageContext, indexed: list[str] | None = None) -> float:
    """``term_coverage`` of the candidate's own tokens: as the store indexed them when given
    (one read for all candidates; tokenizing each text again cost ~8 ms per search at 100k),
    else the text's tokens now. For the chat so far, the better of the whole query's and each
    message's coverage, times how much the message counts (``message_weights``): a dialogue's
    every word diluted the share of a note that answers one of its messages below every floor
    (dialogue_notes: hybrid recall@10 0.555 with the floors, 0.943 without)."""
    if ctx.readers.tokenizer is None:
        return 0.0
    tokens = indexed if indexed is not None else ctx.readers.tokenizer.index_tokens(text)
    best = term_coverage(query_weights(ctx), tokens, ctx.understood.forms)
    for counts, weights in message_weights(ctx):
        if counts > best:
            best = max(best, counts * term_coverage(weights, tokens, ctx.understood.forms))
    return best


def translated_coverage(ctx: StageContext, indexed: list[str] | None, own: float) -> float:
    """A hit judged by words alone (no vector) covers a question in the other script through
    its translations: the better of its own words' and its translations' coverage. With a
    vector the question's own words decide: counting translations there too let 9 points
    more off-topic probes through the 0.2 floor for 0.002 recall@10
    (remem-bench's translated-coverage.json)."""
    if not ctx.understood.translated_weights or indexed is None:
        return own
    return max(own, term_coverage(ctx.understood.translated_weights, indexed))
