"""Does an utterance assert something? The one judge capture and supersession ask.

Only an assertion may become a memory or close one. Questions (with or without their mark),
uncertainty ("I forgot where I live", "我住在北京吧"), hypotheticals, quotes and reports of
others' words, sarcasm and examples mention a fact without stating it: "I live in Madrid or
Lisbon" must neither be stored nor replace "I moved to Lisbon last month." (issue 48).

Plain patterns over one sentence, in English and Chinese (Traditional and Cantonese are folded
to Simplified first); the question, hypothetical and quote detectors live in
``remem.text.statements`` (they also serve Japanese and Korean), the rest here. Each rule names
the look-alike statements it must let through next to it.
"""

from __future__ import annotations

import re

from remem.text.normalize import to_simplified
from remem.text.statements import is_hypothetical, is_question, is_quote

# ---------------------------------------------------------------- questions the forms miss
_EN_QUESTION_MORE = re.compile(
    # a tag question: "I live in Porto, don't I" (not "Do I? No." — that is a mark anyway)
    r",\s*(do|does|did|am|is|are|was|were|have|has|can|will|would)(n'?t)?\s+"
    r"(i|we|you|it|he|she|they)(\s+not)?\s*[?.!]*\s*$"
    # a wh-word in place at the end: "my favourite food is what again", "I live where" (not
    # "Lisbon is where I live now", "This is what I do")
    r"|\b(is|are|was|were|live|lives|work|works|am|do|did)\s+(what|where|who|which|when)"
    r"(\s+(again|now|exactly|then))?\s*[?.!]*\s*$"
    r"|\b(what|where|who|which|when|how)\s+again\b"
    r"|^(guess|remind me|tell me|show me|let me know)\b",
    re.I,
)
# 来着 ("what was it again"), 哪 / 啥 after a verb ("我住哪"), 吗 / 呢 with a wh-word (statements.py)
_ZH_QUESTION_MORE = re.compile(r"来着|提醒我|告诉我(一下)?我的")

# ---------------------------------------------------------------- uncertainty
_EN_UNCERTAIN = re.compile(
    r"\b(forgot|forget|forgotten|can'?t remember|cannot remember|don'?t remember|"
    r"can'?t recall|don'?t recall|not sure|unsure|not certain|uncertain|no idea|no clue|"
    r"(don'?t|do not|doesn'?t) know|who knows|not decided|undecided|haven'?t decided|"
    r"maybe|perhaps|possibly|probably|might|i guess|i suppose|i think|i believe|i reckon|"
    r"fingers crossed|considering|thinking (about|of)|not yet decided)\b"
    # "may" as a hedge, not the month: "I may buy a Tesla" (not "in May")
    r"|(?-i:\bmay\b)"
    # named alternatives: "Madrid or Lisbon", "Globex or Initech" (not "tea or coffee is fine")
    r"|\b(?-i:[A-Z][\w'-]+)\s+or\s+(?-i:[A-Z][\w'-]+)\b|\beither\b.+\bor\b|\bor not\b",
    re.I,
)
# 吧 at the end is a hedge ("我住在北京吧"); 不知道 / 不确定 / 记不清 / 可能 / 也许 / 好像 / 大概 /
# 说不定 / 未定 (not "可能性" as a noun in "我研究可能性理论" — rare enough to accept).
_ZH_UNCERTAIN = re.compile(
    r"(不知道|不清楚|不确定|不一定|记不清|记不得|想不起|忘了|忘记了|可能|也许|或许|大概|好像|似乎|"
    r"说不定|估计|应该会|应该是|还没定|没定|未决定|未定|没想好|考虑|犹豫|或者)"
    r"|吧[。.!！~～]*$"
)

# ---------------------------------------------------------------- sarcasm
_EN_SARCASM = re.compile(
    r"(^|\s)/s\b|\byeah,? right\b|\bobviously\b|^(sure|oh sure|oh totally|totally|as if)\b,?"
    r"\s*(and\b|i\b|i'm\b)|\bas if\b|\byea+h+,? sure\b",
    re.I,
)
_ZH_SARCASM = re.compile(
    r"/s\b|呵呵|行了吧|^对对对|^是是是|^是啊.*呢|[，,]\s*(哈哈+|呵呵+)[。!！]*$"
)

# ---------------------------------------------------------------- examples and play
_EN_EXAMPLE = re.compile(
    r"\b(for example|for instance|e\.g\.|example(?!\.\w)|sample sentence|something like|"
    r"pretend|let'?s say|role-?play|to test it|as a test)\b|\b(say|type|write)\s+[\"“']",
    re.I,
)
_ZH_EXAMPLE = re.compile(r"(比如|例如|举个例子|举例|例句|示例|假装|测试一下|试试看|试一下)")


def _zh(text: str) -> str:
    return to_simplified(text)


def not_a_statement(text: str) -> str | None:
    """Why the sentence asserts nothing about anyone (None when it asserts something)."""
    stripped = text.strip()
    zh = _zh(stripped)
    if is_question(stripped) or _EN_QUESTION_MORE.search(stripped) or _ZH_QUESTION_MORE.search(zh):
        return "a question"
    if is_hypothetical(stripped):
        return "a hypothetical"
    if is_quote(stripped):
        return "a quote or someone else's words"
    if _EN_SARCASM.search(stripped) or _ZH_SARCASM.search(zh):
        return "sarcasm"
    if _EN_EXAMPLE.search(stripped) or _ZH_EXAMPLE.search(zh):
        return "an example"
    if _EN_UNCERTAIN.search(stripped) or _ZH_UNCERTAIN.search(zh):
        return "uncertain (a guess, a hedge or not knowing)"
    return None


def asserts(text: str) -> bool:
    """True when the sentence states something a memory may hold or replace."""
    return not_a_statement(text) is None
