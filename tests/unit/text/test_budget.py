"""The query tail the vector channel embeds (search.query_embed_tokens)."""

from __future__ import annotations

import pytest

from remem.text.budget import embedded_query, estimate_tokens, tail_within


def test_estimates_one_token_per_cjk_character_and_per_four_other_characters():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 5) == 5
    assert estimate_tokens("我们开会") == 4
    assert estimate_tokens("こんにちは") == 5 and estimate_tokens("안녕하세요") == 5
    assert estimate_tokens("会议 at 3pm") == 2 + 7 / 4


@pytest.mark.parametrize("budget", [0, -1, 1000])
def test_a_text_that_fits_or_no_budget_is_unchanged(budget):
    text = "first message\nsecond message"
    assert tail_within(text, budget) == text


def test_keeps_whole_newest_messages_that_fit():
    text = "an old message about something else entirely\nthe middle one\nwhere is the hut?"
    assert tail_within(text, 9) == "the middle one\nwhere is the hut?"
    assert tail_within(text, 5) == "where is the hut?"


def test_a_newest_message_longer_than_the_budget_keeps_its_end_from_a_word_start():
    text = "please remember that I moved from Porto to Lisbon last month"
    assert tail_within(text, 5) == "to Lisbon last month"  # 20 characters: exactly 5
    tail = tail_within(text, 3)
    assert text.endswith(tail) and estimate_tokens(tail) <= 3
    assert tail == "last month"  # not "n last month"


def test_chinese_tail_counts_characters():
    text = "早上好大家\n我们下周三在杭州开会，记得带上电脑"
    assert tail_within(text, 17) == "我们下周三在杭州开会，记得带上电脑"
    assert tail_within(text, 6) == "记得带上电脑"


CHAT = "\n".join(
    [
        "Mia: I finally booked the pottery class for Thursday evenings at the studio downtown",
        "Assistant: That sounds lovely, is it a beginner course or are you continuing from last year",
        "Mia: beginner, I have never touched a wheel before honestly",
        "Assistant: Fun! Anything else on your mind today?",
        "Mia: haha not really, just tired, long week",
    ]
)


def test_a_chat_is_embedded_by_its_own_budget():
    # the note answering a chat is about any of its messages: the pottery class is in the
    # oldest, and a question's 32-token tail kept only the small talk
    assert "pottery" not in tail_within(CHAT, 32)
    assert embedded_query(CHAT, 32, 128) == CHAT
    assert embedded_query(CHAT, 32, 0) == CHAT
    assert embedded_query(CHAT, 32, 32) == tail_within(CHAT, 32)
    assert embedded_query(CHAT, 32, 24) == tail_within(CHAT, 24)


def test_a_question_after_cross_talk_keeps_the_question_budget():
    # lines without speaker labels are no chat: the question at the end is what is asked
    query = "\n".join(CHAT.replace("Mia: ", "").replace("Assistant: ", "").split("\n"))
    assert embedded_query(query, 32, 128) == tail_within(query, 32)
    assert "pottery" not in embedded_query(query, 32, 128)
