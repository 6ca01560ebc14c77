"""An answer that replies to the question before it (issue 45), with the real bundled model, a
real SQLite file and the fit that reads the reply inputs (measured, not shipped: decision
0014, "The reply inputs"; kept in benchmarks/results/answerability-fit-reply6.json): "Circe,
I think." names neither the book club nor May, the line it answers does. Without the reply
inputs (search/reply_evidence.py) the score saw which line a reply answers only through the
pipeline's rank: with the question just before it or just after it, its neighbours' words are
the same. The answerability stage reads the turns before each hit only for a fit that reads
these inputs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remem import Config, Memory
from remem.search import answerability
from remem.search.reply_evidence import REPLY_INPUTS
from remem.types import Hit

pytestmark = pytest.mark.slow
REPLY_FIT = Path(__file__).resolve().parents[2] / "benchmarks/results/answerability-fit-reply6.json"


@pytest.fixture
def reply_fit(monkeypatch):
    """The answerability stage scores with the fit that reads the reply inputs."""
    model = answerability.AnswerabilityModel.from_dict(json.loads(REPLY_FIT.read_text("utf-8")))
    assert model.inputs() & set(REPLY_INPUTS)
    monkeypatch.setattr(answerability, "shipped_model", lambda: model)


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
    tmp_path, reply_fit
):
    answering = reply_hit(tmp_path / "answering.db", (QUESTION, REPLY))
    first = reply_hit(tmp_path / "first.db", (REPLY, QUESTION))  # the session's first turn
    # the score reads that the turn before it asked the question: that lifts the reply, and
    # a reply with nothing asked before it is held below the average
    assert reply_share(answering) > 0 > reply_share(first), answering.explain.evidence
    assert answering.score > first.score


def test_the_shipped_fit_reads_no_reply_input(tmp_path):
    """Measured, not shipped (decision 0014): the shipped score adds nothing for them, and
    the stage does not read the turns before each hit for it."""
    assert not answerability.shipped_model().inputs() & set(REPLY_INPUTS)
    assert reply_share(reply_hit(tmp_path / "answering.db", (QUESTION, REPLY))) == 0
