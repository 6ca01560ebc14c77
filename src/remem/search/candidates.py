"""The unit every pipeline stage works on, and how many candidates each channel fetches."""

from __future__ import annotations

from dataclasses import dataclass, field

from remem.types import Explain, Hit, Record


@dataclass(slots=True)
class Candidate:
    rowid: int
    vector_rank: int | None = None  # 1-based
    vector_score: float | None = None  # cosine
    lexical_rank: int | None = None
    lexical_score: float | None = None  # BM25, higher is better
    fused: float = 0.0
    relevance: float | None = None  # calibrated own evidence in [0, 1] (relevance stage)
    rerank_relevance: float | None = None  # the cross-encoder's probability, when it ran
    floor: float | None = None  # the relevance floor it was held to (relevance stage)
    latent: float | None = None  # its latent-term cosine, when the relevance stage read it
    # the probability that it answers the question, and each input's share of the logit
    # (search/answerability.py)
    answerability: float | None = None
    evidence: dict[str, float] | None = None
    score: float = 0.0  # the current score, updated by every stage
    record: Record | None = None
    stages: list[tuple[str, float]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # (since when, the value since) when the record carries a value no longer true (currency)
    earlier: tuple[float, str | None] | None = None
    # the currency stage put it first: what is true now, or the value asked about before
    lead: bool = False
    # the rowid of the hit it stays below (reply_after_question: a question below its reply)
    below: int | None = None

    def set(self, stage: str, score: float, *, always: bool = False) -> None:
        """Record a stage's effect (only when it changed the score, to keep traces short,
        unless ``always``)."""
        if always or score != self.score or not self.stages:
            self.score = score
            self.stages.append((stage, score))


def in_hit_order(hits: list[Candidate], order: str) -> list[Candidate]:
    """The hits a search returns in ``search.hit_order``: the pipeline's, or ("answerability")
    by the score every surface shows, ties in the pipeline's order, where each hit the currency
    stage placed (what is true now above its stale value) keeps its place and a question stays
    below the reply the reply_after_question stage put it under. The pipeline's order
    when a hit was not scored (an uncalibrated model's hits show the pipeline's score)."""
    if order != "answerability" or any(c.answerability is None for c in hits):
        return hits
    rest = iter(sorted((c for c in hits if not c.lead), key=lambda c: -(c.answerability or 0.0)))
    ordered = [c if c.lead else next(rest) for c in hits]
    for c in [c for c in hits if c.below is not None]:  # lowest first, as the stage placed them
        at = {h.rowid: i for i, h in enumerate(ordered)}
        anchor = at.get(c.below) if c.below is not None else None
        if anchor is not None and at[c.rowid] < anchor:  # a question above its reply
            ordered.insert(anchor, ordered.pop(at[c.rowid]))
    return ordered


def pool_size(k: int, *, floor: int, factor: int, role_factor: int, role_filter: bool) -> int:
    """Each channel's top-N: k x factor (k x role_factor when a role filter will drop hits),
    never below ``floor``."""
    return max(floor, k * (role_factor if role_filter else factor))


def to_hit(c: Candidate, fusion: str, degraded: bool) -> Hit:
    """The hit a candidate becomes, with the trace of what each stage did to it. Every surface
    shows the calibrated answerability when it was scored, else the pipeline's own score."""
    assert c.record is not None
    explain = Explain(
        vector_rank=c.vector_rank,
        vector_score=c.vector_score,
        lexical_rank=c.lexical_rank,
        lexical_score=c.lexical_score,
        fused_score=c.fused,
        fusion=fusion,
        stages=list(c.stages),
        degraded=degraded,
        notes=list(c.notes),
        answerability=c.answerability,
        evidence=dict(c.evidence or {}),
        earlier=c.earlier,
    )
    return Hit(c.record, c.score if c.answerability is None else c.answerability, explain)
