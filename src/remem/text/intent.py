"""Recognising what kind of question is asked, in English and Chinese, with plain patterns.

Questions that gather facts from several occasions (``is_aggregate``):

"How many concerts did I go to?", "What is the total I spent on …?", "How much more … than …?",
"我一共去了几次…", "两次旅行分别花了多少钱" need every occasion, each usually in its own
session: the best session and the turns around it are not enough. The read pipeline uses this to
keep a place for every session that matched on its own (see ``diversity.keep_seats``).

Plain patterns, no LLM: a question counting, summing, comparing or listing things.

Questions about the asker (``speaks_of_self``): "How many fitness classes do I attend?",
"我上次说的那家店叫什么？" speak of the asker in the first person singular, address no one and
do not speak for others ("we"): what answers them is what the asker said, not what an
assistant said back (the scoring stage ``self_reference``).
"""

from __future__ import annotations

import re

from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified

_EN = lazy_compile(
    r"\b(how many|how much (more|less|longer|shorter|older|younger|further|farther|money|time)|"
    r"how much (did|have|had) (I|we|you) (spen[dt]|pa(y|id)|earn(ed)?|raise[d]?|save[d]?)|total|in total|altogether|combined|sum of|"
    r"(the )?difference (in|between)|compared (to|with)|(more|less|fewer|longer|shorter|"
    r"older|younger) than|how often|number of|average|each of|all (the|of)|every time|"
    r"both|(two|three|four|five|six) (different|separate)?\s?\w+s\b|which (one|of)|list|"
    r"(in )?(the|what) order|from (the )?(earliest|first|oldest) to|first,? second|"
    r"(which|who) [^?]{0,60}\b(first|most recently|last)\b[^?]*\bor\b)\b",
    re.I,
)
# 比较 compares ("比较一下", "比较去年和今年") or is an adverb ("哪个比较好", "找谁看比较合适":
# "which is better", a single answer); only the first is aggregate. 每次 alone is a habit
# ("我每次落机点样先恢复得快？", "她每次都做那个"), one answer; "几次…每次多少" counts by 几次
# (the suite's every aggregate question with 每次 has another word that says so)
_ZH = lazy_compile(
    r"(多少次|多少个|多少天|几次|几个|几天|几本|几家|几场|几位|几种|几年|一共|总共|总计|合计|"
    r"加起来|分别|"
    r"平均|比较(一下|下|起来)|比较[^，。？！?\s]{1,12}[和跟与同]|相比|差多少|多了|少了|"
    r"哪几|都有哪些|有哪些|所有的|两次|三次|两个|三个|"
    r"顺序|先后|哪个先|谁先|按时间)"
)


# "How many days ago did I ...", "几天前": when one thing happened, not a count of occasions. In
# a haystack the spread moved the answer's session below other chats (LongMemEval's "How many
# months ago did I attend the photography workshop?": rank 1 alone, out of the top 10 there).
_AGO = lazy_compile(
    r"(?i:\bhow many (seconds|minutes|hours|days|weeks|months|years) ago\b)"
    r"|(几|多少|[一两二三四五六七八九十半\d]+)(秒|分钟|个?小时|天|周|个?星期|个?月|年)(以|之)?前"
)


# "那几天", "这几个", "前几天", "好几次": 几 after a demonstrative or 前/后/好/头 is "those /
# these / the last / several few", not "how many": "那几天宝宝是不是还有别的安排" asks about the
# days already named (dialogue_notes' spread moved its one answer below other people's notes)
_FEW = lazy_compile(r"[那这前后好头]几")


def is_aggregate(query: str) -> bool:
    """True when the question counts, sums, compares or lists things across occasions (in
    Traditional Chinese too: the patterns are Simplified)."""
    asked = _FEW.sub(" ", _AGO.sub(" ", to_simplified(query)))
    return bool(_EN.search(asked) or _ZH.search(asked))


# "I" (a capital letter on its own: not "World War I" or "Type I"; a lower-case "i" only as
# a word before a space or an apostrophe, as typed in chat, not "i.e."), "me", "my",
# "myself"; 我 but not 我们 or 我国 ("we", "our country" take in others)
_FIRST = lazy_compile(
    r"(?<!War )(?<!Type )\bI\b|\bi(?=[\s'’])|(?i:\b(me|my|myself)\b)|我(?![们国])"
)
# "you" and its forms, 你 / 您 (你们 too): a question put to someone is not only about oneself;
# nor one of "we" ("our previous chat" takes in the assistant; "US" is a country, "us" not),
# nor one about the assistant's own words ("what did the assistant recommend for my trip?")
_OTHERS = lazy_compile(
    r"(?i:\b(you|your|yours|yourself|yourselves|u|we|our|ours|ourselves|assistant|bot)\b)"
    r"|\bus\b|你|您|我们|助手|机器人"
)


def speaks_of_self(query: str) -> bool:
    """True when the question speaks of the asker (first person singular) without addressing
    anyone or speaking for others ("What did I order?", "我的车是什么牌子？"; not "What did you
    suggest for me?", not "What did I say in our last chat?")."""
    return bool(_FIRST.search(query)) and not _OTHERS.search(query)
