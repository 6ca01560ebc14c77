"""Issue 45's group chat (our own copy, tests/data/hike_chat) with the real bundled model: the
answerability score means what it says on the questions the user tried.

- near misses (a real subject, an attribute never said) inject nothing before a turn (one of
  the three still injects one line: xfail);
- "汤姆现在住在哪里？" and "大家去哪座山爬山了？" return their answers;
- the greeting that opens the hike plan is searchable;
- naming a speaker does not lift their unrelated lines over 0.5.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remem import Config, Memory, Turn

pytestmark = pytest.mark.slow

CHAT = Path(__file__).resolve().parents[1] / "data" / "hike_chat" / "chat.jsonl"
ROWS = [json.loads(line) for line in CHAT.read_text("utf-8").splitlines() if line.strip()]
SESSION = ROWS[0]["session"]
LATER = ROWS[-1]["timestamp"] + 3600

NEAR_MISSES = (
    "What is Priya's favourite movie?",
    "What's the wifi password at Lin Wei's place?",
    "张敏养了什么宠物？",
)
# One near miss still injects one line at recall.answerability_threshold 0.05: its best hit
# scores 0.064 (Lin Wei's "same apartment", a line about his place; no line states a
# password, the asked-attribute input, but his name and place match; the fact layer knows no
# password family and the line is not in the first person, so the *whose* inputs say
# nothing). 张敏's cat allergy (a cat is the asked kind, a pet) no longer injects: no line says
# she keeps one (0.037). Blocking the first needs a stricter threshold, which empties more of
# the suite's answerable questions (docs/decisions/0014-answerability.md)
_STILL_INJECTS = pytest.mark.xfail(
    strict=True,
    reason="the evidence is split: the hit is about the asked place (issue 45: below the "
    "0.05 recall threshold only with one that empties answers)",
)


@pytest.fixture(scope="module")
def chat(tmp_path_factory):
    db = tmp_path_factory.mktemp("hike") / "chat.db"
    config = Config.load(env={}, overrides={"indexing.mode": "sync"})
    with Memory(db, config) as mem:
        mem.ingest_many(ROWS, wait=True)
        yield mem


def recall(mem: Memory, question: str, n: int) -> list[str]:
    """The ids auto-recall injects before a turn asking ``question`` in the chat (the question
    is archived as the turn's input, then removed again)."""
    qid = f"ask-{n}"
    mem.ingest_many(
        [
            {
                "id": qid,
                "session": SESSION,
                "platform": "qq",
                "role": "user",
                "speaker": "Sam",
                "text": question,
                "timestamp": LATER + n,
            }
        ],
        wait=True,
    )
    try:
        out = mem.recall_for_turn(Turn(session=SESSION, inputs=[qid], now=LATER + n + 1))
        return [h.record.id for h in out.hits]
    finally:
        mem.delete(qid)


@pytest.mark.parametrize(
    "question",
    [
        NEAR_MISSES[0],
        pytest.param(NEAR_MISSES[1], marks=_STILL_INJECTS),
        NEAR_MISSES[2],
    ],
)
def test_a_near_miss_injects_nothing(chat, question):
    assert recall(chat, question, NEAR_MISSES.index(question)) == []


def test_a_named_speakers_unrelated_lines_score_under_half(chat):
    result = chat.search("What is Priya's favourite movie?", k=10, now=LATER)
    priya = [h for h in result.hits if h.record.speaker_label == "Priya"]
    assert all(h.score < 0.5 for h in priya), [(h.score, h.record.text) for h in priya]
    # the pipeline's own scores stay in the trace (the named speaker lifts them there)
    assert all(h.explain.stages and h.explain.answerability == h.score for h in result.hits)


def answer_ids(mem: Memory, question: str) -> list[str]:
    return [h.record.id for h in mem.search(question, k=10, now=LATER).hits]


def test_where_tom_lives_now_is_answered(chat):
    assert "hike-08" in answer_ids(chat, "汤姆现在住在哪里？")  # moved from Shenzhen to Shanghai


def test_which_mountain_is_answered(chat):
    found = answer_ids(chat, "大家去哪座山爬山了？")
    assert {"hike-05", "hike-25"} & set(found)  # 香山, in two messages


def test_the_greeting_that_opens_the_plan_is_searchable(chat):
    assert "hike-01" in answer_ids(chat, "周末有人想去爬山吗")
