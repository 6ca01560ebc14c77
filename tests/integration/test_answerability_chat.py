"""Issue 45's group chat (our own copy, tests/data/hike_chat) with the real bundled model: the
answerability score means what it says on the questions the user tried.

- near misses (a real subject, an attribute never said) inject nothing before a turn;
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
# The three inject nothing at recall.answerability_threshold 0.09. The wifi question's best
# hit was Lin Wei's "same apartment" (0.064 before split evidence: his name and his place
# match, no line states a password): the split-evidence input (the subject matched, the asked
# attribute stated by no best hit) puts it at 0.048. 张敏's cat allergy (a cat is the asked
# kind, a pet) says nothing of keeping one (0.009). Priya's dosa line scores 0.087: under the
# threshold by a little, so a refit can move it (docs/decisions/0014-answerability.md)


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


@pytest.mark.parametrize("question", NEAR_MISSES)
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
