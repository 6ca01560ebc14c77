"""A question put to the other person goes below the reply right after it."""

from __future__ import annotations

import pytest

from remem.config import Config
from remem.search.candidates import Candidate
from remem.search.replies import asks_the_other, reply_after_question
from remem.types import Record
from unit.search.contexts import stage_context

NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("Love the tattoo, did you just get it?", True),
        ("What made you choose that shade?", True),
        ("你去过吗？", True),
        ("您觉得怎么样？", True),
        # it tells something of the asker's own: an answer may be in it
        ("Can you recommend a flash for my Sony A7R IV?", False),
        ("I noticed your pet in the picture. What made you get it?", False),
        ("你觉得我该买哪个？", False),
        ("毕业典礼是 7 月 16 号，你们要来吗？", False),  # a number: it tells the date
        ("毕业典礼是七月十六号，你们要来吗？", False),  # a time, in Chinese numerals
        ("下个月搬到杭州了，你去过吗？", False),  # done (了) before the question
        ("Hey Jon! What made you choose that?", True),
        ("You’re kidding, did you really?", True),  # a curly apostrophe
        # no question, or asked of no one in particular
        ("You did great today.", False),
        ("What are some good restaurants in Tokyo?", False),
        ("", False),
    ],
)
def test_a_question_put_to_the_other_person(text, asks):
    assert asks_the_other(text) is asks


class Timeline:
    """neighbours(after=1) over one session's turns in order."""

    def __init__(self, records):
        self.records = records

    def neighbours(self, anchors, window):
        assert (window.before, window.after) == (0, 1)
        out = {}
        for a in anchors:
            i = self.records.index(a)
            out[a.rowid] = self.records[i + 1 : i + 2]
        return out


def turn(rowid, speaker, text, at=None):
    return Record(
        id=f"r{rowid}",
        text=text,
        created_at=NOW + rowid if at is None else at,
        rowid=rowid,
        kind="message",
        session="s",
        speaker_label=speaker,
    )


def cands_for(records, scores):
    out = []
    for rec, score in zip(records, scores, strict=True):
        c = Candidate(rec.rowid, record=rec)
        c.score = c.fused = score
        out.append(c)
    return out


def run(records, scores, only=None, query="q", k=5, **overrides):
    """The candidates (all the records, or the ``only`` ones) ordered after the stage."""
    config = Config.load(env={}, overrides=overrides)
    ctx = stage_context(query=query, now=NOW, k=k, config=config, store=Timeline(records))
    cands = [c for c in cands_for(records, scores) if only is None or c.rowid in only]
    cands = reply_after_question(cands, ctx)
    return [c.record.id for c in sorted(cands, key=lambda c: -c.score)]


TURNS = [
    turn(1, "Jon", "Love the tattoo, did you just get it?"),
    turn(2, "Gina", "Got it a few years ago, it stands for freedom."),
    turn(3, "Jon", "Nice, that is a great reason."),
]


def test_the_question_goes_just_below_its_reply():
    assert run(TURNS, [0.9, 0.6, 0.3]) == ["r2", "r1", "r3"]
    config = Config.load(env={})
    ctx = stage_context(query="q", now=NOW, k=5, config=config, store=Timeline(TURNS))
    question = reply_after_question(cands_for(TURNS, [0.9, 0.6, 0.3]), ctx)[0]
    assert question.notes == ["reply_after_question: below its reply r2"]  # the trace says
    # what lay between the two moves up; the reply is not lifted over it
    between = [*TURNS, turn(4, "Ann", "Tattoos are a big commitment.")]
    assert run(between, [0.9, 0.5, 0.3, 0.7]) == ["r4", "r2", "r1", "r3"]


def test_off_a_reply_by_the_asker_or_no_reply_among_the_candidates_leave_the_order():
    assert run(TURNS, [0.9, 0.6, 0.3], **{"scoring.reply_after_question": False}) == [
        "r1",
        "r2",
        "r3",
    ]
    going_on = [TURNS[0], turn(2, "Jon", "Looks fresh."), TURNS[2]]
    assert run(going_on, [0.9, 0.6, 0.3]) == ["r1", "r2", "r3"]
    # the reply is not a candidate: nothing to move, nothing added
    assert run(TURNS, [0.9, 0.6, 0.3], only={1, 3}) == ["r1", "r3"]


def test_a_question_that_tells_something_keeps_its_place():
    telling = [turn(1, "Ann", "Can you recommend a flash for my Sony A7R IV?"), *TURNS[1:]]
    assert run(telling, [0.9, 0.6, 0.3]) == ["r1", "r2", "r3"]


def test_a_reply_above_the_question_or_a_day_later_moves_nothing():
    # the question is never raised to its reply
    assert run(TURNS, [0.5, 0.9, 0.3]) == ["r2", "r1", "r3"]
    late = [TURNS[0], turn(2, "Gina", TURNS[1].text, at=NOW + 2 * 86400), TURNS[2]]
    assert run(late, [0.9, 0.6, 0.3]) == ["r1", "r2", "r3"]  # two days later: no reply


def test_a_question_about_what_someone_asked_keeps_the_question_first():
    assert run(TURNS, [0.9, 0.6, 0.3], query="Did Jon ask about the tattoo?")[0] == "r1"
    assert run(TURNS, [0.9, 0.6, 0.3], query="Jon 问了什么？")[0] == "r1"


def test_in_a_chain_of_questions_each_goes_below_its_own_reply():
    chain = [
        turn(1, "Jon", "Did you get a tattoo?"),
        turn(2, "Gina", "Did you notice it?"),  # a question in reply
        turn(3, "Ann", "It means freedom."),
    ]
    assert run(chain, [0.9, 0.6, 0.4]) == ["r3", "r2", "r1"]


def test_a_memory_or_a_turn_without_a_speaker_is_not_moved():
    memory = [TURNS[0], TURNS[1], TURNS[2]]
    memory[0] = Record(
        id="r1",
        text=TURNS[0].text,
        created_at=NOW + 1,
        rowid=1,
        kind="memory",
        session="s",
        speaker_label="Jon",  # a speaker, so only its kind keeps it in place
    )
    assert run(memory, [0.9, 0.6, 0.3]) == ["r1", "r2", "r3"]
    nameless = [turn(1, None, TURNS[0].text), turn(2, None, TURNS[1].text), TURNS[2]]
    assert run(nameless, [0.9, 0.6, 0.3]) == ["r1", "r2", "r3"]
