"""A query that is the chat so far: its messages, each without its speaker label.

The chat path and agents send the last turns of a conversation as the query, one message a
line, most often as "Name: text" (``Lily: remind me what I usually get``). Such a query is not
one question: the words that find the answer are often in an older message (the surgery, the
cafe) while the newest says only "what should I mention?". The relevance stage judges a
candidate against each message as well as against the whole (``search/query_terms.py``).

The speaker label is left out of a message's words there: it says who spoke, not what about,
and it is the same few names on every line. The keyword channel still matches the whole query,
labels included: a name that is rare in the store ranks that person's lines up.
"""

from __future__ import annotations

import re

# "Lily:", "小美：", "Assistant:", "Dr. Chen:": a short label before a colon at a line's start
_LABEL = re.compile(r"^\s*(?P<label>[^:：\n]{1,32}?)\s*[:：]\s*(?P<text>.*)$")
# at most this many words in a label ("Anna Maria Lopez:"), not a sentence with a colon in it
_MAX_LABEL_WORDS = 4


def _label_and_text(line: str) -> tuple[str, str] | None:
    m = _LABEL.match(line)
    if (
        m is None
        or len(m["label"].split()) > _MAX_LABEL_WORDS
        or "://" in line[: m.end("label") + 3]
    ):
        return None
    return m["label"], m["text"]


def dialogue_messages(query: str) -> list[str]:
    """The messages of a query that is a chat so far, oldest first, each without its speaker
    label; [] for anything else. A chat: two or more non-empty lines, at least two of them
    "Name: text"; a line without a label is a message of its own (a paste, a continuation)."""
    lines = [line.strip() for line in query.splitlines() if line.strip()]
    if len(lines) < 2:
        return []
    parsed = [_label_and_text(line) for line in lines]
    if sum(p is not None for p in parsed) < 2:
        return []
    return [p[1] if p is not None else line for p, line in zip(parsed, lines, strict=True)]


def newest_turn(query: str) -> str:
    """What the chat's last speaker says now: their newest message and the ones right before
    it, up to another speaker's line (lines without a label belong to the message above
    them); of anything else, its last line (a one-line question whole). What the turn asks
    is there: a question an assistant put in an older line ("How many pets will they look
    after?") is not the user's, and a user who sends two messages in a row ("你帮我諗下，佢同
    个女仔离得近唔近？" then "我妈话今年过年前一定要见到个女仔") asks in the first and says
    more in the second."""
    lines = [line.strip() for line in query.splitlines() if line.strip()]
    if not dialogue_messages(query):
        return lines[-1] if lines else query
    parsed = [_label_and_text(line) for line in lines]
    last = next((p[0] for p in reversed(parsed) if p is not None), None)
    start = len(lines)
    for i in range(len(lines) - 1, -1, -1):
        if (found := parsed[i]) is not None and found[0] != last:
            break
        start = i
    return "\n".join(lines[start:])


def speaker_labels(query: str) -> list[str]:
    """The distinct speaker labels of a query that is the chat so far, in order of first
    appearance; [] for anything else."""
    if not dialogue_messages(query):
        return []
    found = (_label_and_text(line.strip()) for line in query.splitlines() if line.strip())
    return list(dict.fromkeys(p[0] for p in found if p is not None))
