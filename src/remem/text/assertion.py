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

from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified
from remem.text.phrases import phrases
from remem.text.statements import is_hypothetical, is_question, is_quote

# ---------------------------------------------------------------- questions the forms miss
_QUESTION_MORE = phrases(
    # a tag question: "I live in Porto, don't I" (not "Do I? No." — that is a mark anyway)
    r",\s*(do|does|did|am|is|are|was|were|have|has|can|will|would)(n'?t)?\s+"
    r"(i|we|you|it|he|she|they)(\s+not)?\s*[?.!]*\s*$"
    # a wh-word in place at the end: "my favourite food is what again", "I live where" (not
    # "Lisbon is where I live now", "This is what I do")
    r"|\b(is|are|was|were|live|lives|work|works|am|do|did)\s+(what|where|who|which|when)"
    r"(\s+(again|now|exactly|then))?\s*[?.!]*\s*$"
    r"|\b(what|where|who|which|when|how)\s+again\b"
    r"|^(guess|remind me|tell me|show me|let me know)\b",
    # 来着 ("what was it again"), 哪 / 啥 after a verb ("我住哪"), 吗 / 呢 with a wh-word
    # (statements.py)
    r"来着|提醒我|告诉我(一下)?我的",
)

# ---------------------------------------------------------------- uncertainty
_UNCERTAIN = phrases(
    r"\b(forgot|forget|forgotten|can'?t remember|cannot remember|don'?t remember|"
    r"can'?t recall|don'?t recall|not sure|unsure|not certain|uncertain|no idea|no clue|"
    r"(don'?t|do not|doesn'?t) know|who knows|not decided|undecided|haven'?t decided|"
    r"maybe|perhaps|possibly|probably|might|i guess|i suppose|i think|i believe|i reckon|"
    r"fingers crossed|considering|thinking (about|of)|not yet decided)\b"
    # "may" as a hedge, not the month: "I may buy a Tesla" (not "in May")
    r"|(?-i:\bmay\b)"
    # named alternatives: "Madrid or Lisbon", "Globex or Initech" (not "tea or coffee is fine")
    r"|\b(?-i:[A-Z][\w'-]+)\s+or\s+(?-i:[A-Z][\w'-]+)\b|\beither\b.+\bor\b|\bor not\b",
    # 吧 at the end is a hedge ("我住在北京吧"); 不知道 / 不确定 / 记不清 / 可能 / 也许 / 好像 /
    # 大概 / 说不定 / 未定 (not "可能性" as a noun in "我研究可能性理论" — rare enough to accept).
    r"(不知道|不清楚|不确定|不一定|记不清|记不得|想不起|忘了|忘记了|可能|也许|或许|大概|好像|似乎|"
    r"说不定|估计|应该会|应该是|还没定|没定|未决定|未定|没想好|考虑|犹豫|或者)"
    r"|吧[。.!！~～]*$",
)

# ---------------------------------------------------------------- sarcasm
_SARCASM = phrases(
    r"(^|\s)/s\b|\byeah,? right\b|\bobviously\b|^(sure|oh sure|oh totally|totally|as if)\b,?"
    r"\s*(and\b|i\b|i'm\b)|\bas if\b|\byea+h+,? sure\b",
    r"/s\b|呵呵|行了吧|^对对对|^是是是|^是啊.*呢|[，,]\s*(哈哈+|呵呵+)[。!！]*$",
)

# ---------------------------------------------------------------- examples and play
_EXAMPLE = phrases(
    r"\b(for example|for instance|e\.g\.|example(?!\.\w)|sample sentence|something like|"
    r"pretend|let'?s say|role-?play|to test it|as a test)\b|\b(say|type|write)\s+[\"“']",
    r"(比如|例如|举个例子|举例|例句|示例|假装|测试一下|试试看|试一下)",
)
# what the sentence is, when it is one of these; tried in this order, after the question,
# hypothetical and quote detectors
_NOT_ASSERTING = (
    ("sarcasm", _SARCASM),
    ("an example", _EXAMPLE),
    ("uncertain (a guess, a hedge or not knowing)", _UNCERTAIN),
)


def _zh(text: str) -> str:
    return to_simplified(text)


def not_a_statement(text: str) -> str | None:
    """Why the sentence asserts nothing about anyone (None when it asserts something)."""
    stripped = text.strip()
    zh = _zh(stripped)
    if is_question(stripped) or _QUESTION_MORE.search(stripped, zh):
        return "a question"
    if is_hypothetical(stripped):
        return "a hypothetical"
    if is_quote(stripped):
        return "a quote or someone else's words"
    return next((why for why, kind in _NOT_ASSERTING if kind.search(stripped, zh)), None)


def asserts(text: str) -> bool:
    """True when the sentence states something a memory may hold or replace."""
    return not_a_statement(text) is None


# ---------------------------------------------------------------- clause by clause
# A hedge or a condition in one clause governs that clause, not the whole sentence: "If you
# need me, my mobile is 07700 900 123" states the number; "我可能晚点到，我已经搬到上海了"
# states the move. ``asserted_part`` keeps the clauses that still state something.
_CLAUSE_CUT = lazy_compile(r"\s*[,，、:：]\s*")
# a consequent that depends on its condition: "..., I'd live in Montmartre", "..., 我就住静安"
_CONSEQUENCE = phrases(
    r"\b(would|will|could|might|should|shall|then)\b|'d\b|'ll\b", r"[就会便将]|那么"
)
# a condition about the speaker ("If I move to Paris, ...") makes the rest a supposition; one
# about someone else ("If you need me", "如果你需要", "if he can't get in") leaves it a fact
_SPEAKER = phrases(r"\b(i|i'm|i've|i'd|my|we|we're|our)\b", r"我")  # not "if you need me"
# an alternative in a clause of its own: "I live in Madrid, or Lisbon", "我住北京，或者上海"
_ALTERNATIVE = lazy_compile(r"^(or|either|或者|还是|或是)\b|^(或者|还是|或是)", re.I)
# what is left of a hedge clause that says nothing else ("I think", "at least I think so")
_EN_FILLER = frozenset(
    [
        "i",
        "i'm",
        "so",
        "but",
        "and",
        "not",
        "just",
        "well",
        "oh",
        "um",
        "at",
        "least",
        "yet",
        "or",
        "it",
        "is",
        "that's",
        "was",
        "sure",
    ]
)
_ZH_FILLER = lazy_compile(r"[吧啊呢呀哦嗯我的了也还是吗哈]")


def _hedge_only(clause: str) -> bool:
    """Whether an uncertain clause is nothing but its hedge ("maybe", "I think", "可能吧"):
    then it governs the whole sentence ("I live in Paris, I think")."""
    zh = _zh(clause)
    if re.search(r"[\u4e00-\u9fff]", zh):
        rest = _ZH_FILLER.sub("", _UNCERTAIN.chinese.sub("", zh))
        return len(re.findall(r"[\u4e00-\u9fffA-Za-z0-9]", rest)) < 2
    rest = _UNCERTAIN.english.sub(" ", clause)
    words = [w for w in re.findall(r"[A-Za-z']+", rest) if w.casefold() not in _EN_FILLER]
    return len(words) < 2


def _condition_about_others(clause: str) -> bool:
    return not _SPEAKER.search(clause)


def asserted_part(sentence: str) -> str | None:
    """The part of a sentence that asserts: the whole sentence when it asserts as a whole;
    when only a hedge or a condition stops it, the clauses (cut at commas) that state
    something on their own, joined; None when nothing in it asserts.

    - A question, a quote, sarcasm or an example anywhere stops the whole sentence, as does a
      clause that is only a hedge ("I live in Paris, I think", "..., 可能吧") or an
      alternative ("..., or Lisbon").
    - An uncertain clause with content of its own ("我可能晚点到") stops only itself.
    - A condition ("If you need me", "如果你需要") stops itself, and the other clauses when it
      is about the speaker ("If I move to Paris, ...") or they depend on it ("..., I'll",
      "..., 我就").
    """
    whole = not_a_statement(sentence)
    if whole is None:
        return sentence.strip()
    if whole not in ("a hypothetical", "uncertain (a guess, a hedge or not knowing)"):
        return None
    clauses = [c for c in _CLAUSE_CUT.split(sentence.strip()) if c]
    conditions = [c for c in clauses if is_hypothetical(c)]
    if any(not _condition_about_others(c) for c in conditions):
        return None
    kept = []
    for clause in clauses:
        if clause in conditions:
            continue
        if _ALTERNATIVE.match(clause):
            return None
        why = not_a_statement(clause)
        if why is not None and why.startswith("uncertain") and not _hedge_only(clause):
            continue
        if why is not None:
            return None
        consequence = _CONSEQUENCE.search(clause)
        if conditions and consequence:
            return None
        kept.append(clause)
    if not kept or is_hypothetical(kept[0]):
        return None
    joiner = "，" if re.search(r"[\u4e00-\u9fff]", sentence) else ", "
    return joiner.join(kept)
