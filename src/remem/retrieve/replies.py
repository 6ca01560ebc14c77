"""The reply after a question: a question put to the other person is answered by the next turn.

"Love the tattoo, did you just get it?" holds every word of "What does Gina's tattoo
symbolize?" and the line after it holds the answer ("Got the tattoo a few years ago, it stands
for freedom"). Neighbour lift brings that reply in, at half the question's score, so the
question ranks first and its answer second. A question that asks the other person about
themselves ("you", "your") and says nothing of the asker's own ("I", "my", "we"; in Chinese 你
without 我) nor any number (a date, a time, a price: "毕业典礼是 7 月 16 号，你们要来吗？" tells
the date) carries no answer of its own: when its reply is a candidate, the question goes just
below it. A question that tells something ("Can you recommend a flash for my Sony A7R IV?")
keeps its place: it is what a question about the asker's camera is answered by.
"""

from __future__ import annotations

import re

from remem.retrieve.candidates import Candidate
from remem.retrieve.context import StageContext

BELOW = 1e-9  # how far under its reply the question goes, relative to the reply's new score

_ASKS = ("?", "？")
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|you're|you've|you'd|you'll|ya)\b", re.I)
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b", re.I
)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def asks_the_other(text: str) -> bool:
    """Whether ``text`` is a question put to the other person that tells nothing of the
    asker's own: it ends asking, says "you" (你, 您), neither "I" nor "we" (我), and no number."""
    text = text.strip()
    if not text.endswith(_ASKS) or any(ch.isdigit() for ch in text):
        return False
    if _HAN.search(text):
        return ("你" in text or "您" in text) and "我" not in text
    return bool(_SECOND_PERSON.search(text)) and not _FIRST_PERSON.search(text)


def reply_after_question(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    """Each question put to the other person among the best k x 2 candidates (at least 10)
    goes just below the reply right after it (the next turn of its session, by someone else),
    when that reply is a candidate below it; the reply and everything else keep their scores.
    (Giving the reply the question's place instead lifted it over answers between the two:
    LoCoMo recall@10 0.808 against 0.806 but LongMemEval MRR 0.792 against 0.799.)"""
    if not ctx.config.scoring.reply_after_question or ctx.store is None or not cands:
        return cands
    ranked = sorted(cands, key=lambda c: (-c.score, c.rowid))[: max(ctx.k * 2, 10)]
    questions = [c for c in ranked if c.record is not None and asks_the_other(c.record.text)]
    if not questions:
        return cands
    by_rowid = {c.rowid: c for c in cands}
    after = ctx.store.neighbours(
        [c.record for c in questions if c.record], 0, 1, ctx.filters, ctx.now
    )
    for q in questions:
        assert q.record is not None
        following = after.get(q.rowid, [])
        reply = by_rowid.get(following[0].rowid) if following and following[0].rowid else None
        if reply is None or reply.record is None or reply.score >= q.score:
            continue
        if reply.record.speaker_label == q.record.speaker_label:
            continue  # the asker going on, not an answer
        q.set("reply_after_question", reply.score * (1 - BELOW))
    return cands
