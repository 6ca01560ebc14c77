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

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from remem.store.base import Store
from remem.types import Filters

ROWS = 200  # records read per sense: a sense that agrees nowhere in its newest 200 is dropped


@dataclass(frozen=True, slots=True)
class Sense:
    """One translation of one question word: its text and keyword tokens."""

    text: str
    tokens: tuple[str, ...]


def agreeing(
    store: Store,
    senses: Sequence[Sense],
    context: Collection[str],
    speakers: Collection[str],
    filters: Filters | None,
    now: float | None,
    limit: int = 0,
) -> list[Sense]:
    """The first ``limit`` (0: all) senses held by a record that also holds a ``context`` token (the question's other
    words and their translations) or is said by one of ``speakers`` (the people the question
    names), in their order. With no context and no speakers, every sense."""
    if not senses or (not context and not speakers):
        return list(senses[:limit] if limit else senses)
    kept = []
    for sense in senses:
        if _agrees(store, sense, set(context), set(speakers), filters, now):
            kept.append(sense)
            if len(kept) == limit:
                break
    return kept


def _agrees(
    store: Store,
    sense: Sense,
    context: set[str],
    speakers: set[str],
    filters: Filters | None,
    now: float | None,
) -> bool:
    own = set(sense.tokens)
    rowids = store.lexical_newest(list(sense.tokens), filters, ROWS, now)
    if not rowids:
        return False
    holding = {
        rowid: set(tokens)
        for rowid, tokens in store.lexical_tokens(rowids).items()
        if own <= set(tokens)
    }
    if any((tokens - own) & context for tokens in holding.values()):
        return True
    if speakers and holding:
        records = store.get_by_rowids(list(holding), filters, now)
        return any(r.speaker_label in speakers for r in records.values())
    return False
