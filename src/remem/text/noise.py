"""Recognising text that is never worth recalling: greetings, refusals, heartbeats and
meta-talk about memory itself, in English and Chinese.

Only short texts are judged (a long message that opens with "hi" still has content); the
patterns must match the *whole* text once greetings and punctuation around it are stripped.
"""

from __future__ import annotations

import re

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
    r"(你好|您好|大家好|哈喽|嗨|早上好|早安|晚上好|晚安|午安|在吗|在不在|拜拜|再见|好久不见)"
)
_ZH_ACK = r"(谢谢|多谢|好的|好|嗯+|哈+|收到|ok|好滴|行|可以|没问题|不客气)"
_NAME = r"([\w\u4e00-\u9fff]{1,20})?"
_P = r"[\s,!.?~，！。？～]*"

_PATTERNS = [
    # greetings and acknowledgements, optionally with a name and punctuation/emoji
    re.compile(rf"^((({_EN_GREETING}){_P}{_NAME}|{_EN_ACK}){_P})+$", re.I),
    re.compile(rf"^((({_ZH_GREETING}){_P}{_NAME}|{_ZH_ACK}){_P})+$", re.I),
    # heartbeats and pings
    re.compile(
        r"^\s*(\[?heartbeat\]?|heartbeat_ok|ping|pong|\[ping\]|心跳|HEARTBEAT)\s*[.!]?\s*$", re.I
    ),
    # refusals
    re.compile(
        r"^(i'?m sorry|sorry|i apologi[sz]e)?[,. ]*(but )?i (can(no|')t|am unable to|won'?t be able to)"
        r" (help|assist|do|comply|answer)( with)?( that| this)?[^a-z]*$",
        re.I,
    ),
    re.compile(
        r"^(抱歉|对不起|不好意思)?[，,]?\s*我(无法|不能|没法)(帮助|帮你|回答|提供|完成)[^，,。]*[。.!！]?$"
    ),
    # meta-talk about memory
    re.compile(
        r"^(do|did|can|don'?t) you (still )?(remember|recall)( me| that| this| what i said)?\??$",
        re.I,
    ),
    re.compile(r"^(you )?(forgot|forget) (again|everything|it)\??!*$", re.I),
    re.compile(
        r"^i (don'?t|do not) (have|recall|remember)( any)? (memory|memories|that)[^a-z]*$", re.I
    ),
    re.compile(r"^(你)?(还)?记得(我|吗|我吗|我说的)[吗么嘛]?[？?]*$"),
    re.compile(r"^你(怎么)?(又|总是|老是)?忘(了|记)(了)?[吗么]?[？?！!。]*$"),
    re.compile(r"^(我)?不记得(了)?[。.!！]*$"),
]


def is_noise(text: str) -> bool:
    """True for greetings, acknowledgements, refusals, heartbeats, memory meta-talk."""
    stripped = text.strip()
    if not stripped or len(stripped) > MAX_NOISE_CHARS:
        return False
    # emoji and symbols only
    if not re.search(r"[\w]", stripped):
        return True
    return any(p.match(stripped) for p in _PATTERNS)
