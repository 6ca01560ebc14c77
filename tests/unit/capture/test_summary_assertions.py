"""An extractive session summary ranks what was stated above what was only asked, guessed or
supposed (issue 48 point 3): a hedge must not push the real fact out of the summary."""

from __future__ import annotations

from remem.capture.summary import MAX_SENTENCES, extractive


def test_a_statement_outranks_longer_questions_and_hedges():
    hedges = [
        "I live in Madrid or Lisbon, one of the two, I honestly cannot say for sure.",
        "I work at Globex or Initech, I keep mixing the two companies up these days.",
        "I forgot where I live, I moved so many times in the last few years honestly.",
        "I'm not sure I like jazz as much as I used to when I was still at school.",
        "Maybe I prefer tea to coffee now, it is hard to say after the long holiday.",
        "I guess I love Porto more than Lisbon, though I could not tell you why exactly.",
    ]
    assert len(hedges) > MAX_SENTENCES
    summary = extractive([{"text": " ".join(hedges) + " I live in Lisbon now."}])
    assert "I live in Lisbon now." in summary.split(" / ")
