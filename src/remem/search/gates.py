"""Gates that remove candidates: semantic floor, noise, final-score floor; and the query
gate that decides a search has nothing to look for.

Each candidate gate returns the survivors and reports every removal to the context, so the
explain trace can say which gate stopped which candidate.
"""

from __future__ import annotations

from remem.search.candidates import Candidate
from remem.search.context import Report, Request, StageContext
from remem.text.noise import is_noise


def min_semantic(cands: list[Candidate], request: Request, report: Report) -> list[Candidate]:
    """Drop candidates whose cosine to the query is below ``search.min_semantic``.
    Lexical-only candidates (no vector score) pass: they matched on words."""
    floor = request.config.search.min_semantic
    if floor <= 0:
        return cands
    kept = []
    for c in cands:
        if c.vector_score is not None and c.vector_score < floor and c.lexical_rank is None:
            report.drop(c, "min_semantic", f"cosine {c.vector_score:.3f} < {floor}")
        else:
            kept.append(c)
    return kept


def noise_query(query: str, ctx: StageContext, disable: frozenset[str]) -> str | None:
    """Why this query has nothing to look for, or None. A query that is itself noise ("ok",
    "谢谢", "😀", "...") can only reach a record through the few words or the vague vector it
    shares with everything: the noise gate never returns a record like it, so it returns nothing.
    ``disable=("noise",)`` or ``noise.enabled = false`` searches such a query anyway."""
    if not ctx.request.config.noise.enabled or "noise" in disable or not is_noise(query):
        return None
    return "noise gate: the query is only a greeting, acknowledgement, emoji or punctuation"


def noise(cands: list[Candidate], request: Request, report: Report) -> list[Candidate]:
    """Drop greetings, refusals, heartbeats and meta-talk about memory."""
    if not request.config.noise.enabled:
        return cands
    kept = []
    for c in cands:
        if c.record is not None and is_noise(c.record.text):
            report.drop(c, "noise", "greeting, refusal, heartbeat or memory meta-talk")
        else:
            kept.append(c)
    return kept


def min_score(cands: list[Candidate], request: Request, report: Report) -> list[Candidate]:
    """Drop candidates whose final score is below ``search.min_score`` (abstention)."""
    floor = request.config.search.min_score
    if floor <= 0:
        return cands
    kept = []
    for c in cands:
        if c.score < floor:
            report.drop(c, "min_score", f"score {c.score:.4f} < {floor}")
        else:
            kept.append(c)
    return kept


def current_only(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    """Without superseded memories, unless the search asked for them. Dropped here, not by
    the store's filter: a filter would make every search a narrowed one, weighed by the
    records it may see (``scoped_terms``), for the few memories a store supersedes."""
    if ctx.request.include_superseded:
        return cands
    kept = []
    for c in cands:
        ended = c.record.valid_to if c.record is not None else None
        if ended is not None and ended <= ctx.request.now:
            ctx.report.drop(c, "superseded", "superseded; ask with include_superseded")
        else:
            kept.append(c)
    return kept
