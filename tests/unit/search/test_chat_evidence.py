"""What a chat by people the store knows says, held by a hit (search/chat_evidence.py): the
answerability input that tells a known person's related chat from an unrelated one."""

from __future__ import annotations

from helpers import memory_store_with
from remem.config import Config
from remem.search.answerability import FEATURES, QUESTION_FEATURES, feature_rows
from remem.search.candidates import Candidate
from remem.text.tokenize import Tokenizer
from unit.search.contexts import stage_context

LINES = (
    "Lily is training for the Bath half marathon in March",  # r0: what the chat asks about
    "Lily drives a grey Skoda estate",  # r1: Lily, nothing the chat says
)
CHAT = (
    "Lily: my knee is sore after the long run\n"
    "Assistant: Sorry about that. Was it far?\n"
    "Lily: 16 km. Should I worry, given the marathon in March?"
)


def rows_for(query: str, own_chat: bool) -> dict[int, dict[str, float | None]]:
    store, rowids = memory_store_with(*LINES, indexed=True)
    cands = []
    for i, rowid in enumerate(rowids):
        c = Candidate(rowid=rowid, record=store.get(f"r{i}"), score=1.0 - i / 10)
        c.set("relevance", 0.5)
        cands.append(c)
    ctx = stage_context(
        query=query, now=100.0, k=10, config=Config(), store=store, tokenizer=Tokenizer()
    )
    ctx.understood.named = {"Lily": "lily"}
    ctx.verdict.own_chat = own_chat  # the relevance stage's reading of the chat's people
    rows = feature_rows(cands, ctx)
    return {i: rows[rowid] for i, rowid in enumerate(rowids)}


def test_a_hit_holding_what_a_message_says_scores_above_one_holding_only_the_speakers_name():
    assert "chat_words" in FEATURES and QUESTION_FEATURES["q_chat_words"] == "chat_words"
    rows = rows_for(CHAT, own_chat=True)
    assert rows[0]["chat_words"] > 0.3  # "marathon", "March" of the newest message
    assert rows[1]["chat_words"] == 0.0  # Lily's name and the assistant's label count for nothing


def test_only_a_chat_by_people_the_store_knows_is_read():
    assert all(r["chat_words"] is None for r in rows_for(CHAT, own_chat=False).values())
    question = "When is Lily's marathon?"
    assert all(r["chat_words"] is None for r in rows_for(question, own_chat=False).values())
