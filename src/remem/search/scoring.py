"""Score stages: each multiplies or adds to a candidate's score from one signal.

All are pure functions of (candidate, record, clock, settings); each can be switched off by
its setting, and each writes its result into the candidate's trace.
"""

from __future__ import annotations

import math
from collections import defaultdict

from remem.search.candidates import Candidate
from remem.search.context import Request, StageContext
from remem.search.query_terms import query_weights, term_coverage
from remem.store.queries import SessionWindow
from remem.text.dialogue import newest_turn
from remem.text.intent import speaks_of_self
from remem.text.noise import is_noise
from remem.types import Record

DAY = 86400.0
BELOW = 1e-9  # how far under its anchor a capped neighbour stays, relative to the anchor


def _age_days(cand: Candidate, now: float) -> float:
    assert cand.record is not None
    return max(0.0, (now - cand.record.created_at) / DAY)


def recency(cands: list[Candidate], request: Request) -> list[Candidate]:
    """score += weight x exp(-age / half-life): a small edge for recent records."""
    cfg = request.config.scoring
    if cfg.recency_weight <= 0:
        return cands
    for c in cands:
        boost = cfg.recency_weight * math.exp(
            -_age_days(c, request.now) / cfg.recency_half_life_days
        )
        c.set("recency", c.score + boost)
    return cands


def importance(cands: list[Candidate], request: Request) -> list[Candidate]:
    """score x (0.7 + 0.3 x importance): importance in [0, 1], 0.5 when never set."""
    if not request.config.scoring.importance:
        return cands
    for c in cands:
        assert c.record is not None
        c.set("importance", c.score * (0.7 + 0.3 * c.record.importance))
    return cands


def authority(cands: list[Candidate], request: Request) -> list[Candidate]:
    """score x (1 + scoring.authority) for a curated memory someone chose to keep (stored
    through ``add`` or a memory tool, or captured from an explicit "remember ..."), x (1 +
    authority / 2) for one captured automatically; a memory of what the assistant said gets
    nothing. So a chat line must match clearly better to outrank a kept decision, and
    similarity alone does not decide between them."""
    weight = request.config.scoring.authority
    if weight <= 0:
        return cands
    for c in cands:
        level = authority_level(c.record)
        if level > 0:
            c.set("authority", c.score * (1 + weight * level))
    return cands


def authority_level(record: Record | None) -> float:
    """1 for a memory kept on purpose, 0.5 for an automatically captured one, else 0."""
    if record is None or record.kind != "memory":
        return 0.0
    meta = record.metadata or {}
    if meta.get("said_by") == "assistant":
        return 0.0
    if meta.get("captured_by") and not meta.get("explicit"):
        return 0.5
    return 1.0


def length_norm(cands: list[Candidate], request: Request) -> list[Candidate]:
    """Long texts match many queries a little; damp them beyond the anchor length:
    score x 1 / (1 + 0.5 x log2(length / anchor))."""
    anchor = request.config.scoring.length_anchor
    if anchor <= 0:
        return cands
    for c in cands:
        assert c.record is not None
        n = len(c.record.text)
        if n > anchor:
            c.set("length", c.score / (1 + 0.5 * math.log2(n / anchor)))
    return cands


def decay(cands: list[Candidate], request: Request) -> list[Candidate]:
    """score x (0.5 + 0.5 x exp(-age / half-life)); each explicit recall of a record stretches
    its half-life by ``reinforcement_factor`` (at most ``reinforcement_cap`` x)."""
    cfg = request.config.scoring
    if not cfg.decay:
        return cands
    for c in cands:
        assert c.record is not None
        stretch = min(cfg.reinforcement_cap, 1 + cfg.reinforcement_factor * c.record.access_count)
        half_life = cfg.decay_half_life_days * stretch
        c.set("decay", c.score * (0.5 + 0.5 * math.exp(-_age_days(c, request.now) / half_life)))
    return cands


def access(cands: list[Candidate], request: Request) -> list[Candidate]:
    """score x min(cap, 1 + access_boost x ln(1 + explicit recalls)): what an agent keeps
    asking for ranks higher; works with decay off (with decay on, recalls also stretch the
    half-life). Records never recalled explicitly are untouched."""
    cfg = request.config.scoring
    if cfg.access_boost <= 0:
        return cands
    for c in cands:
        assert c.record is not None
        if c.record.access_count > 0:
            boost = 1 + cfg.access_boost * math.log1p(c.record.access_count)
            c.set("access", c.score * min(cfg.reinforcement_cap, boost))
    return cands


def time_weighting(cands: list[Candidate], request: Request) -> list[Candidate]:
    """final = (1 - w) x score + w x exp(-0.1 x days)."""
    w = request.config.scoring.time_weight
    if w <= 0:
        return cands
    for c in cands:
        c.set("time_weight", (1 - w) * c.score + w * math.exp(-0.1 * _age_days(c, request.now)))
    return cands


def same_user(cands: list[Candidate], request: Request) -> list[Candidate]:
    """x boost when the asking user wrote the record or was mentioned in it (only where the
    caller turned it on: the `user` cross-session mode)."""
    boost = request.config.scoring.same_user_boost
    if not request.same_user_boost or not request.asker or boost == 1:
        return cands
    for c in cands:
        assert c.record is not None
        if c.record.speaker_id == request.asker or request.asker in c.record.mentions:
            c.set("same_user", c.score * boost)
    return cands


def self_reference(cands: list[Candidate], request: Request) -> list[Candidate]:
    """x scoring.self_reference for an assistant's records when the question speaks of the
    asker without addressing anyone ("How many fitness classes do I attend?"): the asker's
    own words answer it, and an assistant's long replies on the same topic crowd them out
    (LongMemEval, remem-bench's self-reference.json). A chat of several messages is judged
    by its last speaker's newest messages, whole (``newest_turn``; "our previous chat" at
    its start counts, as does "你帮我…" in the message before a second one in a row)."""
    factor = request.config.scoring.self_reference
    if factor >= 1 or not speaks_of_self(newest_turn(request.query)):
        return cands
    for c in cands:
        assert c.record is not None
        if c.record.role == "assistant":
            c.set("self_reference", c.score * factor)
    return cands


def named_speaker(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    """x scoring.named_speaker for the chat lines of everyone else when the question names a
    speaker of the store ("What did Caroline research?", "Xiaoming" for 小明): what a person
    did or said is most often in their own lines (remem-bench's named-speaker.json). In a chat
    of several messages the names in its last speaker's newest messages count; a question
    naming someone who said nothing among the candidates changes nothing, and curated
    memories (no speaker of their own) keep their score."""
    factor = ctx.request.config.scoring.named_speaker
    if factor >= 1 or not ctx.understood.named:
        return cands
    newest = newest_turn(ctx.request.query)
    named = set(ctx.understood.named)
    if newest != ctx.request.query:  # the search's names were found in the whole turn
        found = (
            ctx.readers.speaker_names.named(newest, ctx.request.filters)
            if ctx.readers.speaker_names
            else {}
        )
        named &= set(found)
    if not any(c.record is not None and c.record.speaker_label in named for c in cands):
        return cands
    others = [
        c
        for c in cands
        if c.record is not None
        and c.record.kind == "message"
        and c.record.speaker_label
        and c.record.speaker_label not in named
    ]
    spared = _said_only_by_others(cands, others, named, ctx)
    for c in others:
        if c.rowid not in spared:
            c.set("named_speaker", c.score * factor)
    return cands


def _said_only_by_others(
    cands: list[Candidate], others: list[Candidate], named: set[str], ctx: StageContext
) -> set[int]:
    """The other speakers' lines that cover the question's words (its names aside) by more
    than ``scoring.named_speaker_spare`` over every line of the named person among the
    candidates: the question's topic is in their words, not in the named person's ("What did
    Caroline realize after her charity race?" when Melanie ran it), so who said it is no
    evidence against them."""
    margin = ctx.request.config.scoring.named_speaker_spare
    if margin >= 1 or ctx.readers.store is None or ctx.readers.tokenizer is None or not others:
        return set()
    names = {
        t
        for alias in ctx.understood.named.values()
        for t in ctx.readers.tokenizer.query_tokens(alias)
    }
    weights = {t: w for t, w in query_weights(ctx).items() if t not in names}
    if not weights:
        return set()
    own = [c for c in cands if c.record is not None and c.record.speaker_label in named]
    indexed = ctx.readers.indexed_tokens([c.rowid for c in own + others])
    best = max(term_coverage(weights, indexed.get(c.rowid, ()), ctx.understood.forms) for c in own)
    return {
        c.rowid
        for c in others
        if term_coverage(weights, indexed.get(c.rowid, ()), ctx.understood.forms) > best + margin
    }


def session_lift(cands: list[Candidate], request: Request) -> list[Candidate]:
    """Evidence clusters by session: every other candidate of a session gains
    ``session_lift`` x that session's best score."""
    lift = request.config.scoring.session_lift
    if lift <= 0:
        return cands
    best: dict[str, tuple[float, int]] = defaultdict(lambda: (0.0, -1))
    for c in cands:
        assert c.record is not None
        if c.record.session and c.score > best[c.record.session][0]:
            best[c.record.session] = (c.score, c.rowid)
    for c in cands:
        s = c.record.session if c.record else None
        if s and best[s][1] != c.rowid:
            c.set("session_lift", c.score + lift * best[s][0])
    return cands


def neighbour_lift(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    """What a turn means often lives in the turns around it: the answer follows the question
    that matched. The turns next to each of the best candidates get ``neighbour_lift`` x its
    score (joining the candidates if they were not among them). With ``neighbour_cap`` (the
    default) a lifted turn stays below the hit that lifted it."""
    cfg = ctx.request.config.scoring
    if cfg.neighbour_lift <= 0 or cfg.neighbour_window <= 0 or not cands:
        return cands
    ranked = sorted(cands, key=lambda c: (-c.score, c.rowid))
    top = ranked[: cfg.neighbour_top]
    by_rowid = {c.rowid: c for c in cands}
    # A neighbour that an earlier gate removed (or that is noise) does not come back this way.
    excluded = {d.rowid for d in ctx.report.dropped}
    cap = cfg.neighbour_cap
    check_noise = ctx.request.config.noise.enabled
    assert ctx.readers.store is not None  # the searcher always gives its store
    anchors = [c.record for c in top if c.record is not None]
    window = SessionWindow(
        cfg.neighbour_window, cfg.neighbour_window, ctx.request.filters, ctx.request.now
    )
    found = ctx.readers.store.neighbours(anchors, window)
    gains: dict[int, tuple[float, float]] = {}  # rowid -> (gain, the most it may reach)
    records: dict[int, Record] = {}
    for c in top:
        for rec in found.get(c.rowid, []):
            if rec.rowid is None or rec.rowid in excluded or (check_noise and is_noise(rec.text)):
                continue
            gain = cfg.neighbour_lift * c.score
            # Lift brings context, not a better answer: it never moves a neighbour past the
            # hit that lifted it. Only the neighbour's own score (its own match with the
            # query) can put it above that hit, and then the lift adds nothing.
            # (a relative margin, not the next float below: the relevance stage rescales every
            # score, and one ulp of difference rounded away left the two tied, ordered by rowid)
            limit = math.inf if not cap else c.score * (1 - BELOW)
            if gain > gains.get(rec.rowid, (0.0, 0.0))[0]:
                gains[rec.rowid] = (gain, limit)
                records[rec.rowid] = rec
    ctx.read_vectors([r for r in gains if r not in by_rowid])  # judged by their own cosine
    for rowid, (gain, limit) in gains.items():
        cand = by_rowid.get(rowid)
        if cand is None:
            cand = Candidate(rowid, record=records[rowid])
            cand.stages.append(("neighbour", 0.0))
            by_rowid[rowid] = cand
            cands.append(cand)
        if cand.score < limit:
            cand.set("neighbour_lift", min(cand.score + gain, limit))
    return cands
