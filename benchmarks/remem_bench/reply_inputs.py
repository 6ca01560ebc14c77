"""Reply inputs for the answerability score, computed on the benchmark side only (issue 45).

An answer that replies to the turn before it ("Which book is the club reading for May?" ->
"Circe, I think.") names little of the question; the line it answers does. The score's hit
part reads the hit and, through ``subject_near``, the words of its neighbours, but nothing says
"the turn just before this one asked what the question asks, and someone else asked it". These
inputs say it, from what the answerability stage already has: the candidates (their relevance
and order) and one store read of each hit's previous turns in its session.

- ``prev_relevance``: the relevance of the turn just before the hit when that turn is a
  candidate (0 when it is not: a line the search did not find is not about the question).
- ``prev_rank``: that turn's place among the candidates by the pipeline's score (log; the
  pool's size when it is not a candidate).
- ``prev_subject``: the share of the question's words (people's names left out) that turn holds.
- ``prev_asks``: 1 when that turn asks (a question mark, or a Chinese question particle at its
  end) and is by another speaker than the hit.
- ``reply_subject``: the question's words in an asking turn before the hit (either of the two
  before it) that the hit lacks: max(0, its coverage - the hit's own), 0 when neither asks.
- ``reply_lift``: how far the asking turn's relevance is above the hit's (0 when none asks).

Nothing here ships: ``fit_answerability.py --reply`` adds these to each dumped hit's inputs
and ``--inputs`` lets a fit read them (``answerability_reply.py`` measures the result).
"""

from __future__ import annotations

import math
from typing import Any

from remem.search import answerability as score_module
from remem.search.query_terms import term_coverage
from remem.store.queries import SessionWindow

REPLY_INPUTS = (
    "prev_relevance",
    "prev_rank",
    "prev_subject",
    "prev_asks",
    "reply_subject",
    "reply_lift",
)
LOOK_BACK = 2  # turns before the hit read: a reply can follow one line after the question
_ASKS_END = ("吗", "呢", "么", "吧")


def asks(text: str) -> bool:
    """A line that asks: a question mark in it, or a Chinese question particle at its end."""
    stripped = text.strip().rstrip("。.!！~～ ")
    return "?" in text or "？" in text or stripped.endswith(_ASKS_END)


def reply_rows(cands: list[Any], ctx: Any) -> dict[int, dict[str, float | None]]:
    """rowid -> ``REPLY_INPUTS`` for every candidate with a session (a session's first turn:
    no turn before it; none when the store or the tokenizer is not at hand: every input then
    counts as the fit's mean)."""
    store, tokenizer = ctx.readers.store, ctx.readers.tokenizer
    if store is None or tokenizer is None or not cands:
        return {}
    ev = score_module.evidence_for(cands, ctx)
    by_id = {c.record.id: c for c in cands if c.record is not None}
    records = [c.record for c in cands if c.record is not None and c.record.session]
    window = SessionWindow(LOOK_BACK, 0, ctx.request.filters, ctx.request.now)
    before = store.neighbours(records, window) if records else {}
    forms = ctx.understood.forms

    def coverage(text: str) -> float:
        if not ev.weights:
            return 0.0
        return term_coverage(ev.weights, tokenizer.index_tokens(text), forms)

    out: dict[int, dict[str, float | None]] = {}
    for c in cands:
        if c.record is None or not c.record.session:
            continue
        earlier = before.get(c.rowid, [])
        if not earlier:  # a session's first turn answers nothing before it
            first: dict[str, float | None] = dict.fromkeys(REPLY_INPUTS, 0.0)
            out[c.rowid] = first | {"prev_rank": math.log1p(score_module.NO_RANK)}
            continue
        own_cov = coverage(c.record.text)
        own_rel = c.relevance or 0.0
        prev = earlier[0]
        prev_cand = by_id.get(prev.id)
        row: dict[str, float | None] = {
            "prev_relevance": (prev_cand.relevance or 0.0) if prev_cand is not None else 0.0,
            "prev_rank": math.log1p(
                ev.rank.get(prev_cand.rowid, score_module.NO_RANK)
                if prev_cand is not None
                else score_module.NO_RANK
            ),
            "prev_subject": coverage(prev.text),
            "prev_asks": 0.0,
            "reply_subject": 0.0,
            "reply_lift": 0.0,
        }
        speaker = c.record.speaker_label
        for i, turn in enumerate(earlier):
            if not asks(turn.text) or (speaker and turn.speaker_label == speaker):
                continue
            if i == 0:
                row["prev_asks"] = 1.0
            turn_cand = by_id.get(turn.id)
            rel = (turn_cand.relevance or 0.0) if turn_cand is not None else 0.0
            row["reply_subject"] = max(row["reply_subject"] or 0.0, coverage(turn.text) - own_cov)
            row["reply_lift"] = max(row["reply_lift"] or 0.0, rel - own_rel)
        out[c.rowid] = row
    return out
