"""The reply inputs of the answerability score (search/reply_evidence.py): the turn before a hit
asked what the question asks, read in the answerability stage's one store read."""

from __future__ import annotations

from typing import Any

import pytest

from helpers import memory_store_with
from remem.config import Config
from remem.search.answerability import FEATURES, evidence_for, feature_rows
from remem.search.candidates import Candidate
from remem.search.reply_evidence import REPLY_INPUTS, asks
from remem.text.tokenize import Tokenizer
from unit.search.contexts import stage_context

QUESTION = "Which book is the club reading for May?"
CHAT = (  # (speaker, text, session): one session of the book club, then a line with none
    ("Marta", "Which book is the club reading for May?", "club"),  # r0
    ("Grace", "Circe, I think.", "club"),  # r1: the answer, a reply
    ("Grace", "The shop had two copies left.", "club"),  # r2
    ("Grace", "Is the shop open on Sunday?", "club"),  # r3: Grace asks
    ("Grace", "Yes, until four.", "club"),  # r4: Grace answers herself
    ("Ines", "Circe, I think.", None),  # r5: the same words, no session
)


def store_with(lines: tuple[tuple[str, str, str | None], ...]) -> tuple[Any, list[int]]:
    return memory_store_with(
        *(text for _, text, _ in lines),
        indexed=True,
        extra=[{"session": session, "speaker_label": speaker} for speaker, _, session in lines],
    )


def rows_for(
    relevance: dict[int, float], store_at_hand: bool = True
) -> dict[int, dict[str, float | None]]:
    """Each line's inputs (by index) when the lines of ``relevance`` are the candidates."""
    store, rowids = store_with(CHAT)
    cands = []
    for i, rel in relevance.items():
        c = Candidate(rowid=rowids[i], record=store.get(f"r{i}"), score=rel)
        c.relevance = rel
        cands.append(c)
    ctx = stage_context(
        query=QUESTION,
        now=100.0,
        k=10,
        config=Config(),
        store=store if store_at_hand else None,
        tokenizer=Tokenizer(),
    )
    rows = feature_rows(cands, ctx)
    return {i: rows[rowids[i]] for i in relevance}


def test_a_line_asks_by_a_question_mark_or_a_chinese_particle_at_its_end():
    assert asks("What are we reading for May?")
    assert asks("你明天来吗")
    assert asks("周末去哪儿？好的")
    assert asks("他会来吗。")  # the particle before a closing full stop
    assert not asks("Circe, I think.")
    assert not asks("吗是一个字，不对")  # the particle, but not at the end


def test_the_reply_inputs_are_inputs_of_the_score():
    assert set(REPLY_INPUTS) <= set(FEATURES)


def test_a_reply_to_another_speakers_question_sees_the_question():
    rows = rows_for({0: 0.8, 1: 0.3, 2: 0.2})
    reply = rows[1]
    assert reply["prev_asks"] == 1.0  # Marta asked, Grace answers
    assert reply["reply_lift"] == pytest.approx(0.5)  # the question's relevance over the reply's
    assert reply["reply_subject"] > 0.5  # "book", "club", "reading", "May": the question's words
    assert reply["prev_relevance"] == pytest.approx(0.8)
    # one line after the question: the question is still the turn it may reply to
    after = rows[2]
    assert after["prev_asks"] == 0.0 and after["reply_lift"] == pytest.approx(0.6)


def test_a_speakers_own_question_is_not_what_their_next_line_answers():
    rows = rows_for({3: 0.4, 4: 0.3})
    assert rows[4]["prev_asks"] == 0.0  # Grace asked, Grace answers
    assert rows[4]["reply_lift"] == 0.0 and rows[4]["reply_subject"] == 0.0


def test_a_sessions_first_turn_answers_nothing_before_it():
    first = rows_for({0: 0.8, 1: 0.3})[0]
    assert {name: first[name] for name in ("prev_asks", "reply_subject", "reply_lift")} == {
        "prev_asks": 0.0,
        "reply_subject": 0.0,
        "reply_lift": 0.0,
    }


def test_a_hit_without_a_session_or_a_search_without_a_store_has_no_reply_inputs():
    rows = rows_for({0: 0.8, 5: 0.3})
    assert all(rows[5][name] is None for name in REPLY_INPUTS)  # counts as the fit's mean
    unread = rows_for({0: 0.8, 1: 0.3}, store_at_hand=False)
    assert all(unread[1][name] is None for name in REPLY_INPUTS)


def test_one_store_read_gives_the_neighbours_one_line_each_side_and_two_turns_before():
    store, rowids = store_with(CHAT)
    c = Candidate(rowid=rowids[2], record=store.get("r2"), score=0.5)
    ctx = stage_context(
        query=QUESTION, now=100.0, k=10, config=Config(), store=store, tokenizer=Tokenizer()
    )
    reads = []
    read = store.neighbours
    store.neighbours = lambda *a: reads.append(a) or read(*a)  # type: ignore[method-assign]
    ev = evidence_for([c], ctx, [c])
    assert len(reads) == 1  # one round trip for both
    assert ev.near_ids[c.rowid] == ["r1", "r3"]  # the neighbours' inputs read one each side
    assert ev.earlier is not None and [r.id for r in ev.earlier[c.rowid]] == ["r1", "r0"]
