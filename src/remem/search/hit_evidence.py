"""What the answerability score's inputs read of one search, computed once for all its hits
(``HitEvidence``, ``evidence_for``): the question's weights, the candidates' ranks and tokens,
and in one store read the turns around the best hits in their sessions, the best 10's
neighbours (one line each side: ``subject_near``, the answer-type and fact inputs) and, when the
fit reads the reply inputs (``reply_evidence.py``), the two turns before each scored hit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from remem.search import fact_evidence, reply_evidence
from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.search.query_terms import query_weights
from remem.store.queries import SessionWindow
from remem.types import Record

NEIGHBOUR_TOP = 10  # the best hits whose neighbours are read (one store read per search)
TextReader = Callable[[str, list[str]], float | None]  # (question, texts) -> evidence or None


@dataclass
class HitEvidence:
    """What the features of one search read, computed once for all its hits."""

    ctx: StageContext
    weights: dict[str, float]  # the question's IDF weights, names of people left out
    best_relevance: float
    fused_rank: dict[int, int]  # rowid -> 1-based rank in the fused order
    rank: dict[int, int]  # rowid -> 1-based rank by the pipeline's score so far
    near_tokens: dict[int, set[str]]  # rowid -> tokens of the hit and its neighbours
    near_texts: dict[int, list[str]]  # rowid -> the hit's text and its neighbours'
    answer_type: TextReader | None = None
    attribute: TextReader | None = None
    own_tokens: dict[int, list[str]] = field(default_factory=dict)
    # rowid -> the answer-type evidence of the best hits (read once: two features use it)
    answer_types: dict[int, float | None] = field(default_factory=dict)
    attributes: dict[int, float | None] = field(default_factory=dict)  # the same, attribute
    top: list[Candidate] = field(default_factory=list)  # the best NEIGHBOUR_TOP by score
    near_ids: dict[int, list[str]] = field(default_factory=dict)  # rowid -> neighbours' ids
    facts_read: bool = False  # the fact layer's reading of the question, once read:
    asked_facts: fact_evidence.AskedFacts | None = None
    chat_labels: frozenset[str] | None = None  # a chat's speaker labels' tokens, once read
    # the reply inputs' reading (reply_evidence.py): rowid -> the turns before each scored hit
    # in its session, nearest first (None: not read), every candidate by record id, and each
    # hit's inputs once computed
    earlier: dict[int, list[Record]] | None = None
    by_id: dict[str, Candidate] = field(default_factory=dict)
    replies: dict[int, dict[str, float] | None] = field(default_factory=dict)
    coverage: dict[str, float] = field(default_factory=dict)  # record id -> its subject match
    tokenized: dict[str, list[str]] = field(default_factory=dict)  # record id -> its text's tokens

    def tokens_of(self, record: Record) -> list[str]:
        """The tokens of a record's text, tokenized once per search (a turn is often the
        neighbour or the turn before of more than one hit)."""
        tokenizer = self.ctx.readers.tokenizer
        if record.id not in self.tokenized and tokenizer is not None:
            self.tokenized[record.id] = tokenizer.index_tokens(record.text)
        return self.tokenized.get(record.id, [])


def labelled(record: Any) -> str:
    """A record's text as the answer-type spans read it: "speaker: line" (a speaker label
    is a weak sign of a person, ``answer_types.spans``)."""
    label = record.speaker_label
    return f"{label}: {record.text}" if label else record.text


def answer_type_reader() -> Callable[[str, list[str]], float | None] | None:
    """``remem.text.answer_types.answer_evidence``, the answer-type feature's one wiring."""
    from remem.text.answer_types import answer_evidence

    return answer_evidence


def attribute_reader() -> Callable[[str, list[str]], float | None]:
    """``remem.text.answer_types.attribute_evidence``: the asked attribute's feature."""
    from remem.text.answer_types import attribute_evidence

    return attribute_evidence


def evidence_for(
    cands: list[Candidate],
    ctx: StageContext,
    scored: list[Candidate] | None = None,
    reply: bool = True,
) -> HitEvidence:
    """Everything the features read, for this search's candidates: ``scored`` are those whose
    inputs will be read (all when None); with ``reply`` the turns before each of them too (the
    reply inputs, ``reply_evidence.py``), in the same store read as the best hits' neighbours."""
    names: set[str] = set()
    if ctx.readers.tokenizer is not None:
        for label, alias in ctx.understood.named.items():
            names.update(ctx.readers.tokenizer.query_tokens(f"{label} {alias}"))
    weights = {t: w for t, w in query_weights(ctx).items() if t not in names}
    own = ctx.readers.indexed_tokens([c.rowid for c in cands])
    if ctx.readers.tokenizer is not None:
        for c in cands:
            if c.rowid not in own and c.record is not None:
                own[c.rowid] = ctx.readers.tokenizer.index_tokens(c.record.text)
    by_fused = sorted(cands, key=lambda c: (-c.fused, c.rowid))
    by_score = sorted(cands, key=lambda c: (-c.score, c.rowid))
    ev = HitEvidence(
        ctx=ctx,
        weights=weights,
        best_relevance=max((c.relevance or 0.0 for c in cands), default=0.0),
        fused_rank={c.rowid: i + 1 for i, c in enumerate(by_fused)},
        rank={c.rowid: i + 1 for i, c in enumerate(by_score)},
        near_tokens={},
        near_texts={},
        answer_type=answer_type_reader(),
        attribute=attribute_reader(),
        own_tokens=own,
        top=by_score[:NEIGHBOUR_TOP],
        by_id={c.record.id: c for c in cands if c.record is not None},
    )
    _read_neighbours(ev, (scored if scored is not None else cands) if reply else [])
    return ev


def _read_neighbours(ev: HitEvidence, replying: list[Candidate]) -> None:
    """In one store read: the best hits' neighbours (one line each side in their session) and,
    for each of ``replying``, the ``reply_evidence.LOOK_BACK`` turns before it."""
    ctx = ev.ctx
    if ctx.readers.store is None or ctx.readers.tokenizer is None:
        return
    anchors = {c.rowid: c for c in [*ev.top, *replying] if c.record is not None}
    records = [c.record for c in anchors.values() if c.record is not None and c.record.session]
    earlier_of: dict[int, list[Record]] = {}
    if replying:
        ev.earlier = earlier_of  # read: a hit with no turn before it is a session's first
    if not records:
        return
    before = reply_evidence.LOOK_BACK if replying else 1
    around = ctx.readers.store.neighbours(
        records, SessionWindow(before, 1, ctx.request.filters, ctx.request.now)
    )
    for c in replying:
        if c.record is not None and c.record.session:
            earlier_of[c.rowid] = _split(c.record, around.get(c.rowid, []))[0]
    for c in ev.top:
        if c.record is None:
            continue
        earlier, later = _split(c.record, around.get(c.rowid, []))
        others = earlier[:1] + later[:1]
        tokens = set(ev.own_tokens.get(c.rowid, ()))
        for r in others:
            tokens.update(ev.tokens_of(r))
        ev.near_tokens[c.rowid] = tokens
        ev.near_texts[c.rowid] = [labelled(c.record), *(labelled(r) for r in others)]
        ev.near_ids[c.rowid] = [r.id for r in others]


def _split(anchor: Record, around: list[Record]) -> tuple[list[Record], list[Record]]:
    """``around`` (an anchor's neighbours, nearest first on each side) as (the earlier ones,
    the later ones), by the session order the store reads: created_at, then rowid."""
    at = (anchor.created_at, anchor.rowid or 0)
    earlier = [r for r in around if (r.created_at, r.rowid or 0) < at]
    return earlier, [r for r in around if (r.created_at, r.rowid or 0) > at]
