"""Chat evidence: does a hit hold what a chat by people the store knows is about (issue 45)?

A query that is the chat so far by people the store knows is held to the chat's own low
relevance floor (``search.dialogue_relevance_floor``, decision 0025), so every line its
speaker ever said clears it: asked of a store, a known person's unrelated chat was answered
by search every time. The hit inputs of the answerability score read the whole chat's words
(``subject_near``), diluted by every message. ``chat_words`` reads it message by message, as
the relevance stage's coverage does (``query_terms.message_weights``), but with the people's
names and the speakers' labels left out: the best share of one message's words that the hit
and its neighbours hold, times how much the message counts (the newest 1, each older one
less). A line by the chat's speaker that holds none of what any message says scores 0 however
close its vector is. None for any query that is not such a chat.

Measured alone and in the fit in docs/decisions/0014-answerability.md ("The chat input").
"""

from __future__ import annotations

from typing import Protocol

from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.search.query_terms import message_weights, term_coverage
from remem.text.dialogue import speaker_labels


class ChatEvidence(Protocol):
    """What this input reads of the answerability stage's ``HitEvidence``."""

    ctx: StageContext
    weights: dict[str, float]  # the question's IDF weights, people's names left out
    near_tokens: dict[int, set[str]]  # rowid -> tokens of the hit and its neighbours
    own_tokens: dict[int, list[str]]  # rowid -> the hit's own tokens
    chat_labels: frozenset[str] | None  # the chat's speaker labels' tokens, once read


def chat_words(c: Candidate, ev: ChatEvidence) -> float | None:
    """The best message's words (names left out) held by the hit and its neighbours, weighed
    by how much the message counts; None unless the query is a known person's chat."""
    ctx = ev.ctx
    if not ctx.verdict.own_chat or ctx.readers.tokenizer is None:
        return None
    labels = _label_tokens(ev)
    tokens = ev.near_tokens.get(c.rowid)
    if tokens is None:
        tokens = set(ev.own_tokens.get(c.rowid, ()))
    best = 0.0
    for counts, weights in message_weights(ctx):
        words = {t: w for t, w in weights.items() if t in ev.weights and t not in labels}
        if words and counts > best:
            best = max(best, counts * term_coverage(words, tokens, ctx.understood.forms))
    return best


def _label_tokens(ev: ChatEvidence) -> frozenset[str]:
    """The tokens of the chat's speaker labels (its people and the assistant), read once."""
    if ev.chat_labels is None:
        tokenizer = ev.ctx.readers.tokenizer
        labels = " ".join(speaker_labels(ev.ctx.request.query))
        ev.chat_labels = frozenset(tokenizer.query_tokens(labels) if tokenizer else ())
    return ev.chat_labels
