"""Whose value a line states (issue 45) with the real bundled model and the shipped fit: a line
stating *another* person's value of the asked attribute is a near miss, not an answer; the
asked person's own value is one. Before the fact layer's evidence, Ann's home answered
"Where does Tom live?" at 0.57.
"""

from __future__ import annotations

import pytest

from remem import Config, Memory

pytestmark = pytest.mark.slow

T = 1_800_000_000.0
LINES = (
    ("Tom", "I work at Initech as a tester."),  # m0
    ("Ann", "I live in Berlin, near the river."),  # m1
    ("Tom", "The weather has been lovely all week."),  # m2
    ("Ann", "I moved there two years ago."),  # m3
    ("Tom", "Anyone up for a board game night?"),  # m4
    ("Ann", "My cat is called Pixel."),  # m5
    ("Tom", "I drive a red Golf."),  # m6
)


@pytest.fixture(scope="module")
def chat(tmp_path_factory):
    db = tmp_path_factory.mktemp("whose") / "chat.db"
    rows = [
        {
            "id": f"m{i}",
            "session": "s",
            "role": "user",
            "speaker": speaker,
            "text": text,
            "timestamp": T + 60 * i,
        }
        for i, (speaker, text) in enumerate(LINES)
    ]
    with Memory(db, Config.load(env={}, overrides={"indexing.mode": "sync"})) as mem:
        mem.ingest_many(rows, wait=True)
        yield mem


def scores(mem: Memory, question: str) -> dict[str, float]:
    return {h.record.id: h.score for h in mem.search(question, k=5, now=T + 3600).hits}


def test_the_store_holds_the_facts_the_questions_ask_about(chat):
    # read after the acknowledgement, in the background: reading the store's facts at once
    # raced the fill (failed under load, the fill still waiting for the writes to pause)
    assert chat.wait_facts(60)
    held = {(f.subject_name, f.attribute) for f in chat.store.facts()}
    assert {("Tom", "works_at"), ("Ann", "lives_in")} <= held


@pytest.mark.parametrize(
    ("question", "anothers"),
    [("Where does Tom live?", "m1"), ("Where does Ann work?", "m0")],
)
def test_another_persons_value_of_the_asked_attribute_is_no_answer(chat, question, anothers):
    found = scores(chat, question)
    assert all(s < 0.5 for s in found.values()), found
    assert found.get(anothers, 0.0) < 0.35, found


def test_the_asked_persons_own_value_is_an_answer(chat):
    assert scores(chat, "Where does Ann live?")["m1"] >= 0.5
