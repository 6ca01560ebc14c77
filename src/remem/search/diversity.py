"""Diversity: keep near-duplicates from crowding out everything else.

- ``demote``: a candidate that repeats a better-ranked kept one ranks as if it scored
  ``demote_factor`` (0.7) x its score, below the hits it repeats and any other hit that close
  (not dropped, and not below every other candidate: in a haystack that pushed the last
  version of an assistant's table behind lines of other chats; 0 keeps it at the very end).
  Repeating takes both a cosine above ``threshold`` and, with ``text_overlap`` > 0, the same
  words: the share of character pairs the two texts have in common (Jaccard, after
  ``normalize_text`` and without spaces and punctuation) at least ``text_overlap``. e5-small puts short Chinese lines about one
  topic above 0.95 even when they say different things ("准备报 5 月的 30 公里越野赛" and, weeks
  later, "跑完了 30 公里越野赛，4 小时 52 分"): on cosine alone the later answer was moved out
  of the top 10 (with the check at 0.3, zh_groupchat's recall@10 0.720 -> 0.776, the rest of
  the suite unchanged or better, remem-bench's diversity-text.json).
- ``mmr``: maximal marginal relevance, lambda x score - (1 - lambda) x max cosine to the
  already chosen, greedily.
Candidates without a stored vector (lexical-only, other model) are never treated as duplicates.
"""

from __future__ import annotations

import numpy as np

from remem.config import DiversityConfig
from remem.index.exact import blas_one_thread
from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.text.dialogue import newest_turn
from remem.text.intent import is_aggregate
from remem.text.normalize import normalize_text


def diversity(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    cfg = ctx.request.config.diversity
    if cfg.mode == "off" or len(cands) < 2:
        return cands
    ordered = sorted(cands, key=lambda c: -c.score)
    if cfg.max_per_session > 0:
        ordered = session_quota(ordered, cfg.max_per_session)
    if cfg.session_coverage > 0:
        ordered = session_coverage(ordered, ctx.request.k, cfg.session_coverage)
    if not ctx.found.vectors:
        return ordered
    if cfg.mode == "mmr":
        return _mmr(ordered, ctx, cfg.mmr_lambda)
    # One matrix of pairwise cosines, and a running "closest kept hit" per candidate.
    with_vec = [i for i, c in enumerate(ordered) if c.rowid in ctx.found.vectors]
    if len(with_vec) < 2:
        return ordered
    pos = {i: j for j, i in enumerate(with_vec)}
    matrix = np.stack([ctx.found.vectors[ordered[i].rowid] for i in with_vec])
    with blas_one_thread():
        sims = matrix @ matrix.T
    kept: list[Candidate] = []
    kept_rows: list[int] = []  # rows of ``sims`` of the kept candidates that have a vector
    kept_with_vec: list[Candidate] = []  # those candidates, in the same order
    demoted: list[Candidate] = []
    for i, c in enumerate(ordered):
        j = pos.get(i)
        twin = _twin(c, sims[j, kept_rows], kept_with_vec, cfg) if j is not None else None
        if twin is not None:
            c.notes.append(
                f"near-duplicate of a better hit (cosine {twin:.3f}): ranked at "
                f"{cfg.demote_factor:g} x its score"
            )
            demoted.append(c)
            continue
        kept.append(c)
        if j is not None:
            kept_rows.append(j)
            kept_with_vec.append(c)
    for c in demoted:
        c.stages.append(("diversity", c.score))
    # a session quota or coverage has ordered the kept ones otherwise than by score: a
    # repeat placed by its score would jump the hits they moved (then it goes to the end)
    reordered = cfg.max_per_session > 0 or cfg.session_coverage > 0
    return with_demoted(kept, demoted, 0.0 if reordered else cfg.demote_factor)


def with_demoted(kept: list[Candidate], demoted: list[Candidate], factor: float) -> list[Candidate]:
    """The kept candidates (ordered by score) in their order, each demoted one placed before
    the first kept one scoring below ``factor`` x its own score (for a score below 0, that much
    further below it); after all of them when ``factor`` is 0."""
    if factor <= 0 or not demoted:
        return kept + demoted
    waiting = sorted(demoted, key=lambda c: -c.score)
    out: list[Candidate] = []
    for c in kept:
        while waiting and _lowered(waiting[0].score, factor) > c.score:
            out.append(waiting.pop(0))
        out.append(c)
    return out + waiting


def _lowered(score: float, factor: float) -> float:
    return score - (1 - factor) * abs(score)


def _twin(
    c: Candidate, cosines: np.ndarray, kept: list[Candidate], cfg: DiversityConfig
) -> float | None:
    """The cosine to the best kept hit that ``c`` repeats (``cosines[m]`` is its cosine to
    ``kept[m]``): close in vectors, and in words when ``text_overlap`` asks; None if none."""
    for m in np.argsort(-cosines):
        if cosines[m] <= cfg.threshold:
            return None
        if cfg.text_overlap <= 0 or text_overlap(c, kept[m]) >= cfg.text_overlap:
            return float(cosines[m])
    return None


def text_overlap(a: Candidate, b: Candidate) -> float:
    """Jaccard of the two texts' character pairs (normalised, spaces and punctuation left out):
    1.0 for the same words however spaced or cased, low for two lines that share a topic."""
    pa, pb = _pairs(a), _pairs(b)
    if not pa or not pb:
        return 0.0
    return len(pa & pb) / len(pa | pb)


def _pairs(c: Candidate) -> set[str]:
    text = c.record.shown_text if c.record else ""
    chars = "".join(ch for ch in normalize_text(text) if ch.isalnum())
    if len(chars) < 2:
        return {chars} if chars else set()
    return {chars[i : i + 2] for i in range(len(chars) - 1)}


def aggregate_spread(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    """A question that counts, sums, compares or orders things across occasions ("how many
    concerts did I go to?", "我一共去了几次") needs every occasion, and each usually sits in
    its own session; the turns around the best one are not enough. For such questions, hits of
    one session beyond ``aggregate_max_per_session`` move below the rest. A chat of several
    messages is judged by its last speaker's newest messages (``newest_turn``): "How many pets
    will they look after?" from the assistant, or "下周要去亲戚家住几天" two messages back, is
    not what the user asks now."""
    quota = ctx.request.config.diversity.aggregate_max_per_session
    if quota <= 0 or len(cands) < 2 or not is_aggregate(newest_turn(ctx.request.query)):
        return cands
    ctx.report.notes.append(f"aggregate question: at most {quota} hits per session on top")
    return session_quota(cands, quota)


def session_quota(ordered: list[Candidate], quota: int) -> list[Candidate]:
    """Beyond ``quota`` hits from one session, further hits of that session move below the
    rest (kept, not dropped), so one long session cannot fill the whole top k."""
    seen: dict[str, int] = {}
    head: list[Candidate] = []
    tail: list[Candidate] = []
    for c in ordered:
        session = c.record.session if c.record else None
        if session:
            seen[session] = seen.get(session, 0) + 1
            if seen[session] > quota:
                c.notes.append(f"more than {quota} hits from session {session}: moved down")
                tail.append(c)
                continue
        head.append(c)
    return head + tail


def session_coverage(ordered: list[Candidate], k: int, ratio: float) -> list[Candidate]:
    """Give sessions missing from the top k a seat: the best hit of each such session that
    scores at least ``ratio`` x the top score takes the place of the lowest-ranked hit of a
    session that holds several places. Evidence often spans sessions; one long session should
    not hide the others."""
    if len(ordered) <= k or not ordered:
        return ordered
    top, rest = list(ordered[:k]), list(ordered[k:])

    def session(c: Candidate) -> str | None:
        return c.record.session if c.record else None

    counts: dict[str | None, int] = {}
    for c in top:
        counts[session(c)] = counts.get(session(c), 0) + 1
    floor = ratio * top[0].score
    seen: set[str | None] = set(counts)
    promote: list[Candidate] = []
    for c in rest:
        s = session(c)
        if s is not None and s not in seen and c.score >= floor:
            seen.add(s)
            promote.append(c)
    for newcomer in promote:
        victim_index = next(
            (
                i
                for i in range(len(top) - 1, 0, -1)
                if session(top[i]) is not None and counts[session(top[i])] > 1
            ),
            None,
        )
        if victim_index is None:
            break
        victim = top.pop(victim_index)
        counts[session(victim)] -= 1
        counts[session(newcomer)] = 1
        rest.remove(newcomer)
        rest.insert(0, victim)
        newcomer.notes.append("best hit of a session missing from the top: given a place")
        top.append(newcomer)
    return top + rest


def _mmr(ordered: list[Candidate], ctx: StageContext, lam: float) -> list[Candidate]:
    remaining = list(ordered)
    chosen: list[Candidate] = []
    chosen_vecs: list[np.ndarray] = []
    while remaining and len(chosen) < max(ctx.request.k, 1) * 2:
        best, best_value = None, -np.inf
        for c in remaining:
            v = ctx.found.vectors.get(c.rowid)
            sim = (
                float(np.max(np.stack(chosen_vecs) @ v)) if (v is not None and chosen_vecs) else 0.0
            )
            value = lam * c.score - (1 - lam) * sim
            if value > best_value:
                best, best_value = c, value
        assert best is not None
        remaining.remove(best)
        chosen.append(best)
        v = ctx.found.vectors.get(best.rowid)
        if v is not None:
            chosen_vecs.append(v)
        best.stages.append(("mmr", best_value))
    return chosen + remaining
