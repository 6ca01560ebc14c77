"""text/dialogue.py: a query that is the chat so far, message by message."""

from __future__ import annotations

from remem.text.dialogue import dialogue_messages


def test_a_chat_is_its_messages_without_their_speaker_labels():
    chat = "Lily: morning!\nAssistant: Hi there\n\nLily: what do I usually get?"
    assert dialogue_messages(chat) == ["morning!", "Hi there", "what do I usually get?"]
    assert dialogue_messages("小美：早上好\n助手：早！\n小美：我平时点什么") == [
        "早上好",
        "早！",
        "我平时点什么",
    ]
    # a line without a label is a message of its own
    assert dialogue_messages("Tom: look\nsee https://x.y/z\nAnna: ok") == [
        "look",
        "see https://x.y/z",
        "ok",
    ]


def test_anything_else_is_no_chat():
    assert dialogue_messages("What did Lily order: tea or coffee?") == []
    assert dialogue_messages("first line\nsecond line") == []
    assert dialogue_messages("Note: one label\nand a sentence that goes on") == []
    # a sentence with a colon is no speaker label
    assert (
        dialogue_messages(
            "The plan for the trip we made last year: go\nThe list of things we need: bread"
        )
        == []
    )
