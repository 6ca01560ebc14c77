"""The reply after a question: a question put to the other person is answered by the next turn.

"Love the tattoo, did you just get it?" holds every word of "What does Gina's tattoo
symbolize?" and the line after it holds the answer ("Got the tattoo a few years ago, it stands
for freedom"). Neighbour lift brings that reply in, at half the question's score, so the
question ranks first and its answer second. A question that asks the other person about
themselves ("you", "your") and says nothing of the asker's own carries no answer of its own:
when its reply is a candidate, the question goes just below it. A question
tells something when it says "I", "my", "we" (我, 咱) or a number ("毕业典礼是七月十六号，
你们要来吗？" too, in characters): then it keeps its place, as "Can you recommend a flash for my Sony A7R IV?" does, the line a
question about the asker's camera is answered by. And a question about what someone asked
("Did Jon ask about the tattoo?") is answered by the question itself: the stage stands aside.
"""

from __future__ import annotations

import re

from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.store.queries import SessionWindow
from remem.text.lazy_re import lazy_compile
from remem.text.timeexpr import DAY, find_time_window

BELOW = 1e-9  # how far under its reply the question goes, relative to the reply's score
REPLY_WITHIN = DAY  # a turn a day later is no reply to the question

_ASKS = ("?", "？")
_SECOND_PERSON = lazy_compile(
    r"\b(?:you|your|yours|yourself|you're|you've|you'd|you'll|ya)\b", re.I
)
_FIRST_PERSON = lazy_compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b", re.I
)
_HAN = lazy_compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_SENTENCE_END = lazy_compile(r"[.!。！?？;；]")
_ASKED_ABOUT = lazy_compile(r"\bask|\bquestion|问")


def asks_the_other(text: str) -> bool:
    """Whether ``text`` is a question put to the other person that tells nothing of the
    asker's own: it ends asking, says "you" (你, 您) and neither "I" nor "we" (我, 咱), and holds
    no number; in Chinese also no date in characters (七月十六号), nothing done (了) and no
    sentence but an interjection before the question (哇！). An English sentence of news
    without a pronoun before it ("Got promoted at the bank! Can you believe it?") is not told
    apart: holding such lines to one word or six cost LoCoMo 0.013-0.021 MRR of the 0.028 the
    stage gains (remem-bench's reply-after-question-strict.json)."""
    text = text.strip().replace("’", "'")
    if not text.endswith(_ASKS):
        return False
    if any(ch.isdigit() for ch in text):
        return False
    *before, _question = _SENTENCE_END.split(text[:-1].rstrip("?？"))
    if _HAN.search(text):
        clauses = re.split("[，,]", text)
        if (
            any(len(s.strip()) > 4 for s in before)
            or any("了" in c for c in clauses[:-1])
            or find_time_window(text, 0.0) is not None  # 七月十六号: a date in characters
        ):
            return False
        return bool(re.search("[你您妳]", text)) and not re.search("[我咱俺]", text)
    return bool(_SECOND_PERSON.search(text)) and not _FIRST_PERSON.search(text)


def reply_after_question(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    """Each question put to the other person among the best k x 2 candidates (at least 10)
    goes just below the reply right after it (the next turn of its session, by someone else,
    within a day), when that reply is a candidate below it; the reply and everything
    else keep their scores. Lowest questions first, so in a chain of questions each ends
    below its own reply. (Giving the reply the question's place instead lifted it over
    answers between the two: LoCoMo recall@10 0.808 against 0.806 but LongMemEval MRR 0.792
    against 0.799.)"""
    cfg = ctx.request.config.scoring
    if (
        not cfg.reply_after_question
        or ctx.readers.store is None
        or _ASKED_ABOUT.search(ctx.request.query)
    ):
        return cands
    ranked = sorted(cands, key=lambda c: (-c.score, c.rowid))[: max(ctx.request.k * 2, 10)]
    questions = [c for c in reversed(ranked) if _is_question_turn(c)]
    if not questions:
        return cands
    best = {c.rowid: c for c in cands}
    after = ctx.readers.store.neighbours(
        [c.record for c in questions if c.record],
        SessionWindow(0, 1, ctx.request.filters, ctx.request.now),
    )
    for q in questions:
        following = after.get(q.rowid, [])
        reply = best.get(following[0].rowid) if following and following[0].rowid else None
        if reply is not None and _answers(q, reply):
            assert reply.record is not None
            q.set("reply_after_question", reply.score * (1 - BELOW))
            q.below = reply.rowid  # in the score's order too (candidates.in_hit_order)
            q.notes.append(f"reply_after_question: below its reply {reply.record.id}")
    return cands


def _is_question_turn(c: Candidate) -> bool:
    rec = c.record
    return rec is not None and rec.kind == "message" and asks_the_other(rec.shown_text)


def _answers(q: Candidate, reply: Candidate) -> bool:
    """Whether ``reply`` is someone else's answer, soon after, scoring below the question."""
    assert q.record is not None and reply.record is not None
    asker = q.record.speaker_id or q.record.speaker_label
    other = reply.record.speaker_id or reply.record.speaker_label
    return (
        asker is not None
        and other is not None
        and asker != other
        and 0 < reply.score < q.score
        and reply.record.created_at - q.record.created_at <= REPLY_WITHIN
    )
