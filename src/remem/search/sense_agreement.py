"""Which of a question word's translations agree with the rest of the question in the store.

A dictionary sense the store holds is not yet the sense the question means: "Where does Tom
live now?" finds 热闹 ("lively") in a line about a dinner, which says nothing of Tom. A sense
is kept only when some record holding it also holds something else of the question: one of
its other words (as asked, or translated) or a person it names (the record's speaker, or the
name in its text). A question with nothing else the store holds keeps every sense: there is
nothing to agree with.

The check reads, per sense, the newest ``ROWS`` records holding it (unscored: a walk of its
postings that stops early) and their indexed tokens, so it costs two small reads per sense
whatever the store's size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from remem.store.base import Store
from remem.store.queries import LexicalQuery
from remem.types import Filters

ROWS = 200  # records read per sense: a sense that agrees nowhere in its newest 200 is dropped


@dataclass(frozen=True, slots=True)
class Sense:
    """One translation of one question word: its text and keyword tokens."""

    text: str
    tokens: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Question:
    """What a sense may agree with: the question's own tokens in the senses' script (a name,
    a word it code-switches to), its other words' translations, the people it names."""

    own: frozenset[str] = frozenset()
    translated: frozenset[str] = frozenset()
    speakers: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.own or self.translated or self.speakers)


def agreeing(
    store: Store,
    senses: Sequence[Sense],
    question: Question,
    filters: Filters | None,
    now: float | None,
    limit: int = 0,
) -> list[Sense]:
    """The first ``limit`` (0: all) senses, in their order, held by a record that also holds
    one of the question's own tokens or was said by a person it names, or that is in a
    session where a translation of another of its words is (an answer spread over a few
    turns: 婚礼 in one line, 宴会厅 in another). With nothing to agree with, every sense."""
    if not senses or not question:
        return list(senses[:limit] if limit else senses)
    sessions: set[str] | None = None  # the sessions holding another word's translation
    kept = []
    for sense in senses:
        holding = _holding(store, sense, filters, now)
        if any(tokens & (question.own | question.translated) for tokens in holding.values()):
            agrees = True
        else:
            records = store.get_by_rowids(list(holding), filters, now) if holding else {}
            if sessions is None:
                sessions = _sessions(store, question.translated, filters, now)
            agrees = any(
                r.speaker_label in question.speakers or (r.session and r.session in sessions)
                for r in records.values()
            )
        if agrees:
            kept.append(sense)
            if len(kept) == limit:
                break
    return kept


def _holding(
    store: Store, sense: Sense, filters: Filters | None, now: float | None
) -> dict[int, set[str]]:
    """The newest ``ROWS`` records holding every token of the sense: rowid -> their other
    tokens."""
    own = set(sense.tokens)
    rowids = store.lexical_newest(LexicalQuery(sense.tokens, filters, now), ROWS)
    found = store.lexical_tokens(rowids) if rowids else {}
    return {r: set(tokens) - own for r, tokens in found.items() if own <= set(tokens)}


def _sessions(
    store: Store, tokens: frozenset[str], filters: Filters | None, now: float | None
) -> set[str]:
    """The sessions of the newest ``ROWS`` records holding any of these tokens."""
    if not tokens:
        return set()
    rowids = store.lexical_newest(LexicalQuery(sorted(tokens), filters, now), ROWS)
    records = store.get_by_rowids(rowids, filters, now) if rowids else {}
    return {r.session for r in records.values() if r.session}
