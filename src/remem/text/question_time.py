"""Which time a question asks about: the present, the past, or none said.

"Where does Tom live now?" asks for what is true now; "Where did Tom live before he moved?" for
what was true earlier; "Where does Tom live?" says neither, and recall then prefers what is
true now (``search/currency.py``). English and Chinese (Traditional folded to Simplified).

``question_time`` only reads tense words; windows of time ("last week", 上个月) are
``text/timeexpr.py``'s. A question that names both ("where did he live before he moved to where
he lives now?") asks about the past: the past word is the more specific of the two.
"""

from __future__ import annotations

import re
from typing import Literal

from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified

QuestionTime = Literal["present", "past"]

_EN_PRESENT = lazy_compile(
    r"\b(now|right now|nowadays|currently|current|presently|at present|these days|"
    r"at the moment|still|any ?more|as of (now|today)|lately|recently)\b",
    re.I,
)
_EN_PAST = lazy_compile(
    r"\b(used to|use to|previously|formerly|former|previous|earlier|originally|"
    r"back then|in the past|once lived|before (he|she|they|i|you|we|it)\b|"
    r"before (the|his|her|their|my|your|our) (move|moving|relocation|change|switch)|"
    r"before (moving|relocating|switching|changing|leaving)|"
    # "before Globex", "before the care home": before a thing that replaced the old one, not
    # before a time ("before Friday", "before noon")
    r"before (?!(now|today|tonight|tomorrow|noon|then|it|(the )?(end|start|weekend|deadline)\b|"
    r"(mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|next|this|last|\d))\w|"
    r"(did|was|were|had)\b[^?.!]*\bbefore\s*[?.!]*\s*$|"
    r"(my|his|her|their|your|our|the) old\b|(?<!how )\b\w+'s old\b|original|"
    r"first (booked|planned|scheduled|set|arranged|fixed)|"
    r"when (he|she|they|i|you|we) (first |had )?(joined|started|arrived|came|began)|ex-)",
    re.I,
)
# "how old is Tom": "old" is age, not "his old flat" (only "<possessive> old" counts above)

# 还…吗 / 还在 / 还住: "still"; not 还是 ("or": 他住在北京还是上海)
_ZH_PRESENT = lazy_compile(
    r"现在|目前|如今|眼下|当前|最近|近来|这些天|这阵子|这段时间|此刻|至今|"
    r"还(?!是)[^。？?！!]{0,12}[吗么嘛][？?]?\s*$|还(?:在|住|待|呆|做|当|干|养|喜欢|有)"
)
_ZH_PAST = lazy_compile(
    r"以前|之前|原来|原先|原定|原本|原计划|从前|先前|早先|当初|曾经|以往|此前|旧|当时|"
    r"刚来的时候|刚开始的时候|刚入职|"
    # 过去 as "in the past", not the verb "go over" (过去找他)
    r"^过去|过去(?:的|几|一|两|三|那|住|在|曾|是)"
)


def _asks_both(zh: str) -> bool:
    """Two questions in one: a past clause and a present clause, cut by a comma ("小明之前住
    哪里，现在住哪里？", "Where did she live before, and where now?"): both values are asked."""
    clauses = [c for c in re.split(r"[,，;；]", zh) if c.strip()]
    past = [i for i, c in enumerate(clauses) if _EN_PAST.search(c) or _ZH_PAST.search(c)]
    now = [i for i, c in enumerate(clauses) if _EN_PRESENT.search(c) or _ZH_PRESENT.search(c)]
    return bool(past and now and set(past).isdisjoint(now))


def question_time(question: str) -> QuestionTime | None:
    """ "present", "past", or None when the question names no time of its own (or asks
    about both, in two clauses)."""
    zh = to_simplified(question)
    if _asks_both(zh):
        return None
    if _EN_PAST.search(question) or _ZH_PAST.search(zh):
        return "past"
    if _EN_PRESENT.search(question) or _ZH_PRESENT.search(zh):
        return "present"
    return None
