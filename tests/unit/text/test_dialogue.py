"""text/dialogue.py: a query that is the chat so far, message by message."""

from __future__ import annotations

from remem.text.dialogue import dialogue_messages, newest_turn


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


def test_the_newest_turn_is_the_last_speakers_messages_in_a_row():
    # two messages in a row: the question is in the first
    chat = "阿坤：你好\n助手：点呀？\n阿坤：你帮我諗下，近唔近？\n阿坤：我妈话今年要见到个女仔"
    assert newest_turn(chat) == "阿坤：你帮我諗下，近唔近？\n阿坤：我妈话今年要见到个女仔"
    # one newest message: that message alone, with its label
    assert newest_turn("Lily: hi\nAssistant: yes?\nLily: what do I get?") == "Lily: what do I get?"
    # a line without a label belongs to the message above it
    assert (
        newest_turn("Tom: hi\nAnna: look at this:\npasted text")
        == "Anna: look at this:\npasted text"
    )
    # not a chat: the last line (a one-line question whole)
    assert newest_turn("I said hi.\nWhat did I order?") == "What did I order?"
    assert newest_turn("How many cats do I have?") == "How many cats do I have?"
