"""Names in a text for the link channel (``remem.text.salient``)."""

from __future__ import annotations

from remem.text.salient import salient_names


def test_salient_names_skip_sentence_openers_and_times():
    text = "Hey Caroline! Thanks. I went to Point Reyes in June, then Sweden 4 years ago."
    assert salient_names(text) == ["Caroline", "Point Reyes", "Sweden"]
    # a sentence's first word alone is no name; a possessive is
    assert salient_names("Since then Scout's bed arrived. Check it.") == ["Scout"]
    assert salient_names("老赵用大疆 Mini 4 Pro 拍的") == ["Mini 4 Pro"]
