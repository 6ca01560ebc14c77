"""A prototype of the keyword channel whose context column counts only for what it adds
(issue 46), put in place of the channel's ranking for a benchmark run (``install``).

The channel's own search (FTS5's BM25 over a record's own column and, at
``search.context_weight``, its context column: the turn before it) finds the pool,
``FIRST_PASS_FACTOR`` x the rows asked for; each pooled row is then scored with a gap rule:
every query phrase its own column holds counts there, and a phrase the own column lacks counts
through the context at ``weight`` (``alone`` for a row whose own column holds no query phrase
at all). The context fills a gap; it never doubles a word the line already has, and always
counts below the same word in the line itself. The store's speaker names can be left out of
the context (``names``): the context's label says who spoke the turn before, not what this
line is about.

Two formulas (``GapForm.formula``):

- ``bm25f`` (``gap_score``, h61's form): BM25F, each column's length over its own mean;
- ``fts`` (``fts_gap_score``, h66): FTS5's ``bm25()`` as the channel scores today (one length
  over both columns, k1 1.2), only the context rule changed: the scores stay on the scale
  fusion and the gates were fitted on;
- ``mixed``: ``fts`` for the line's own words, a word the context fills normalised by the
  context's length over its mean (as in BM25F).

and three idfs (``GapForm.idf``): ``lucene`` (plain BM25's, never near 0), ``fts`` (FTS5's:
~0 for a phrase in half the rows), ``floor`` (FTS5's, Lucene's where FTS5's is ~0). A
speaker's name's rows are counted in the own column (``names_idf`` "own": rows saying or
naming it) or in both columns like any word ("both").

Translated words (``search.translate``) are scored like the question's own words in every
form, as the product does at ``translate.weight`` 1.0 (the default; below 1 the share of
``weigh``, the gap rule's own score of the translated words, is taken off).

Measured by ``benchmarks/scripts/keyword_vs_bm25.py --context-gap`` (the real channel: word
forms, translation, time windows) and ``context_column.py`` (BM25 alone, every row scored).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import remem.search.pipeline as pipeline
from remem.search.lexical import FIRST_PASS_FACTOR
from remem.store.memory.lexical_index import idf as fts_idf
from remem.store.memory.lexical_index import terms

K1 = 1.2
B = 0.75

# per store (by id): the speaker names left out of its context column, and its column means
STORE_FACTS: dict[int, tuple[set[str], float, float]] = {}


@dataclass(frozen=True)
class GapForm:
    """One form of the gap rule (``keyword_vs_bm25.py --context-gap`` parses it)."""

    weight: float = 0.5
    alone: float = 0.2
    names_out: bool = True
    keep_scores: bool = False  # FTS5's score values handed out in the new order
    head: int = 0  # > 0: only the first ``head`` rows reordered, the rest in FTS5's order
    formula: str = "bm25f"  # or "fts", "mixed"
    idf: str = "lucene"  # or "fts", "floor"
    names_idf: str = "own"  # or "both"

    @classmethod
    def parse(cls, text: str) -> GapForm:
        """WEIGHT/ALONE[/names][/keep-scores][/headN][/fts][/lidf][/floor][/both]: 'fts'
        alone means FTS5's formula with FTS5's idf; 'lidf' and 'floor' choose the idf."""
        weight, alone, *options = text.split("/")
        heads = [int(o[4:]) for o in options if o.startswith("head")]
        fts = "fts" in options
        idf = (
            "floor" if "floor" in options else "fts" if fts and "lidf" not in options else "lucene"
        )
        return cls(
            float(weight),
            float(alone),
            "names" in options,
            "keep-scores" in options,
            heads[0] if heads else 0,
            "mixed" if "mixed" in options else "fts" if fts else "bm25f",
            idf,
            "both" if "both" in options else "own",
        )


def lucene_idf(rows: int, hits: int) -> float:
    return math.log(1 + (rows - hits + 0.5) / (hits + 0.5))


def floored_idf(rows: int, hits: int) -> float:
    """FTS5's idf, except that a phrase in half the rows or more (FTS5: next to nothing)
    weighs what Lucene's idf gives it."""
    value = fts_idf(rows, hits)
    return value if value > 1e-6 else lucene_idf(rows, min(hits, rows))


IDFS = {"lucene": lucene_idf, "fts": fts_idf, "floor": floored_idf}


def occurs(tokens: list[str], phrase: list[str]) -> int:
    if len(phrase) == 1:
        return tokens.count(phrase[0])
    n = len(phrase)
    return sum(1 for i in range(len(tokens) - n + 1) if tokens[i : i + n] == phrase)


def gap_score(
    own: list[str],
    context: list[str],
    phrases: Sequence[list[str]],
    idfs: Sequence[float],
    means: tuple[float, float],
    weight: float,
    alone: float,
) -> float:
    """BM25F of one row where the context fills only the phrases the own column lacks."""
    own_norm = K1 * (1 - B + B * len(own) / (means[0] or 1.0))
    ctx_norm = K1 * (1 - B + B * len(context) / (means[1] or 1.0))
    own_tf = [occurs(own, p) for p in phrases]
    share = weight if any(own_tf) else alone
    score = 0.0
    for phrase, idf, tf in zip(phrases, idfs, own_tf, strict=True):
        if tf:
            score += idf * tf * (K1 + 1) / (tf + own_norm)
        elif share and context:
            tc = occurs(context, phrase)
            if tc:
                score += share * idf * tc * (K1 + 1) / (tc + ctx_norm)
    return score


def fts_gap_score(
    own: list[str],
    context: list[str],
    phrases: Sequence[list[str]],
    idfs: Sequence[float],
    avgdl: float,
    weight: float,
    alone: float,
    ctx_mean: float | None = None,
) -> float:
    """FTS5's bm25() of one row (one length over both columns, as the channel scores today)
    where the context counts only for the phrases the own column lacks."""
    norm = K1 * (1 - B + B * (len(own) + len(context)) / (avgdl or 1.0))
    # "mixed": a word the context fills is normalised by the context's length over its mean
    ctx_norm = norm if ctx_mean is None else K1 * (1 - B + B * len(context) / (ctx_mean or 1.0))
    own_tf = [occurs(own, p) for p in phrases]
    share = weight if any(own_tf) else alone
    score = 0.0
    for phrase, idf, tf in zip(phrases, idfs, own_tf, strict=True):
        if tf:
            score += idf * tf * (K1 + 1) / (tf + norm)
        elif share and context:
            freq = share * occurs(context, phrase)
            if freq:
                score += idf * freq * (K1 + 1) / (freq + ctx_norm)
    return score


def remember_store(store: Any, rowids: Sequence[int], names: set[str]) -> None:
    """The store's speaker names and its column means over these (all its) rows, read once
    before its questions."""
    with store._rescore_source() as source:
        rows = list(source.row_terms(list(rowids)))
    n = len(rows) or 1
    own_mean = sum(len(o) for _, o, _ in rows) / n
    ctx_mean = sum(len(c) for _, _, c in rows) / n
    STORE_FACTS[id(store)] = (names, own_mean, ctx_mean)


def gap_rescore(
    store: Any, rowids: Sequence[int], tokens: Sequence[str], form: GapForm
) -> dict[int, float]:
    """Each row's gap score for these tokens (rows scoring nothing left out)."""
    names, own_mean, ctx_mean = STORE_FACTS.get(id(store), (set(), 0.0, 0.0))
    phrases = [p for p in (terms(t) for t in dict.fromkeys(tokens) if t) if p]
    if not phrases or not rowids:
        return {}
    rarity = IDFS[form.idf]
    with store._rescore_source() as source:
        records, avgdl = source.totals()
        both = source.phrase_rows(phrases, True)
        # "own": a speaker's name is not in any context, its rows are those saying or naming it
        own = source.phrase_rows(phrases, False) if names and form.names_idf == "own" else both
        idfs = [
            rarity(records, o if len(p) == 1 and p[0] in names else b)
            for p, o, b in zip(phrases, own, both, strict=True)
        ]
        found = list(source.row_terms(list(dict.fromkeys(rowids))))
    out = {}
    for rowid, own_terms, context in found:
        ctx = [t for t in context if t not in names] if names else context
        if form.formula in ("fts", "mixed"):
            mean = ctx_mean if form.formula == "mixed" else None
            score = fts_gap_score(
                own_terms, ctx, phrases, idfs, avgdl, form.weight, form.alone, mean
            )
        else:
            means = (own_mean, ctx_mean)
            score = gap_score(own_terms, ctx, phrases, idfs, means, form.weight, form.alone)
        if score > 0:
            out[rowid] = score
    return out


@contextmanager
def install(form: GapForm) -> Iterator[None]:
    """The search pipeline's keyword channel ranked by ``gap_rescore`` while inside. With
    ``keep_scores`` the rows keep FTS5's score values, handed out in the new order (the
    pool's best score to the new first row, and so on): fusion and the gates see the score
    distribution they were fitted on, only the order changes; translated words and a chat's
    names are then weighed as the product weighs them. With ``head`` > 0 only the first
    ``head`` rows are the gap rule's; the rest of the list stays in FTS5's order (fusion reads
    the whole list)."""
    original_candidates = pipeline.lexical_candidates
    original_weigh = pipeline.weigh_terms

    def candidates(
        store: Any, tokens: Sequence[str], filters: Any, limit: int, now: Any, **kw: Any
    ) -> list[tuple[int, float]]:
        pool = original_candidates(store, tokens, filters, FIRST_PASS_FACTOR * limit, now, **kw)
        scores = gap_rescore(store, [r for r, _ in pool], tokens, form)
        ranked = sorted(scores.items(), key=lambda hit: (-hit[1], hit[0]))[:limit]
        if form.head:
            first = {r for r, _ in ranked[: form.head]}
            ranked = ranked[: form.head] + [(r, 0.0) for r, _ in pool if r not in first]
            ranked = ranked[:limit]
        if form.keep_scores:
            values = sorted((s for _, s in pool), reverse=True)
            return [(r, values[i]) for i, (r, _) in enumerate(ranked)]
        return ranked

    def weigh(
        store: Any, found: list, terms: list, weight: float, cw: float, scoped: Any = None
    ) -> list[tuple[int, float]]:
        if weight == 1 or not terms or not found:
            return found
        share = gap_rescore(store, [r for r, _ in found], terms, form)
        scores = [(r, s + (weight - 1) * share.get(r, 0.0)) for r, s in found]
        return sorted(scores, key=lambda hit: (-hit[1], hit[0]))

    pipeline.lexical_candidates = candidates
    if not form.keep_scores:
        pipeline.weigh_terms = weigh  # type: ignore[assignment]
    try:
        yield
    finally:
        pipeline.lexical_candidates = original_candidates
        pipeline.weigh_terms = original_weigh
