"""Recognising text that is never worth recalling: greetings, refusals, heartbeats and
meta-talk about memory itself, in English and Chinese.

Only short texts are judged (a long message that opens with "hi" still has content); the
patterns must match the *whole* text once greetings and punctuation around it are stripped.
An assistant's "I don't have any information about …" / "我没有相关记忆" is judged by its first
sentence: it is noise when the rest is at most a short follow-up ("Could you tell me?"), so a
denial that goes on to give content is kept. (memory-lancedb-pro filters the same families.)
"""

from __future__ import annotations

import re
from functools import lru_cache

from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified

MAX_NOISE_CHARS = 80

# Greetings may carry a name ("hi Bob"); acknowledgements may not ("yes Berlin" is an answer).
_EN_GREETING = (
    r"(hi|hello|hey|hiya|yo|howdy|good (morning|afternoon|evening|night)|morning|evening|"
    r"bye|goodbye|see (you|ya)( later| soon| tomorrow)?|(it'?s )?(good|nice|great) to "
    r"(see|hear from) you( too| again)?|how (are|have) you( been| doing)?( today)?|"
    r"what'?s up|long time no see)"
)
_EN_ACK = (
    r"(thanks?( you)?( so much| a lot)?|thx|ty|ok(ay)?|cool|nice|lol|haha+|sure|yes|yeah|yep|"
    r"no|nope|got it|sounds good|great|awesome|np|no problem|you'?re welcome)"
)
_ZH_GREETING = (
    r"(你好|您好|大家好|哈喽|嗨|早上好|早安|晚上好|晚安|午安|在吗|在不在|拜拜|再见|好久不见|"
    r"最近(好吗|怎么样|还好吗))"
)
_ZH_ACK = r"(谢谢|多谢|好的|好|嗯+|哈+|收到|ok|好滴|行|可以|没问题|不客气)"
_P = r"[\s,!.?~，！。？～]*"
# The name a greeting may carry ("hi Bob", "你好，小王"). Noise by role, not by the first
# word: whatever follows a greeting is a name only if it is one word (Chinese: at most three
# characters, not opening with a pronoun, so "我叫王明" is not one) and no question follows
# it; "大家好！周末有人想去爬山吗？" asks something, "hi, tomorrow?" too (issue 45).
_NO_QUESTION = r"(?![\s,!.~，！。～]*[?？])"
_EN_NAME = rf"({_P}[\w'-]{{1,20}}{_NO_QUESTION})?"
_ZH_NAME = (
    rf"({_P}(?![我你他她它咱])([\u4e00-\u9fff]{{1,3}}|[A-Za-z][\w'-]{{0,19}}){_NO_QUESTION})?"
)

_PATTERNS = [
    # greetings and acknowledgements, optionally with a name and punctuation/emoji
    lazy_compile(rf"^((({_EN_GREETING}){_EN_NAME}|{_EN_ACK}){_P})+$", re.I),
    lazy_compile(rf"^((({_ZH_GREETING}){_ZH_NAME}|{_ZH_ACK}){_P})+$", re.I),
    # heartbeats and pings
    lazy_compile(
        r"^\s*(\[?heartbeat\]?|heartbeat_ok|ping|pong|\[ping\]|心跳|HEARTBEAT)\s*[.!]?\s*$", re.I
    ),
    # refusals
    lazy_compile(
        r"^(i'?m sorry|sorry|i apologi[sz]e)?[,. ]*(but )?i (can(no|')t|am unable to|won'?t be able to)"
        r" (help|assist|do|comply|answer)( with)?( that| this)?[^a-z]*$",
        re.I,
    ),
    lazy_compile(
        r"^(抱歉|对不起|不好意思)?[，,]?\s*我(无法|不能|没法)(帮助|帮你|回答|提供|完成)[^，,。]*[。.!！]?$"
    ),
    # meta-talk about memory
    lazy_compile(
        r"^(do|did|can|don'?t) you (still )?(remember|recall)( me| that| this| what i said)?\??$",
        re.I,
    ),
    lazy_compile(r"^(you )?(forgot|forget) (again|everything|it)\??!*$", re.I),
    lazy_compile(
        r"^i (don'?t|do not) (have|recall|remember)( any)? (memory|memories|that)[^a-z]*$", re.I
    ),
    lazy_compile(r"^(你)?(还)?记得(我|吗|我吗|我说的)[吗么嘛]?[？?]*$"),
    lazy_compile(r"^你(怎么)?(又|总是|老是)?忘(了|记)(了)?[吗么]?[？?！!。]*$"),
    lazy_compile(r"^(我)?不记得(了)?[。.!！]*$"),
]


# An assistant that has nothing to say: the first sentence, after an optional apology.
_DENIAL_EN = lazy_compile(
    r"^((i'?m |i am )?(so |very )?sorry|unfortunately|i apologi[sz]e|hmm+|well|oh)?[,.!\s]*"
    r"(but )?("
    r"i (don'?t|do not) have (any |enough )?(information|info|data|memory|memories|records?|"
    r"details|context|knowledge|access)\b"
    r"|i have no (memory|memories|records?|information|info|recollection)\b"
    r"|i (don'?t|do not) (recall|remember) (you|that you|us|ever|any|anything|having)\b"
    r"|i'?m not (sure|certain) what you('re| are)? ?(mean|referring|talking|asking)"
    r"|it (looks|seems) like i (don'?t|do not) have\b"
    r"|i (wasn'?t|was not|couldn'?t|could not|was unable to|am unable to|can'?t|cannot) "
    r"(able to )?find (any|anything)\b"
    r"|no (relevant )?(memories|memory|information|records?) (were )?(found|available)\b)",
    re.I,
)
_DENIAL_ZH = lazy_compile(
    r"^(很抱歉|抱歉|对不起|不好意思|嗯)?[，,\s]*(但是?)?[，,\s]*("
    r"我(并|暂时|目前)?没有(相关|关于.{0,12}的|任何|这方面的)?(的)?(记忆|信息|记录|资料)"
    r"|我(并)?不记得(你|您)(说过|提过|告诉过|讲过|提到)"
    r"|我(不太|不)(清楚|确定|明白|知道)(你|您)(指的|说的|问的|的意思)"
    r"|我(找不到|没找到|没有找到|查不到)(相关|任何)"
    r"|没有(找到)?相关(的)?(记忆|信息|记录))"
)
_FIRST_SENTENCE = lazy_compile(r"^(.*?[.!?。！？])(\s+|$)(.*)$", re.S)
_CONTRAST = lazy_compile(r"\b(but|however)\b|但是|不过|可是", re.I)
# The patterns as one alternation: one match call per candidate instead of eleven (this runs on
# every search candidate; 6 -> 2 us a text). Each keeps its own case rule.
# Built when first matched: reading the patterns' flags compiles them.
_ANY_PATTERN = lazy_compile(
    lambda: "|".join(
        f"(?i:{p.pattern})" if p.flags & re.I else f"(?:{p.pattern})" for p in _PATTERNS
    )
)
MAX_DENIAL_CHARS = 200
MAX_DENIAL_FOLLOW_UP = 80  # chars after the denial: "Could you tell me where you live?"


def is_denial(text: str) -> bool:
    """An assistant saying it has no memory or information: "I don't have any information
    about …", "I don't recall you mentioning …", "我没有相关记忆", "我不记得你说过"."""
    m = _FIRST_SENTENCE.match(text.strip())
    first, rest = (m.group(1), m.group(3)) if m else (text.strip(), "")
    if len(first) > MAX_DENIAL_CHARS or len(rest) > MAX_DENIAL_FOLLOW_UP:
        return False  # cheap exit: this runs on every search candidate
    first = to_simplified(first)
    denial = _DENIAL_EN.match(first) or _DENIAL_ZH.match(first)
    # "…, but the talk is on Friday": it goes on to say something
    return denial is not None and not _CONTRAST.search(first[denial.end() :])


def is_noise(text: str) -> bool:
    """True for greetings, acknowledgements, refusals, heartbeats, memory meta-talk."""
    if len(text) <= CACHED_CHARS:
        return _is_noise_cached(text)
    return _is_noise(text)


# Every search asks about its ~100 candidates, and the same records come back search after
# search (a chat keeps to its topics): the verdict is a pure function of the text.
CACHED_CHARS = 1000


@lru_cache(maxsize=16_384)
def _is_noise_cached(text: str) -> bool:
    return _is_noise(text)


def _is_noise(text: str) -> bool:
    stripped = text.strip()
    if stripped and is_denial(stripped):
        return True
    if not stripped or len(stripped) > MAX_NOISE_CHARS:
        return False
    # emoji and symbols only
    if not re.search(r"[\w]", stripped):
        return True
    return _ANY_PATTERN.match(stripped) is not None
