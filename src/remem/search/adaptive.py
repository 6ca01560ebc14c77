"""Per-query channel weights: trust the lexical channel as far as its best matches hold the
query's words.

One fixed blend cannot suit both kinds of question. When the question repeats the words of
the answer (names, rare nouns; most of LoCoMo), BM25 is sharp and deserves its weight; when it
paraphrases (谁受了点小伤 for 手掌擦破了; most Chinese chat questions), BM25's best hits only
share a common bigram or two and its min-max-normalised scores are mostly noise, which then
outvotes a good vector ranking. The evidence is absolute and per query: the IDF-weighted share
of the query's terms found in the own text of the best lexical hits (``relevance.own_coverage``).

lexical weight this query = lexical_weight x min(1, coverage / adaptive_full_coverage)

and the candidates are fused again with it (weighted fusion only; RRF is rank-based and has no
scale to correct).
"""

from __future__ import annotations

from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.search.fusion import weighted_fuse
from remem.search.query_terms import own_coverage

TOP_LEXICAL = 3  # how many of the best lexical hits speak for the channel


def lexical_confidence(cands: list[Candidate], ctx: StageContext) -> float:
    """The best own-text coverage among the top lexical hits, in [0, 1]."""
    lexical = sorted(
        (c for c in cands if c.lexical_rank is not None), key=lambda c: c.lexical_rank or 0
    )
    return max(
        (own_coverage(c.record.text, ctx) for c in lexical[:TOP_LEXICAL] if c.record), default=0.0
    )


def adaptive_fusion(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    cfg = ctx.request.config.search
    full = cfg.adaptive_full_coverage
    has_vector = any(c.vector_score is not None for c in cands)
    has_lexical = any(c.lexical_score is not None for c in cands)
    if cfg.fusion != "weighted" or full <= 0 or not (has_vector and has_lexical):
        return cands
    confidence = lexical_confidence(cands, ctx)
    share = min(1.0, confidence / full)
    if share >= 1.0:
        return cands
    vector = sorted(
        ((c.rowid, c.vector_score) for c in cands if c.vector_score is not None),
        key=lambda p: -p[1],
    )
    lexical = sorted(
        ((c.rowid, c.lexical_score) for c in cands if c.lexical_score is not None),
        key=lambda p: -p[1],
    )
    fused = {
        f.rowid: f.fused
        for f in weighted_fuse(
            vector,
            lexical,
            vector_weight=cfg.vector_weight,
            lexical_weight=cfg.lexical_weight * share,
            min_vector_span=cfg.min_vector_span,
        )
    }
    ctx.report.notes.append(
        f"lexical channel weighted x{share:.2f} (its best hits hold {confidence:.2f} of the query)"
    )
    for c in cands:
        c.fused = fused.get(c.rowid, 0.0)
        c.set(f"adaptive fusion (lexical x{share:.2f})", c.fused, always=True)
    cands.sort(key=lambda c: (-c.score, c.rowid))
    return cands
