"""Calibrated relevance and the relevance floor: an honest "nothing relevant".

The fused score is relative (each channel is rescaled over the query's own candidates), so it
cannot say whether the best match is any good. This stage measures two pieces of absolute
evidence for each candidate and maps them to a probability-like relevance in [0, 1]:

- ``cosine``: the raw cosine between the query and the candidate's stored vector. Its scale
  depends on the model (e5 puts unrelated pairs near 0.75, USE near 0.1), so the mapping has
  per-model coefficients. For the best candidates written in another script than the
  question, where e5-small's cosine reads as unrelated, it is the better of that and the
  cross-script witness's (the bundled USE model's cosine on e5's scale, ``witness.py``).
- ``coverage``: the share of the query's information found in the candidate's own text: the
  sum of the BM25 IDF of the query terms the text contains over the sum for all query terms
  (terms the store has never seen count fully against it). 1 means every informative word of
  the question is there; it does not depend on what else the query retrieved. A store under
  UNSEEN_MIN_RECORDS records is too small for IDF: there the words weigh what they say in
  general language (``general_weights``, ``embed/word_rarity.py``).

- ``baseline``: the query's cosine to the nearest of a few fixed neutral sentences
  (``NEUTRAL``), i.e. how close this query comes to anything at all. It is measured against
  fixed anchors, not against the query's own candidates, so it is not a per-query rescaling.

relevance = sigmoid(intercept + a x cosine + c x baseline + b x coverage), fitted once
on the development suite (answer-bearing hits against the hits of off-topic questions, see
remem-bench's ``fit_calibration.py``), never rescaled per query, so 0.6 means the same for every query.

With the bundled model the best candidates in the question's script are also judged by their
latent terms (``latent_reader.py``, ``LATENT_CALIBRATIONS``). Each candidate is held to the
floor of the evidence that judged it (``Floors``): when none clears its floor the search
returns nothing and says which gate decided (for calibrated models, and for searches by words
only); otherwise every final score becomes R x score / best score, R the best relevance, so
the top hit scores R, the rest keep their order and all lie in [0, 1].
"""

from __future__ import annotations

import numpy as np

from remem.config.search import SearchConfig
from remem.embed.calibrations import (
    LATENT_CALIBRATIONS,
    LEXICAL_ONLY,
    calibration_for,
)
from remem.index.exact import blas_one_thread
from remem.search.answerability import shipped_model
from remem.search.candidates import Candidate
from remem.search.chat_budget import chat_embed_budget, strangers_only
from remem.search.context import StageContext
from remem.search.query_terms import (
    message_weights,
    own_coverage,
    query_weights,
    term_coverage,
    translated_coverage,
    unseen_in_either_script,
)
from remem.text.bilingual import ties
from remem.text.budget import embedded_query
from remem.text.scripts import crosses, script_of

# The cross-script witness reads a long turn's beginning only (USE's cost grows with length).
WITNESS_CHARS = 1000


def is_calibrated(model_id: str | None, used_vectors: bool) -> bool:
    """A search that used vectors of a model without a calibration cannot tell "nothing
    relevant" from its words alone (a paraphrase shares none): the floor does not apply."""
    return not used_vectors or calibration_for(model_id) is not LEXICAL_ONLY


def relevance(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    """Calibrate, then apply the floor (a gate on the whole result) and rescale scores."""
    if not cands or ctx.readers.tokenizer is None or ctx.readers.store is None:
        return cands
    calibration = calibration_for(
        ctx.found.model_id if ctx.found.query_vector is not None else None
    )
    base = ctx.found.baseline
    indexed = ctx.readers.indexed_tokens([c.rowid for c in cands])
    cfg = ctx.request.config.search
    # what the vector channel embedded (a chat's budget asks the store: worked out once here)
    budget = chat_budget(ctx)
    query = embedded_query(ctx.request.query, cfg.query_embed_tokens, budget)
    script = script_of(query)
    cosines = _vector_cosines(cands, ctx)
    for rowid, witnessed in _witnessed_cosines(cands, ctx, query).items():
        cosines[rowid] = max(witnessed, cosines.get(rowid, witnessed))
    with_latent = calibration_for(ctx.found.model_id, LATENT_CALIBRATIONS)
    found = (
        _latent_cosines(cands, ctx, cosines, query, script)
        if with_latent is not LEXICAL_ONLY
        else None
    )
    latent = found or {}
    weights = query_weights(ctx)  # and ctx.understood.unseen, the share of it the store never saw
    chat = bool(message_weights(ctx))
    # only the chat of people the store knows (embedded by its chat budget) is held to the
    # chat's floor: a strangers' chat is read as a question, and judged as one
    own_chat = chat and not strangers_chat(ctx, budget)
    ctx.verdict.own_chat = own_chat
    floors = Floors(ctx.request.config.search, with_latent=found is not None, chat=own_chat)
    min_share = worded_share(ctx, script)
    for c in cands:
        assert c.record is not None
        cos = cosines.get(c.rowid, c.vector_score)
        cov = own_coverage(c.record.text, ctx, indexed.get(c.rowid))
        judged = "dense"
        if c.rerank_relevance is not None:  # a cross-encoder read the pair: its judgement
            own, judged = c.rerank_relevance, "rerank"
        elif cos is None or base is None:
            own = LEXICAL_ONLY(None, None, translated_coverage(ctx, indexed.get(c.rowid), cov))
            judged = "words"
        elif c.rowid in latent:
            own, judged = with_latent(cos, base, cov, latent[c.rowid]), "latent"
        else:
            own = calibration(cos, base, cov)
        crossing = crosses(script, c.record.text)
        linked = crossing and (
            cov > 0 or bool(ctx.understood.named) or _holds_translation(c, ctx, indexed)
        )
        in_window = any(name == "time_intent" for name, _ in c.stages)
        # a question without keywords ("Who is she?") has no word to hold; in a time window
        # being there is the match
        worded = cov > min_share or not weights or in_window
        floor = floors.of(judged, crossing=crossing, linked=linked, worded=worded)
        if in_window:
            # "what happened two days ago": being in the named window is the match. Also when
            # more is asked ("What kitchen appliance did I buy 10 days ago?" -> "I got an air
            # fryer", relevance 0.01): holding such lines to a floor gated 6-12 answerable
            # questions whole (remem-bench's window-floor.json)
            own = max(own, floor[1])
        if _cleared_by_words(ctx, c, cov, indexed, crossing=crossing, chat=chat):
            own = max(own, floor[1])
        c.relevance, c.floor, c.latent = own, floor[1], latent.get(c.rowid)
        floors.judge(own, floor)
    reranked = any(c.rerank_relevance is not None for c in cands)
    calibrated = is_calibrated(ctx.found.model_id, ctx.found.query_vector is not None)
    ctx.verdict.best_margin = max(
        ((c.relevance or 0.0) - c.floor for c in cands if c.floor is not None), default=None
    )
    # the answerability fit reads this stage's evidence of a calibrated model, not a
    # cross-encoder's: a reranked search keeps the floors alone and its scores
    ctx.verdict.calibrated = calibrated and not reranked
    if not floors.cleared and (reranked or calibrated) and _gated(cands, ctx, floors):
        return []
    top, best = max(c.score for c in cands), floors.best
    for c in cands:
        c.set("relevance", best * max(c.score, 0.0) / top if top > 0 else 0.0, always=True)
    return cands


def chat_budget(ctx: StageContext) -> int:
    """The token budget the vector channel embedded a chat by (``chat_budget.py``)."""
    r = ctx.readers
    return chat_embed_budget(
        ctx.request.query, ctx.request.config.search, r.store, r.tokenizer, ctx.understood.named
    )


def strangers_chat(ctx: StageContext, budget: int) -> bool:
    """Whether a chat's labels name only people the store has never heard of (it was then
    embedded by a question's budget, ``chat_budget.py``)."""
    cfg = ctx.request.config.search
    if budget != cfg.chat_embed_tokens:
        return True
    if cfg.chat_embed_tokens != cfg.query_embed_tokens:
        return False
    r = ctx.readers
    if r.store is None or r.tokenizer is None:
        return False
    return strangers_only(ctx.request.query, r.store, r.tokenizer, ctx.understood.named)


def _cleared_by_words(
    ctx: StageContext,
    c: Candidate,
    cov: float,
    indexed: dict[int, list[str]],
    *,
    crossing: bool,
    chat: bool,
) -> bool:
    """Whether a candidate's words alone clear its floor (the per-candidate keyword gates):

    - the chat so far (search.dialogue_words_coverage): a line in its script holding most of
      what one of its messages says is the match, whatever its last few dozen tokens (all the
      dense evidence reads) say;
    - a line in the other script (search.cross_script_words_coverage) holding this share of
      the IDF of the question's dictionary translations: e5-small reads such a pair as
      unrelated, so the whole-result gate emptied questions the keyword channel answered."""
    cfg = ctx.request.config.search
    if crossing:
        share = cfg.cross_script_words_coverage
        if (
            share <= 0
            or not ctx.understood.translated_weights
            or ctx.readers.tokenizer is None
            or not c.record
        ):
            return False
        tokens = indexed.get(c.rowid)
        present = (
            tokens if tokens is not None else ctx.readers.tokenizer.index_tokens(c.record.text)
        )
        return term_coverage(ctx.understood.translated_weights, present) >= share
    words = cfg.dialogue_words_coverage
    return chat and words > 0 and cov >= words


def _gated(cands: list[Candidate], ctx: StageContext, floors: Floors) -> bool:
    """No candidate cleared its floor: drop them all (True), unless the answerability stage
    may still keep a search whose best hit is likely enough to answer (no cliff:
    search/answerability.py says which evidence decided)."""
    name, value = floors.best_floor
    reason = f"nothing relevant: best relevance {floors.best:.3f} < {name} {value}"
    threshold = ctx.request.config.search.answerability_threshold
    if ctx.verdict.calibrated and threshold > 0 and answerability_on():
        ctx.verdict.floor_miss = reason
        return False
    ctx.report.notes.append(f"relevance gate: {reason}")
    for c in cands:
        ctx.report.drop(c, "relevance", reason)
    return True


def answerability_on() -> bool:
    """Whether the answerability stage has a fit to score with (its data file ships)."""
    return shipped_model() is not None


def worded_share(ctx: StageContext, script: str | None) -> float:
    """The share of the question's IDF a candidate in its script must hold to count as saying
    its words (held to the latent floor, not the wordless one); 1 when no line can."""
    # "How deep is the Mariana Trench?" shares only "deep" with "songs that have deep meaning".
    # A Chinese question is indexed by characters and pairs of them, and its answers often
    # share few (型号, 航拍 against "我用的大疆 Mini 4 Pro"): any of its words counts.
    min_share = ctx.request.config.search.worded_min_coverage if script == "latin" else 0.0
    unseen_limit = ctx.request.config.search.unseen_question_share
    # the chat so far is no question: its small talk ("morning! I'm in the queue") is words
    # no note holds, and the rule gated every English dialogue whole (dialogue_notes)
    chat = bool(message_weights(ctx))
    if script == "latin" and 0 < unseen_limit <= ctx.understood.unseen and not chat:
        # the store never saw most of what is asked ("How deep is the Mariana Trench?" in a
        # chat about painting and camping): no line of it says enough of the question
        return 1.0
    if (
        script == "cjk"
        and script_of(ctx.request.query) == "cjk"  # all of a chat turn, not its last line alone
        and unseen_limit > 0
        and unseen_in_either_script(ctx, ctx.understood.unseen_latin)
    ):
        # a Chinese or Japanese question's Latin-script words are its names and terms
        # (Kelvin, GPU, Redis): one no record holds ("Caroline 参加的是什么支持小组？") is
        # someone or something the store never talked of
        return 1.0
    return min_share


class Floors:
    """Which floor a candidate is held to. When the search has latent evidence (the bundled
    model, search.latent_top > 0), a candidate in the question's script is held to
    search.latent_relevance_floor when it holds one of the question's words (those beyond the
    best N too: judged by the dense evidence alone they must not let an off-topic search
    through), else to search.wordless_relevance_floor (the latent terms put "How does a heat
    pump work?" near "Super pumped for your next adventure"). A candidate in another script
    (judged by the dense evidence and the witness: latent terms barely meet across languages)
    is held to search.cross_script_relevance_floor when more than the embeddings ties it to
    the question (it holds one of the question's words or of their dictionary translations,
    or the question names a speaker), else to search.cross_script_unlinked_floor: across
    scripts e5 and the witness put off-topic questions near lines about anything (an English
    probe reached a Chinese line at 0.87). One a cross-encoder judged, or one without a
    vector yet (judged by its words alone), is held to search.relevance_floor. Without latent
    evidence (another model, latent_top = 0, a failed sparse head) search.relevance_floor
    holds for all. The result passes when any candidate clears its floor;
    search.relevance_floor = 0 turns every floor off."""

    def __init__(self, cfg: SearchConfig, *, with_latent: bool, chat: bool = False) -> None:
        self.off = cfg.relevance_floor <= 0
        # a query that is the chat so far: search.dialogue_relevance_floor caps the floors
        self.cap = cfg.dialogue_relevance_floor if chat else 1.0
        self.with_latent = with_latent and not self.off
        self.dense = ("search.relevance_floor", cfg.relevance_floor)
        self.latent = ("search.latent_relevance_floor", cfg.latent_relevance_floor)
        self.cross = ("search.cross_script_relevance_floor", cfg.cross_script_relevance_floor)
        self.unlinked = ("search.cross_script_unlinked_floor", cfg.cross_script_unlinked_floor)
        self.wordless = ("search.wordless_relevance_floor", cfg.wordless_relevance_floor)
        self.cleared = False
        self.best = 0.0
        self.best_floor = self.dense

    def of(
        self, judged: str, *, crossing: bool, linked: bool = True, worded: bool = True
    ) -> tuple[str, float]:
        """(setting, value) of the floor of a candidate (``_of``), capped for the chat so far
        by search.dialogue_relevance_floor."""
        name, value = self._of(judged, crossing=crossing, linked=linked, worded=worded)
        if value > self.cap and (worded or crossing):
            return "search.dialogue_relevance_floor", self.cap
        return name, value

    def _of(
        self, judged: str, *, crossing: bool, linked: bool = True, worded: bool = True
    ) -> tuple[str, float]:
        """(setting, value) of the floor of a candidate judged by ``judged`` ("latent",
        "dense", "words": no vector yet, "rerank"), ``crossing`` when it is written in
        another script than the question, ``linked`` when more than the embeddings ties such
        a candidate to the question (it holds one of its words or of their translations, the
        question names a speaker), ``worded`` when it holds one of the question's words."""
        if not self.with_latent or judged in ("rerank", "words"):
            return self.dense
        if crossing:
            if judged == "latent":  # search.latent_cross_script
                return (
                    self.latent if linked or self.latent[1] >= self.unlinked[1] else self.unlinked
                )
            return self.cross if linked else self.unlinked
        return self.latent if worded else self.wordless

    def judge(self, relevance: float, floor: tuple[str, float]) -> None:
        self.cleared = self.cleared or relevance >= floor[1]
        if relevance > self.best or self.best == 0.0:
            self.best, self.best_floor = relevance, floor


def _holds_translation(c: Candidate, ctx: StageContext, indexed: dict[int, list[str]]) -> bool:
    """Whether the candidate holds one of the dictionary translations of the question's words
    that the keyword search looked for (a word, not a single Chinese character)."""
    if not ctx.understood.translated_weights or ctx.readers.tokenizer is None or c.record is None:
        return False
    tokens = indexed.get(c.rowid)
    present = set(
        tokens if tokens is not None else ctx.readers.tokenizer.index_tokens(c.record.text)
    )
    # counting one-character translations too, off-topic questions cleared the cross floor
    # through them (zh_groupchat's probes answered 10.3% -> 11.2%)
    return any(t in present for t in ctx.understood.translated_weights if ties(t))


def _witnessed_cosines(cands: list[Candidate], ctx: StageContext, query: str) -> dict[int, float]:
    """The cross-script witness's cosines (on the main model's scale) of the best
    ``search.witness_top`` candidates written in another script than ``query`` (what the
    vector channel embedded)."""
    cfg = ctx.request.config.search
    if not cfg.cross_script_witness or ctx.readers.witness is None or ctx.found.baseline is None:
        return {}
    if ctx.found.query_vector is None or not ctx.readers.witness.applies(ctx.found.model_id):
        return {}
    script = script_of(query)
    best = sorted(cands, key=lambda c: (-c.score, c.rowid))[: cfg.witness_top]
    other = [c for c in best if c.record is not None and crosses(script, c.record.text)]
    if not other:
        return {}
    texts = [c.record.text[:WITNESS_CHARS] for c in other if c.record is not None]
    found = ctx.readers.witness.cosines(query, texts, ctx.found.model_id, ctx.found.baseline)
    if found is None:
        return {}
    ctx.report.notes.append(f"relevance: USE read {len(other)} candidates in the other script")
    return {c.rowid: cos for c, cos in zip(other, found, strict=True)}


def _latent_cosines(
    cands: list[Candidate],
    ctx: StageContext,
    cosines: dict[int, float],
    query: str,
    script: str | None,
) -> dict[int, float] | None:
    """The latent-term cosines of the best ``search.latent_top`` candidates written in the
    question's script whose terms the store holds (the caller asks only for a model with a
    latent calibration); None when this search has no latent evidence (off, no sparse head,
    the reader failed, none of the best has its terms stored yet), empty when none of the
    best is in the question's script."""
    top = ctx.request.config.search.latent_top
    if (
        top <= 0
        or ctx.readers.latent is None
        or ctx.found.query_vector is None
        or ctx.found.baseline is None
    ):
        return None
    if not ctx.readers.latent.is_on():
        return None
    best = [
        (c.rowid, c.record)
        for c in sorted(cands, key=lambda c: (-c.score, c.rowid))[:top]
        if c.rerank_relevance is None  # a cross-encoder's judgement stands
        # without a vector (not embedded yet) the latent calibration does not apply
        and cosines.get(c.rowid, c.vector_score) is not None
        # the sparse head's terms do not meet across languages (an English question shares
        # 0.07 with the Chinese line that answers it): the witness judges those
        and c.record is not None
        and (ctx.request.config.search.latent_cross_script or not crosses(script, c.record.text))
    ]
    records = [r for _, r in best if r is not None]  # every candidate has one by now
    if not records:
        return {}
    found = ctx.readers.latent.cosines(query, records)
    if found is None:
        return None
    rowids = [rowid for rowid, r in best if r is not None]
    held = {rowid: cos for rowid, cos in zip(rowids, found, strict=True) if cos is not None}
    if not held:  # none of them has its terms stored yet (the fill's work): no evidence
        return None
    ctx.report.notes.append(f"relevance: the latent terms of the best {len(held)} candidates")
    return held


def _vector_cosines(cands: list[Candidate], ctx: StageContext) -> dict[int, float]:
    """Each candidate's cosine to the query from its stored vector (one product for all;
    candidates without a vector are left out)."""
    if ctx.found.query_vector is None:
        return {}
    rowids = [c.rowid for c in cands if c.rowid in ctx.found.vectors]
    if not rowids:
        return {}
    matrix = np.stack([ctx.found.vectors[r] for r in rowids])
    with blas_one_thread():
        sims = matrix @ np.asarray(ctx.found.query_vector, matrix.dtype)
    return dict(zip(rowids, sims.tolist(), strict=True))
