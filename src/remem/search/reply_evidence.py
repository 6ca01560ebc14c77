"""Reply evidence for the answerability score: the turn before a hit asked what the question asks.

An answer that replies to the turn before it ("Which book is the club reading for May?" ->
"Circe, I think.") names little of the question; the line it answers does. The score's hit part
reads the hit and, through ``subject_near``, the words of its neighbours, but nothing there says
"the turn just before this one asked what the question asks, and someone else asked it". These
inputs say it (issue 45), from what the answerability stage already has: the candidates (their
relevance and order) and the two turns before each scored hit in its session, read in the same
store read as the best hits' neighbours (``answerability._read_neighbours``).

- ``prev_asks``: 1 when the turn just before the hit asks (``asks``) and another speaker said it.
- ``reply_subject``: the share of the question's words (people's names left out) that an asking
  turn by another speaker (either of the two before the hit: a reply can follow one line after
  the question) holds and the hit does not: max(0, its coverage - the hit's own); 0 when none asks.
- ``reply_lift``: how far such an asking turn's relevance is above the hit's (0 when none asks;
  a turn the search did not find counts as relevance 0).
- ``prev_relevance``, ``prev_rank``, ``prev_subject``: the turn just before the hit's relevance,
  place among the candidates (log; ``NO_RANK`` when it is not one) and subject match, asking or
  not (the shipped fit reads all six: with the three above alone mixed_script's MRR in the
  score's order fell 0.009, decision 0014).

A session's first turn answers nothing before it: its inputs are 0 (``prev_rank`` the rank of a
line that is not a candidate). A hit without a session, or a search without a store or a
tokenizer, has none (None: each counts as the fit's mean).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.search.query_terms import term_coverage
from remem.types import Record

LOOK_BACK = 2  # turns before a hit read: a reply can follow one line after the question
# the rank of a line that is not a candidate (answerability.py: of any rank a hit lacks)
NO_RANK = 200
REPLY_INPUTS = (
    "prev_asks",
    "reply_subject",
    "reply_lift",
    "prev_relevance",
    "prev_rank",
    "prev_subject",
)
# a Chinese question particle ending a line asks ("你明天来吗"); "吗是一个字" does not
_ASKS_END = ("吗", "呢", "么", "吧")


def asks(text: str) -> bool:
    """A line that asks: a question mark in it, or a Chinese question particle at its end."""
    stripped = text.strip().rstrip("。.!！~～ ")
    return "?" in text or "？" in text or stripped.endswith(_ASKS_END)


class SearchEvidence(Protocol):
    """What these inputs read of the answerability stage's ``HitEvidence``."""

    ctx: StageContext
    weights: dict[str, float]  # the question's IDF weights, names of people left out
    rank: dict[int, int]  # rowid -> 1-based rank by the pipeline's score so far
    # rowid -> the turns before the hit in its session, nearest first (None: not read)
    earlier: dict[int, list[Record]] | None
    by_id: dict[str, Candidate]  # record id -> candidate, every candidate of the search
    replies: dict[int, dict[str, float] | None]  # rowid -> its reply inputs, once computed
    # record id -> the share of the question's words its text holds: a turn is often before
    # more than one scored hit, or a scored hit itself (tokenizing is most of these inputs' cost)
    coverage: dict[str, float]

    def tokens_of(self, record: Record) -> list[str]: ...  # its text's tokens, once per search


def reply_row(c: Candidate, ev: SearchEvidence) -> dict[str, float] | None:
    """The hit's ``REPLY_INPUTS`` (computed once per hit; None when it has none)."""
    if c.rowid not in ev.replies:
        ev.replies[c.rowid] = _compute(c, ev)
    return ev.replies[c.rowid]


def _compute(c: Candidate, ev: SearchEvidence) -> dict[str, float] | None:
    if ev.earlier is None or ev.ctx.readers.tokenizer is None:
        return None
    if c.record is None or not c.record.session:
        return None
    earlier = ev.earlier.get(c.rowid, [])
    if not earlier:  # a session's first turn answers nothing before it
        return dict.fromkeys(REPLY_INPUTS, 0.0) | {"prev_rank": math.log1p(NO_RANK)}
    forms = ev.ctx.understood.forms

    def coverage(record: Record) -> float:
        if not ev.weights:
            return 0.0
        if record.id not in ev.coverage:
            ev.coverage[record.id] = term_coverage(ev.weights, ev.tokens_of(record), forms)
        return ev.coverage[record.id]

    own_rel = c.relevance or 0.0
    prev = earlier[0]
    prev_cand = ev.by_id.get(prev.id)
    row = {
        "prev_asks": 0.0,
        "reply_subject": 0.0,
        "reply_lift": 0.0,
        "prev_relevance": _relevance(prev_cand),
        "prev_rank": math.log1p(ev.rank.get(prev_cand.rowid, NO_RANK) if prev_cand else NO_RANK),
        "prev_subject": coverage(prev),
    }
    speaker = c.record.speaker_label
    for i, turn in enumerate(earlier[:LOOK_BACK]):
        if not asks(turn.text) or (speaker and turn.speaker_label == speaker):
            continue  # a speaker's own question is not what their next line answers
        if i == 0:
            row["prev_asks"] = 1.0
        row["reply_subject"] = max(row["reply_subject"], coverage(turn) - coverage(c.record))
        row["reply_lift"] = max(row["reply_lift"], _relevance(ev.by_id.get(turn.id)) - own_rel)
    return row


def _relevance(c: Candidate | None) -> float:
    """A turn's relevance: 0 when the search did not find it (a line it did not find is not
    about the question)."""
    return (c.relevance or 0.0) if c is not None else 0.0


def _feature(name: str) -> Callable[[Candidate, SearchEvidence], float | None]:
    def read(c: Candidate, ev: SearchEvidence) -> float | None:
        row = reply_row(c, ev)
        return None if row is None else row[name]

    read.__name__ = name
    read.__doc__ = f"The hit's ``{name}`` (``reply_row``)."
    return read


# name -> feature, in the answerability stage's ``FEATURES``
REPLY_FEATURES = {name: _feature(name) for name in REPLY_INPUTS}
