"""An answer that replies to the question before it (issue 45), with the real bundled model, a
real SQLite file and the shipped fit: "Circe, I think." names neither the book club nor May,
the line it answers does. Before the reply inputs (search/reply_evidence.py) the score saw which
line a reply answers only through the pipeline's rank: with the question just before it or just
after it, its neighbours' words are the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from remem import Config, Memory
from remem.search.reply_evidence import REPLY_INPUTS
from remem.types import Hit

pytestmark = pytest.mark.slow

T = 1_800_000_000.0
QUESTION = ("Marta", "Which book is the club reading for May?")
REPLY = ("Grace", "Circe, I think.")
REST = (
    ("Ines", "I still have to finish the last one."),
    ("Marta", "The café on Elm Street has a room for us."),
    ("Grace", "I can bring the biscuits this time."),
    ("Ines", "My train gets in at seven, I might be late."),
)


def reply_hit(db: Path, opening: tuple[tuple[str, str], ...]) -> Hit:
    """The reply's hit for the question, in a chat whose session opens with ``opening``."""
    lines = (*opening, *REST)
    rows = [
        {
            "id": "reply" if (speaker, text) == REPLY else f"m{i}",
            "session": "club",
            "role": "user",
            "speaker": speaker,
            "text": text,
            "timestamp": T + 60 * i,
        }
        for i, (speaker, text) in enumerate(lines)
    ]
    with Memory(db, Config.load(env={}, overrides={"indexing.mode": "sync"})) as mem:
        mem.ingest_many(rows, wait=True)
        hits = mem.search(QUESTION[1], k=10, now=T + 3600).hits
    return next(h for h in hits if h.record.id == "reply")


def reply_share(hit: Hit) -> float:
    """What the reply inputs add to the hit's logit (0 when the score reads none)."""
    return sum(v for name, v in hit.explain.evidence.items() if name in REPLY_INPUTS)


def test_a_reply_to_the_question_before_it_scores_higher_than_with_the_question_after_it(
    tmp_path,
):
    answering = reply_hit(tmp_path / "answering.db", (QUESTION, REPLY))
    first = reply_hit(tmp_path / "first.db", (REPLY, QUESTION))  # the session's first turn
    # the score reads that the turn before it asked the question: that lifts the reply, and
    # a reply with nothing asked before it is held below the average
    assert reply_share(answering) > 0 > reply_share(first), answering.explain.evidence
    assert answering.score > first.score
