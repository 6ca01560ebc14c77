"""Is a sentence something the speaker states, or a question, a hypothetical or a quote?

Only statements may become memories or replace one: "Any tips for where I live now?" mentions
where the user lives but says nothing about it, "If I moved to Berlin ..." is not a move, and
"My mum says I should live in Lisbon" is not where the user lives. Capture rejects the other
three kinds per sentence, and supersession ignores them: ``remem.text.assertion`` combines
these detectors with uncertainty, sarcasm and examples (``assertion.not_a_statement``).

Plain patterns over one sentence, in English, Chinese (Traditional is folded to Simplified
first), Japanese and Korean. Each detector errs towards "not a statement" only where the form
is unambiguous (a question mark, an inverted opener, a sentence-final question particle); the
negatives that look alike are listed next to each pattern ("我不知道他住哪里", "Where I live
now is Lisbon", "什么都可以", "私はいつも…").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified
from remem.text.phrases import phrases

# Closing punctuation, quotes, brackets and emoji after the last word: "… now?)" ends in "?".
_TRAILING = lazy_compile(r"[\s\"'”’」』)\]）】~～…。.!！\U0001f300-\U0001faff\u2600-\u27bf]+$")

# ---------------------------------------------------------------- English questions
_AUX = (
    r"(do|does|did|is|are|was|were|am|can|could|would|should|will|shall|may|might|must|have|"
    r"has|had)(n'?t)?"
)
_SUBJECT = (
    r"(i|you|we|he|she|they|it|there|my|your|our|his|her|their|the|this|that|these|those|"
    r"any|anyone|anybody|someone|somebody|everyone)"
)
# after "what/which … <aux>": "What time is it", not "What happened is that …"
_AFTER_AUX = r"(i|you|we|he|she|they|it|my|your|our|his|her|their|the|this|these|those)"
_WH = r"(where|what|who|whom|whose|when|why|how|which)"
_EN_QUESTION = lazy_compile(
    # "Where do I live", "What's my name", "Why can't I …" (not "Where I live now is …")
    rf"^{_WH}('s|'re|'d|'ll|\s+{_AUX}\b)"
    # "Which city do I live in", "What time is it" (not "What I like most is tea")
    rf"|^(what|which|whose|how many|how much)\s+(?!{_SUBJECT}\b)\w+(\s+\w+){{0,3}}\s+{_AUX}"
    rf"\s+{_AFTER_AUX}\b"
    r"|^how (about|come|many|much|long|often|far|old)\b"
    # "Do I live in Lisbon", "Is there …", "Should we …" (not "Do remember …")
    rf"|^{_AUX}\s+{_SUBJECT}\b"
    r"|^any\s+(tips?|ideas?|suggestions?|advice|recommendations?|thoughts?|clue)\b"
    r"|^anything\s+(good|fun|interesting|nice|else|to)\b"
    # an indirect question put to the assistant: "Tell me where I live"
    r"|^(please\s+)?(tell me|remind me|let me know|do you know|any idea)\b.*?\b"
    r"(where|what|who|when|why|how|which|whether|if)\b"
    r"|^(i wonder|i'?m wondering|wondering|i was wondering)\b",
    re.I,
)
# idioms that open like a question: "What can I say, I love turtles", "Guess what - I got …"
_EN_IDIOM = lazy_compile(r"^(what can i say|guess what)\b(?![^?]*\?\s*$)", re.I)
# "Could you remember that I'm vegan?" asks for a memory to be kept: a request, not a question.
_EN_REQUEST = lazy_compile(
    r"^(can|could|would|will)\s+you\s+(please\s+)?(remember|note|keep in mind|make a note|"
    r"save|store|write down)\b",
    re.I,
)

# ---------------------------------------------------------------- Chinese questions
# sentence-final particles: 吗 always; 么 unless part of 什么/怎么/那么/这么/多么
_ZH_FINAL = lazy_compile(r"(吗|(?<![什怎那这多要])么|(是|对|没错|不是|好不好|行不行)吧|干嘛)$")
# wh-words, minus their other uses: "什么都可以" (anything), "没什么" / "不是什么大事" (nothing
# much), "猫狗什么的" (and so on), "不怎么喝" (hardly), "多少会一点" (somewhat), "哪怕" (even if)
_ZH_WH = lazy_compile(
    r"(哪(?!怕|(里|儿|个|些)?[都也])|(?<![没不])(?<!不是|没有)什么(?![的都也])|啥(?![都也])|谁(?![都也])|"
    r"(?<!不)怎么(?![都也])|怎样|为什么|为啥|多少(?![有会还也都])|几点|几岁|几号|星期几|"
    r"周几|礼拜几|几月|是否|是不是|有没有|能不能|会不会|要不要|可不可以|"
    r"(?P<a>[\u4e00-\u9fff])[不没](?P=a)|(你|您)[^。，,]{0,8}几(个|次|只|位|本|天|年|口))"
)
# ... unless the wh-clause is what the speaker does not know or does not mind: "我不知道他住
# 哪里", "不管去不去", "这就是为什么我搬家" (but "你知道我住哪里" asks)
_ZH_EMBEDDED = lazy_compile(
    r"(?<![你您])(不知道|知道|不清楚|清楚|不记得|记得|不确定|不管|无论|不论|忘了|记不清|"
    r"想不起|随便)|就是为什么|这是为什么"
)
# 呢 asks with a wh-word ("我住哪里呢") or after a bare topic ("你呢", "那北京呢"), not after a
# statement ("我还在上班呢").
_ZH_NE_TOPIC = lazy_compile(r"^(你|您|那|那么|还有|你们)[^，,。]{0,6}呢$")


# ---------------------------------------------------------------- Japanese and Korean
@dataclass(frozen=True)
class _Asking:
    """How a language asks without a question mark: a sentence-final particle, or a wh-word in
    a sentence that ends the way its questions end."""

    script: re.Pattern[str]  # the language's own letters: the sentence is in it
    final: re.Pattern[str]
    wh: re.Pattern[str]
    wh_end: re.Pattern[str]


_ASKING = (
    _Asking(
        lazy_compile(r"[\u3040-\u30ff]"),
        # か / かな / っけ, not とか ("猫とか"), しか, or adjectives in -か (静か, 確か, 豊か ...)
        lazy_compile(r"((?<![とし静確豊僅愚暖柔細])か|かな|かしら|っけ)$"),
        lazy_compile(
            r"(どこ|何|なに|なん|誰|だれ|いつ(?!も)|なぜ|どうして|どう|どれ|どの|どちら|"
            r"いくつ|いくら)"
        ),
        lazy_compile(r"の$"),
    ),
    _Asking(
        lazy_compile(r"[\uac00-\ud7af]"),
        # -까요/-(습)니까/-나요/-냐, -니 after a verb ending (not 어머니)
        lazy_compile(r"(까요|니까|나요|냐|을까|ㄹ까|는지요|(었|았|했|하|겠|는|거|이)니)$"),
        lazy_compile(r"(어디|뭐|무엇|누구|언제|왜|어떻게|몇|얼마|어느)"),
        lazy_compile(r"(요|니|야)\Z"),
    ),
)

# ---------------------------------------------------------------- hypotheticals
_HYPOTHETICAL = phrases(
    r"^(if|suppose|supposing|imagine|assuming|assume|in case|what if|let'?s say|"
    r"hypothetically|pretend|were i|had i|even if|unless)\b"
    r"|\b(i|we) wish\b|\bif only\b|\b(i'?d|i would|we'?d|we would)\b(?! rather).*\bif\b",
    r"^(如果|假如|要是|假设|假使|倘若|万一|若是|若|哪怕|即使|就算|如若|设想|想象一下|假若)"
    r"|(?<!说)的话|(要是|如果).{0,20}就好了|^(我)?(真)?希望(我)?能",
    r"^(もし|もしも|仮に)|(たら|れば)、",
    r"^(만약|만일)",
)

# ---------------------------------------------------------------- quotes / reported speech
_REPORTED = phrases(
    r"(\b(?i:he|she|they|my(\s+\w+){1,2}|someone|somebody|people|everyone)|\b[A-Z][a-z]+)\s+"
    r"(?i:said|says|told me|tells me|asked|asks|claims?|claimed|thinks|thought|believes|"
    r"mentioned|wrote|texted me)\b"
    r"|^(?i:apparently|reportedly|according to|i'?ve heard that|i heard (that|there))\b"
    # "The doctor asked whether I'm vegan", "The song goes ...", "My mum keeps saying ..."
    r"|(?i:\b(asked|asks|asking|wondered)( me)? (whether|if)\b|\bthe(\s+\w+){1,2}\s+(said|says|"
    r"asked|asks|wrote|goes|claims)\b|\b(keeps|kept) (saying|telling)\b)",
    # not "我跟他说…" (the speaker told someone)
    r"(?<![跟和对给向])(他|她|他们|她们|别人|有人|朋友|老板|妈妈|爸爸|老妈|老爸|老师|同事|"
    r"大家|人家|网上)(说|讲|告诉我|跟我说|觉得|认为|以为)|听说|据说|听人说|传说"
    # anyone else's words: "我妈说…", "销售说…", "阿嘉說…", "小雅跟我说…" (not the speaker's own
    # "我说", nor 小说 / 说明 / 说服 / 说不定 / 说法 / 说话)
    r"|(?<![我小听据传])(?<!跟他)(?<!跟她)(?<!对他)(?<!对她)(?<!和他)(?<!和她)(?<!跟你)(?<!对你)"
    r"(说|讲)(?!明|服|不定|法|话|一下|一声|个事|个大事|件事|个消息)|跟我说|告诉我|问我",
    r"(と言って|って言って|と言った|って言った|によると)",
    en_flags=0,
)
# A quoted clause in the speaker's mouth: “I live in Paris”, 「我住在巴黎」 (a quoted word or a
# title, "the 'dark' theme", is not a quote of someone's statement).
_QUOTED = lazy_compile(r"[\"“「『]([^\"”」』]{4,})[\"”」』]")
# a quoted title ("My Favorite Murder", "I Like to Move It") is not a quoted statement
_TITLE_WORD = r"([A-Z0-9][\w'’-]*|a|an|the|of|to|and|in|on|for|with|at|by|or)[,:;]?"
_TITLE = lazy_compile(rf"^{_TITLE_WORD}(\s+{_TITLE_WORD})*[.!?]?$")
_FIRST_PERSON = lazy_compile(r"\b(i|i'm|i've|my|we)\b|我|私|僕|俺|저는|나는", re.I)


def _tail(text: str) -> str:
    return _TRAILING.sub("", text.strip())


def _ends_with_question_mark(text: str) -> bool:
    stripped = re.sub(r"[\s\"'”’」』)\]）】\U0001f300-\U0001faff\u2600-\u27bf]+$", "", text)
    return stripped.endswith(("?", "？"))


def _zh_question(zh: str) -> bool:
    tail = _tail(zh)
    if _ZH_FINAL.search(tail):
        return True
    wh = _ZH_WH.search(tail)
    if wh is not None and not _ZH_EMBEDDED.search(tail[: wh.end()]):
        return True
    return bool(_ZH_NE_TOPIC.match(tail))


def is_question(text: str) -> bool:
    """A question in English, Chinese, Japanese or Korean, with or without its mark."""
    stripped = text.strip()
    if not stripped:
        return False
    if _EN_REQUEST.match(stripped) or _EN_IDIOM.match(stripped):
        return False
    if _ends_with_question_mark(stripped):
        return True
    if _EN_QUESTION.match(stripped):
        return True
    if re.search(r"[\u4e00-\u9fff]", stripped) and _zh_question(to_simplified(stripped)):
        return True
    tail = _tail(stripped)
    return any(
        lang.script.search(stripped)
        and (lang.final.search(tail) or (lang.wh_end.search(tail) and lang.wh.search(tail)))
        for lang in _ASKING
    )


def is_hypothetical(text: str) -> bool:
    """A supposition, not a fact: "If I moved to Berlin …", "如果我住在上海 …", "もし…"."""
    return _HYPOTHETICAL.search(text.strip())


def is_quote(text: str) -> bool:
    """Someone else's words: "My mum says I should …", "他说他住在北京", a quoted clause."""
    stripped = text.strip()
    if _REPORTED.search(stripped):
        return True
    return any(
        _FIRST_PERSON.search(quoted) and not _TITLE.match(quoted)
        for quoted in (m.group(1) for m in _QUOTED.finditer(stripped))
    )
