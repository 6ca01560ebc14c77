"""One calibrated answerability score per hit: the probability that the hit answers the question.

The relevance stage says how close a line is to the question ("this line is about Priya"); it
cannot say whether the line carries what was asked ("Priya's favourite movie"). This stage
combines what the pipeline already knows about each hit into one score fitted on the
development suite (remem-bench's ``fit_answerability.py``; the coefficients, the inputs, the
datasets and the date ship in ``remem/data/answerability.json``), the product of two logistic
parts (``AnswerabilityModel``): the question's, P(the search holds an answer at all), and the
hit's, P(this hit is it, when there is one):

- ``FEATURES`` is the one table of the hit's inputs: each a name and a function of the hit. A
  feature a search cannot compute (no latent terms read for this hit, no vector, a question
  of no known answer type) is None and adds nothing: it counts as the fit's mean for it.
- ``QUESTION_FEATURES``: the question's inputs, each the best value of one hit input over the
  search's best hits (``question_row``). A near miss is a property of the search, not of a
  hit: none of its lines carries an answer of the asked type, however well they match the
  subject.
- ``answer_type`` reads ``answer_types.answer_evidence`` (an answer of the asked type in the
  hit or its neighbours), ``attribute`` ``answer_types.attribute_evidence`` (the asked
  attribute stated at all); ``q_split`` (``split_evidence.py``): the subject matched, the
  attribute stated by no best hit. The reply inputs (``reply_evidence.py``): the turn before
  the hit asked what the question asks, and someone else asked it; the turns before each
  scored hit come in the same store read as the best hits' neighbours, and only when the fit
  reads them.

The score is what every surface shows (``Hit.score``) and, by default, the order of the hits
(``search.hit_order``, ``candidates.in_hit_order``); the pipeline's own final score stays in
the explain trace's stages. The gate: the relevance floors
(``relevance.py``) are read first; a search where no candidate clears its floor still answers
when its best hit scores at least ``search.answerability_threshold`` (no cliff at a floor's
edge), else nothing, the trace saying which evidence weighed most (docs/decisions/0014).
Auto-recall (``recall/messages.py``) keeps the hits at or above
``recall.answerability_threshold``, so split evidence injects less, not nothing. A search
judged by a model without a relevance calibration, by a cross-encoder, or with the relevance
stage off is not scored (the fit reads the bundled model's evidence): its hits keep the
pipeline's score and the floors alone gate it.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from remem.search import chat_evidence, fact_evidence
from remem.search.answerability_labels import FEATURE_LABELS as FEATURE_LABELS
from remem.search.answerability_labels import deciding
from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.search.hit_evidence import NEIGHBOUR_TOP as NEIGHBOUR_TOP
from remem.search.hit_evidence import HitEvidence, TextReader, evidence_for, labelled
from remem.search.hit_evidence import answer_type_reader as answer_type_reader
from remem.search.hit_evidence import attribute_reader as attribute_reader
from remem.search.query_terms import term_coverage
from remem.search.reply_evidence import NO_RANK as NO_RANK  # a rank a hit lacks counts as this
from remem.search.reply_evidence import REPLY_FEATURES
from remem.search.split_evidence import READS as SPLIT_READS
from remem.search.split_evidence import split_evidence
from remem.text.scripts import crosses, script_of

MODEL_FILE = Path(__file__).parent.parent / "data" / "answerability.json"
# the answerability of the best k x this many candidates is computed (diversity and the
# aggregate spread reorder within them)
SCORED_PER_K = 3


def _relevance(c: Candidate, ev: HitEvidence) -> float | None:
    return c.relevance


def _margin(c: Candidate, ev: HitEvidence) -> float | None:
    """The relevance over the floor the relevance stage held the hit to."""
    if c.relevance is None or c.floor is None:
        return None
    return c.relevance - c.floor


def _search_margin(c: Candidate, ev: HitEvidence) -> float | None:
    """The search's best relevance over its floor (what the floors gated on), the same for
    every hit of the search."""
    return ev.ctx.verdict.best_margin


def _rank(c: Candidate, ev: HitEvidence) -> float:
    """The hit's place in the pipeline's order so far (log)."""
    return math.log1p(ev.rank.get(c.rowid, NO_RANK))


def _relevance_gap(c: Candidate, ev: HitEvidence) -> float | None:
    """How far below the search's best relevance (0 for the best)."""
    return None if c.relevance is None else c.relevance - ev.best_relevance


def _subject_own(c: Candidate, ev: HitEvidence) -> float | None:
    """The share of the question's words (people's names left out) that the hit holds."""
    if not ev.weights:
        return None
    return term_coverage(ev.weights, ev.own_tokens.get(c.rowid, ()), ev.ctx.understood.forms)


def _subject_near(c: Candidate, ev: HitEvidence) -> float | None:
    """... that the hit or the lines next to it hold."""
    if not ev.weights:
        return None
    tokens = ev.near_tokens.get(c.rowid)
    if tokens is None:
        tokens = set(ev.own_tokens.get(c.rowid, ()))
    return term_coverage(ev.weights, tokens, ev.ctx.understood.forms)


def _named_speaker(c: Candidate, ev: HitEvidence) -> float:
    """1 when the question names the hit's speaker."""
    label = c.record.speaker_label if c.record is not None else None
    return 1.0 if label and label in ev.ctx.understood.named else 0.0


def _both_channels(c: Candidate, ev: HitEvidence) -> float:
    return 1.0 if c.vector_rank is not None and c.lexical_rank is not None else 0.0


def _vector_rank(c: Candidate, ev: HitEvidence) -> float:
    return math.log1p(c.vector_rank if c.vector_rank is not None else NO_RANK)


def _lexical_rank(c: Candidate, ev: HitEvidence) -> float:
    return math.log1p(c.lexical_rank if c.lexical_rank is not None else NO_RANK)


def _fused_rank(c: Candidate, ev: HitEvidence) -> float:
    return math.log1p(ev.fused_rank.get(c.rowid, NO_RANK))


def _fused(c: Candidate, ev: HitEvidence) -> float:
    return c.fused


def _latent(c: Candidate, ev: HitEvidence) -> float | None:
    return c.latent


def _cross_script(c: Candidate, ev: HitEvidence) -> float:
    if c.record is None:
        return 0.0
    return 1.0 if crosses(script_of(ev.ctx.request.query), c.record.text) else 0.0


def _answer_type(c: Candidate, ev: HitEvidence) -> float | None:
    """Evidence that the hit or its neighbours carry an answer of the asked type (the
    answer-type module, when it is installed; None otherwise or for an unknown type)."""
    return _read_once(c, ev, ev.answer_type, ev.answer_types)


def _attribute(c: Candidate, ev: HitEvidence) -> float | None:
    """Evidence that the hit or its neighbours state the attribute the question asks for (its
    head word or family: "password", "宠物"/"养"), not only a span of its type; None when the
    question asks for no attribute ``answer_types.attributes`` knows."""
    return _read_once(c, ev, ev.attribute, ev.attributes)


def _read_once(
    c: Candidate, ev: HitEvidence, judge: TextReader | None, read: dict[int, float | None]
) -> float | None:
    """``judge``'s evidence in the hit's and its neighbours' texts, kept in ``read``."""
    if c.rowid not in read and judge is not None and c.record is not None:
        texts = ev.near_texts.get(c.rowid, [labelled(c.record)])
        read[c.rowid] = judge(ev.ctx.request.query, texts)
    return read.get(c.rowid)


Feature = Callable[[Candidate, HitEvidence], float | None]

# The inputs of the answerability score, in one table: the fit reads the same functions.
FEATURES: dict[str, Feature] = {
    "relevance": _relevance,
    "margin": _margin,
    "search_margin": _search_margin,
    "rank": _rank,
    "relevance_gap": _relevance_gap,
    "subject_own": _subject_own,
    "subject_near": _subject_near,
    "named_speaker": _named_speaker,
    "both_channels": _both_channels,
    "vector_rank": _vector_rank,
    "lexical_rank": _lexical_rank,
    "fused_rank": _fused_rank,
    "fused": _fused,
    "latent": _latent,
    "cross_script": _cross_script,
    "answer_type": _answer_type,
    "attribute": _attribute,
    "fact_whose": fact_evidence.fact_whose,
    "speaker_whose": fact_evidence.speaker_feature,
    "chat_words": chat_evidence.chat_words,
    # the turn before the hit asked what the question asks (issue 45)
    **REPLY_FEATURES,
}


# The question's inputs: each the best value of one hit input over the search's best
# NEIGHBOUR_TOP hits. "Is this question answered here at all" is a property of the search, not
# of a hit: a near miss is a question none of whose hits carries an answer of its type, however
# well they match its subject.
QUESTION_FEATURES: dict[str, str] = {
    "q_answer_type": "answer_type",
    "q_attribute": "attribute",
    "q_subject": "subject_near",
    "q_subject_own": "subject_own",
    "q_relevance": "relevance",
    "q_margin": "search_margin",
    "q_latent": "latent",
    "q_fact_whose": "fact_whose",
    "q_chat_words": "chat_words",
}
# per-search constants: read by the question's part only
QUESTION_ONLY = frozenset({"search_margin"})
QUESTION_INPUTS = (*QUESTION_FEATURES, "q_split")  # every input of the question's part


def question_row(rows: list[dict[str, float | None]]) -> dict[str, float | None]:
    """The question's inputs from its best hits' rows (in the pipeline's order): each of
    ``QUESTION_FEATURES``, and ``q_split`` (``split_evidence``, read over the same hits)."""
    out: dict[str, float | None] = {}
    for name, source in QUESTION_FEATURES.items():
        values = [v for r in rows[:NEIGHBOUR_TOP] if (v := r.get(source)) is not None]
        out[name] = max(values) if values else None
    out["q_split"] = split_evidence(rows[:NEIGHBOUR_TOP])
    return out


@dataclass(frozen=True)
class AnswerabilityModel:
    """Logistic coefficients over standardised features: sigmoid(intercept + sum of
    coefficient x (value - mean) / scale); a feature that is None adds nothing.

    With a ``question`` part (a logistic of its own over ``QUESTION_FEATURES``: the chance
    that the search holds an answer at all), the score is the product: P(the search holds an
    answer) x P(this hit is it, when it does). When the fit carries a monotone calibration
    (``knots``: increasing raw scores and the observed share of answers at each, an isotonic
    fit), the score is read through it, linearly between knots."""

    intercept: float
    coefficients: dict[str, float]
    mean: dict[str, float]
    scale: dict[str, float]
    knots: tuple[tuple[float, float], ...] = ()
    question: AnswerabilityModel | None = None

    def inputs(self) -> set[str]:
        """The hit inputs this model reads (those its question part aggregates included)."""
        names = set(self.coefficients)
        if self.question is not None:
            asked = self.question.coefficients
            names |= {QUESTION_FEATURES[q] for q in asked if q in QUESTION_FEATURES}
            names |= SPLIT_READS if "q_split" in asked else set()
        return names

    def contributions(
        self, row: dict[str, float | None], question: dict[str, float | None] | None = None
    ) -> dict[str, float]:
        out = {}
        for name, coef in self.coefficients.items():
            value = row.get(name)
            if value is not None:
                out[name] = coef * (value - self.mean[name]) / (self.scale[name] or 1.0)
        if self.question is not None and question is not None:
            out |= self.question.contributions(question)
        return out

    def _logistic(self, row: dict[str, float | None]) -> float:
        z = self.intercept + sum(self.contributions(row).values())
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def probability(
        self, row: dict[str, float | None], question: dict[str, float | None] | None = None
    ) -> float:
        p = self._logistic(row)
        if self.question is not None:
            p *= self.question._logistic(question if question is not None else {})
        return self.calibrated(p)

    def calibrated(self, p: float) -> float:
        """``p`` read through the monotone calibration (itself when the fit has none)."""
        knots = self.knots
        if not knots:
            return p
        if p <= knots[0][0]:
            return knots[0][1]
        for (x0, y0), (x1, y1) in itertools.pairwise(knots):
            if p <= x1:
                return y0 + (y1 - y0) * (p - x0) / (x1 - x0) if x1 > x0 else y1
        return knots[-1][1]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AnswerabilityModel:
        fit = data["fit"]
        return cls(
            intercept=float(fit["intercept"]),
            coefficients={k: float(v) for k, v in fit["coefficients"].items()},
            mean={k: float(v) for k, v in fit["mean"].items()},
            scale={k: float(v) for k, v in fit["scale"].items()},
            knots=tuple((float(x), float(y)) for x, y in fit.get("calibration", ())),
            question=cls.from_dict({"fit": fit["question"]}) if "question" in fit else None,
        )


@lru_cache(maxsize=1)
def shipped_model() -> AnswerabilityModel | None:
    """The fit shipped in ``remem/data/answerability.json``; None when it is missing."""
    try:
        return AnswerabilityModel.from_dict(json.loads(MODEL_FILE.read_text("utf-8")))
    except (OSError, ValueError, KeyError):
        return None


def _chat_gate(
    cands: list[Candidate], ctx: StageContext, score: float, said: str
) -> list[Candidate]:
    """A chat by people the store knows clears its low floor with any line its speaker said
    (decision 0025): it answers only when its best hit scores at least
    ``search.chat_answerability_threshold`` (chat_evidence.py reads what its messages say)."""
    threshold = ctx.request.config.search.chat_answerability_threshold
    if threshold <= 0 or score >= threshold:
        return cands
    return _held_back(
        cands,
        ctx,
        f"a chat by people the store knows, and best answerability {score:.3f} < "
        f"search.chat_answerability_threshold {threshold}; {said}",
    )


def _held_back(cands: list[Candidate], ctx: StageContext, reason: str) -> list[Candidate]:
    """Nothing answers: every candidate is dropped with the gate's reason, noted once."""
    ctx.report.notes.append(f"answerability gate: {reason}")
    for c in cands:
        ctx.report.drop(c, "answerability", reason)
    return []


def feature_rows(
    cands: list[Candidate],
    ctx: StageContext,
    top: int | None = None,
    names: Collection[str] | None = None,
) -> dict[int, dict[str, float | None]]:
    """rowid -> each feature of ``FEATURES`` (only ``names`` when given: those the shipped fit
    reads; None where it cannot be computed), for the best ``top`` candidates by the
    pipeline's score (all when None)."""
    best = sorted(cands, key=lambda c: (-c.score, c.rowid))[:top]
    wanted = {n: f for n, f in FEATURES.items() if names is None or n in names}
    # the turns before each hit are read only for a fit that reads the reply inputs
    ev = evidence_for(cands, ctx, best, reply=any(n in REPLY_FEATURES for n in wanted))
    return {c.rowid: {name: f(c, ev) for name, f in wanted.items()} for c in best}


def answerability(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    """Score the best candidates, then the gate (see the module's docstring)."""
    model = shipped_model()
    if model is None or not cands or not ctx.verdict.calibrated:
        return cands  # an uncalibrated model's hits keep the pipeline's score, as before
    # the hits a search can return, with room for diversity to bring some up: scoring every
    # candidate of the pool (~100) cost more than the rest of the stages
    # only the inputs the fit reads: one it left out (answer types until a refit) costs time
    top = max(SCORED_PER_K * ctx.request.k, NEIGHBOUR_TOP)
    rows = feature_rows(cands, ctx, top=top, names=model.inputs())
    question = question_row(list(rows.values()))  # rows come in the pipeline's order
    for c in cands:
        row = rows.get(c.rowid)
        if row is not None:
            c.answerability = model.probability(row, question)
            c.evidence = {k: round(v, 4) for k, v in model.contributions(row, question).items()}
    threshold = ctx.request.config.search.answerability_threshold
    best = max(cands, key=lambda c: (c.answerability or 0.0, -c.rowid))  # of the scored
    score = best.answerability or 0.0
    if ctx.verdict.own_chat and ctx.verdict.floor_miss is None:
        return _chat_gate(cands, ctx, score, deciding(best.evidence or {}))
    if threshold <= 0 or ctx.verdict.floor_miss is None:
        return cands  # a candidate cleared its relevance floor (or the gate is off)
    said = deciding(best.evidence or {})
    if score >= threshold:
        ctx.report.notes.append(
            f"answerability: answered though {ctx.verdict.floor_miss}: best answerability "
            f"{score:.3f} >= search.answerability_threshold {threshold}; {said}"
        )
        return cands
    return _held_back(
        cands,
        ctx,
        f"{ctx.verdict.floor_miss}, and best answerability {score:.3f} < "
        f"search.answerability_threshold {threshold}; {said}",
    )
