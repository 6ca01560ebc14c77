"""How much of a long text an embedding model is given, in model tokens (estimated).

A query embeds in time that grows with its length (e5-small on 2 cores: ~15 ms for a short
question, seconds for a 4000-character chat turn, which is also split into pieces whose
vectors are averaged until the question drowns in them). The chat path's query is the turn's
inputs, oldest first, so the newest text is at the end: the vector channel embeds the *tail*
that fits a token budget, and the lexical channel still matches the whole query.

Tokens are estimated without the model's tokenizer (the same for every provider): one per
CJK character (a multilingual sentencepiece vocabulary splits Chinese into one- or two-character
pieces) and one per four other characters (English averages four to five).
"""

from __future__ import annotations

from remem.text.dialogue import dialogue_messages
from remem.text.scripts import CJK

CHARS_PER_TOKEN = 4  # non-CJK text


def estimate_tokens(text: str) -> float:
    cjk = len(CJK.findall(text))
    return cjk + (len(text) - cjk) / CHARS_PER_TOKEN


def tail_within(text: str, budget: int) -> str:
    """The end of ``text`` that fits ``budget`` estimated tokens: whole lines (messages) from
    the last one back while they fit, else the last line's own tail, cut at a word break
    where there is one. ``budget`` <= 0 or a text that fits: the text unchanged."""
    if budget <= 0 or estimate_tokens(text) <= budget:
        return text
    kept: list[str] = []
    used = 0.0
    for line in reversed(text.rstrip("\n").split("\n")):
        cost = estimate_tokens(line) + 1 / CHARS_PER_TOKEN  # the newline
        if used + cost > budget:
            if not kept:
                kept.append(_line_tail(line, budget))
            break
        kept.append(line)
        used += cost
    return "\n".join(reversed(kept)).strip()


def _line_tail(line: str, budget: int) -> str:
    start = len(line)
    used = 0.0
    while start > 0:
        cost = 1.0 if CJK.match(line[start - 1]) else 1 / CHARS_PER_TOKEN
        if used + cost > budget:
            break
        used += cost
        start -= 1
    if start > 0 and not line[start - 1].isspace() and " " in line[start:]:
        start = line.index(" ", start) + 1  # do not begin mid-word
    return line[start:]


def embedded_query(query: str, budget: int, chat_budget: int) -> str:
    """What the vector channel embeds of a query: its last ``budget`` tokens, or the last
    ``chat_budget`` of a query that is the chat so far (``dialogue_messages``). A question
    after cross-talk is answered by its last line (its tail ranks best: remem-bench's
    long-queries-*.json); a chat's note answers any of its messages, and its newest is often
    small talk ("haha same here, anyway"): embedded by its tail, a chat's answer scored under
    every relevance floor (dialogue_notes)."""
    return tail_within(query, chat_budget if dialogue_messages(query) else budget)
