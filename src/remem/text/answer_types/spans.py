"""Typed spans: the parts of a text that are of an answer type ("Shanghai" a place, "三百块" an
amount, "next Tuesday" a time), from patterns and the word lists of ``lexicon``. No model.

Each finder returns (span, strength) pairs: 1.0 for a span whose form is unmistakable (a
currency amount, a gazetteer city, a name with an organisation suffix, a calendar date), 0.5 for
a weaker sign (a capitalised phrase after "in", a bare number where an amount is asked). Chinese
text is read through jieba's part-of-speech dictionary (rjieba: ``ns`` place, ``nr`` person,
``nt`` organisation, ``t`` time, ``m`` numeral), which ships with the package.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from remem.text.answer_types.lexicon import (
    JOB_SUFFIXES_ZH,
    KIND_CUES,
    KINDS,
    ORG_NAMES,
    ORG_SUFFIXES_EN,
    ORG_SUFFIXES_ZH,
    PLACE_SUFFIXES_EN,
    PLACE_SUFFIXES_ZH,
    RELATION_WORDS,
    WORKPLACE_WORDS,
    gazetteer,
    words,
)
from remem.text.calendar_words import MONTHS, WEEKDAYS
from remem.text.lazy_re import lazy_compile
from remem.text.named_days import DAY_PATTERNS
from remem.text.normalize import to_simplified

Scored = list[tuple[str, float]]
STRONG, WEAK = 1.0, 0.5

_HAN = r"\u4e00-\u9fff"
_ZH_NUM = r"[0-9０-９.]+|[零〇一二两三四五六七八九十百千万亿几半]+"
_EN_NUM = (
    r"\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
    r"thirty|forty|fifty|sixty|hundred|a hundred|a thousand|a couple(?: of)?|a few|several|"
    r"a dozen|dozens|half an?|an?"
)
_CAPS = r"[A-Z][\w'’&.\-]*(?:\s+(?:of|the|de|del|la|and|&|on)?\s*[A-Z][\w'’&.\-]*)*"
_CAPS_RE = lazy_compile(_CAPS)
# capitalised words that are no names: sentence openers, pronouns, calendar words
_NOT_NAMES = words(
    "I I'm I've I'll I'd Im A An The This That These Those It It's Its We We're You You're He "
    "She They My Our Your His Her Their Hey Hi Hello Oh Ok OK Okay Yes No Yeah Yep Nope Thanks "
    "Thank Wow Haha Lol Sure Great Good Nice Cool Awesome So And But Or If When Where What Why "
    "How Who Which Just Also Well Sorry Please Let Let's Did Do Does Is Are Was Were Have Has "
    "Had Can Could Will Would Should Not Maybe Anyway Congrats Congratulations Happy Mr Mrs Ms "
    "Dr Today Tomorrow Yesterday Tonight Last Next This Everyone Guys All Love Ah Aw Awww Omg"
) | frozenset(m.capitalize() for m in (*MONTHS, *WEEKDAYS))

_MONTH_RE = "|".join(sorted((m for m in MONTHS if len(m) > 3), key=len, reverse=True))
_WEEKDAY_RE = "|".join(WEEKDAYS)
_TIME_EN = lazy_compile(
    rf"\b(?:(?:{_MONTH_RE})(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?(?:,?\s+(?:19|20)\d\d)?|"
    rf"(?:last|next|this|on|every)?\s*(?:{_WEEKDAY_RE})s?|(?:19|20)\d\d|"
    r"\d{1,2}(?::\d\d)?\s*(?:am|pm|a\.m\.|p\.m\.|o'clock)|\d{1,2}:\d\d|"
    r"yesterday|today|tonight|tomorrow|this (?:morning|afternoon|evening|weekend)|"
    r"(?:last|next|this|the other) (?:week|weekend|month|year|night|summer|winter|spring|fall|autumn)|"
    r"\d+ (?:days?|weeks?|months?|years?) ago|a (?:week|month|year) ago|"
    r"(?:in|since|during) (?:the )?(?:summer|winter|spring|fall|autumn|morning|evening)|"
    r"noon|midnight|christmas|thanksgiving|new year'?s?(?: eve)?|halloween|easter)\b",
    re.IGNORECASE,
)
_TIME_ZH = lazy_compile(
    rf"(?:(?:{_ZH_NUM})\s*[年月日号號点點]|[上下这這本]?(?:周|星期|礼拜|禮拜)[一二三四五六日天末]|"
    r"[上下这這本]个?(?:月|周|星期|礼拜)|[昨今明前后後大]天|[去今明前]年|早上|上午|中午|下午|"
    r"晚上|傍晚|凌晨|半夜|春节|国庆|中秋|端午|元旦|清明|五一|十一|寒假|暑假|圣诞|除夕|"
    r"(?:{_ZH_NUM})\s*(?:天|周|个月|年)前|最近|刚才|之前|以前|后来)"
)
_DURATION_EN = lazy_compile(
    rf"\b(?:{_EN_NUM})\s*(?:-\s*)?(?:seconds?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|"
    r"months?|years?|decades?)\b|\b(?:all day|all night|overnight|a while|ages|forever|"
    r"since (?:\d{4}|last \w+|childhood|college|high school))\b",
    re.IGNORECASE,
)
_DURATION_ZH = lazy_compile(
    rf"(?:{_ZH_NUM})\s*(?:个|個)?(?:半)?\s*(?:秒|分钟|分鐘|小时|小時|钟头|天|晚|周|星期|礼拜|个月|月|年)(?:多|左右|半)?|"
    r"半(?:小时|天|年|个月)|一整天|一辈子|好久|很久|一阵子"
)
_NUMBER_EN = lazy_compile(
    rf"\b(?:{_EN_NUM}|once|twice|thrice|dozen|hundreds|thousands|first|second|third)\b",
    re.IGNORECASE,
)
# a Chinese numeral counts only with a measure word after it: "一起", "一定", "一下" are no
# numbers, "三个", "十二岁", "两万步" are
_NUMBER_ZH = lazy_compile(
    r"(?:[0-9０-９.]+|[零〇一二两三四五六七八九十百千万亿半]+)\s*(?:多|来)?\s*"
    r"(?:个|個|只|位|次|岁|歲|人|件|本|张|張|条|條|台|辆|輛|套|双|斤|公斤|公里|千米|米|元|块|步|"
    r"节点|层|楼|栋|号|天|年|周|月|小时|分钟|分|名|家|所|门|场|趟|遍|倍|成|折|%)"
)
_CURRENCY = r"[$€£¥￥]"
_AMOUNT_EN = lazy_compile(
    rf"{_CURRENCY}\s?\d[\d,.]*\s*(?:k|m|million|thousand|hundred|grand)?|"
    rf"\b\d[\d,.]*\s*(?:k\b)?\s*(?:dollars?|bucks|usd|euros?|eur|pounds?|quid|gbp|yuan|rmb|cny|"
    r"yen|grand|cents?)\b|\b(?:a|one|two|three|five|ten|twenty|fifty|a hundred|a few|"
    r"a couple)\s+(?:hundred|thousand)?\s*(?:dollars|bucks|euros|pounds|grand)\b|"
    r"\b(?:free|for nothing)\b",
    re.IGNORECASE,
)
_AMOUNT_ZH = lazy_compile(
    rf"{_CURRENCY}\s?\d[\d,.]*|(?:{_ZH_NUM})\s*(?:多|来)?\s*(?:万|千|百)?\s*(?:元|块钱|块|塊|毛|"
    r"美元|美金|欧元|英镑|日元|刀|港币|人民币|rmb|RMB)|免费|白送"
)
_REASON = lazy_compile(
    r"\b(?:because|cause|'cause|since|so that|due to|thanks to|in order to|as a result|"
    r"that's why|the reason|which is why|so I|so we|to help|to get|to be|wanted to|"
    r"helps? (?:me|her|him|them)|inspired|motivated)\b|因为|因為|由于|由於|为了|為了|所以|"
    r"因此|原因|是怕|怕|想要|为的是|不然|否则|导致|结果",
    re.IGNORECASE,
)
_PHONE = lazy_compile(r"(?<![\w.])\+?\d[\d\- ()]{5,}\d(?![\w.])")
_EMAIL = lazy_compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
# (pattern, the group that is the span, how strongly a match answers), read in this order
Reader = tuple[re.Pattern[str], int, float]
_CODE_READERS: tuple[Reader, ...] = (
    # what follows "password is", "密码是"
    (
        lazy_compile(
            r"(?:password|passcode|pin|pw|code|密码|密碼|口令|验证码)\s*(?:is|:|：|是|为)\s*(\S+)",
            re.IGNORECASE,
        ),
        1,
        STRONG,
    ),
    (lazy_compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b"), 0, STRONG),  # an IP address
    # a token of letters and digits
    (
        lazy_compile(
            r"(?<![\w@])(?=[\w@#!$%^&*\-]*\d)(?=[\w@#!$%^&*\-]*[A-Za-z])[\w@#!$%^&*\-]{4,}"
        ),
        0,
        WEAK,
    ),
)
_QUOTED = lazy_compile(r"[\"“「『《]([^\"”」』》]{1,60})[\"”」』》]")
_TITLE_AFTER = lazy_compile(
    rf"\b(?:watch(?:ed|ing)?|saw|seen|see|read(?:ing)?|play(?:ed|ing)?|listen(?:ed|ing)? to|"
    rf"finished|loved?|recommend(?:ed)?) (?:the )?(?:movie |film |book |game |song |show )?({_CAPS})"
)
_NAMED_ZH = lazy_compile(rf"(?:叫|名叫|名字是|取名|起名)\s*([{_HAN}A-Za-z]{{1,6}})")
_NAMED_EN = lazy_compile(rf"\b(?:named|called|name is|name's)\s+({_CAPS})")


def _tags(text: str) -> list[tuple[str, str]]:
    if not re.search(f"[{_HAN}]", text):
        return []
    # imported on the first Chinese text: loading its dictionary costs ~0.2 CPU-s, which an
    # English-only process's first search would otherwise pay (issue 47)
    import rjieba

    return rjieba.tag(to_simplified(text))


def _caps_phrases(text: str) -> Iterable[tuple[str, int]]:
    """Capitalised phrases (and where each starts), sentence openers and non-names left out."""
    for m in _CAPS_RE.finditer(text):
        words = [w for w in m.group().split() if w.strip("'’") not in _NOT_NAMES]
        if words and words[0][0].isupper():
            yield " ".join(words), m.start()


@lru_cache(maxsize=1)
def _gazetteer_re() -> tuple[re.Pattern[str], re.Pattern[str]]:
    english, chinese = gazetteer()
    en = "|".join(re.escape(n) for n in sorted(english, key=len, reverse=True))
    zh = "|".join(re.escape(n) for n in sorted(chinese, key=len, reverse=True))
    return re.compile(rf"\b(?:{en})\b"), re.compile(zh)


def _place(text: str) -> Scored:
    en, zh = _gazetteer_re()
    found: Scored = [(m.group(), STRONG) for m in en.finditer(text)]
    found += [(m.group(), STRONG) for m in zh.finditer(to_simplified(text))]
    found += [(w, STRONG) for w, tag in _tags(text) if tag == "ns"]
    zh_suffix = "|".join(sorted(PLACE_SUFFIXES_ZH, key=len, reverse=True))
    found += [
        (m.group(), STRONG)
        for m in re.finditer(rf"[{_HAN}]{{1,6}}(?:{zh_suffix})(?![{_HAN}])", text)
    ]
    en_suffix = "|".join(sorted(PLACE_SUFFIXES_EN, key=len, reverse=True))
    found += [(m.group(), STRONG) for m in re.finditer(rf"{_CAPS}\s+(?:{en_suffix})\b", text)]
    for m in re.finditer(
        rf"\b(?:in|at|from|to|near|visit(?:ed|ing)?|moved to|live in)\s+(?:the\s+)?({_CAPS})", text
    ):
        phrase = " ".join(w for w in m.group(1).split() if w not in _NOT_NAMES)
        if phrase:
            found.append((phrase, WEAK))
    found += [
        (w, WEAK)
        for w in re.findall(
            r"\b(?:home|downtown|abroad|overseas|the beach|the park|the mountains|the lake|the city|the countryside|the gym|the office|school|work)\b",
            text,
        )
    ]
    found += [
        (w, WEAK)
        for w in re.findall(
            r"家里|家附近|老家|市中心|国外|海边|山上|公司|学校|健身房|楼下|附近", text
        )
    ]
    moved = r"(?:住在|搬到|搬去|搬回|去了|到了|来自|回到|飞到|飞去|定在|约在)"
    found += [(m.group(1), WEAK) for m in re.finditer(rf"{moved}\s*([{_HAN}]{{2,6}})", text)]
    return found


_SPEAKER_LABEL = lazy_compile(r"^\s*([^:：\n]{1,24})[:：]\s")


def _person(text: str) -> Scored:
    """People named in the line, strong; a person in its speaker label ("陈思远: 我订好了"), a
    capitalised phrase or a relation ("my sister") weak: every line has a speaker, so the label
    alone says little about who did what."""
    label = _SPEAKER_LABEL.match(text)
    body = text[label.end() :] if label else text
    found: Scored = [(w, STRONG) for w, tag in _tags(body) if tag in ("nr", "nrfg", "nrt")]
    found += [(p, WEAK) for p, start in _caps_phrases(body) if start > 0]
    lowered = body.lower()
    found += [(w, WEAK) for w in RELATION_WORDS if _has_word(lowered, w)]
    found += [(m.group(1), STRONG) for m in _NAMED_EN.finditer(body)]
    if label:
        found.append((label.group(1).strip(), WEAK))
    return found


def _organisation(text: str) -> Scored:
    found: Scored = [(w, STRONG) for w, tag in _tags(text) if tag == "nt"]
    zh_suffix = "|".join(sorted(ORG_SUFFIXES_ZH, key=len, reverse=True))
    found += [
        (m.group(), STRONG) for m in re.finditer(rf"[{_HAN}A-Za-z]{{1,8}}(?:{zh_suffix})", text)
    ]
    en_suffix = "|".join(sorted(ORG_SUFFIXES_EN, key=len, reverse=True))
    found += [(m.group(), STRONG) for m in re.finditer(rf"{_CAPS}\s+(?i:{en_suffix})\b\.?", text)]
    found += [(n, STRONG) for n in ORG_NAMES if _has_word(text, n)]
    lowered = to_simplified(text).lower()
    found += [(w, WEAK) for w in WORKPLACE_WORDS if _has_word(lowered, w)]
    for m in re.finditer(rf"\b(?:at|for|with|joined|join)\s+({_CAPS})", text):
        phrase = " ".join(w for w in m.group(1).split() if w not in _NOT_NAMES)
        if phrase:
            found.append((phrase, WEAK))
    return found


def _time(text: str) -> Scored:
    found: Scored = [
        (m.group(), STRONG) for pattern, _ in DAY_PATTERNS for m in pattern.finditer(text)
    ]
    found += [(m.group().strip(), STRONG) for m in _TIME_EN.finditer(text) if m.group().strip()]
    found += [(m.group(), STRONG) for m in _TIME_ZH.finditer(text)]
    found += [(w, STRONG) for w, tag in _tags(text) if tag in ("t", "tg")]
    return found


def _read(text: str, readers: Iterable[Reader]) -> Scored:
    """Every reader's matches in ``text``, reader by reader: (its span, its strength)."""
    return [
        (m.group(group), strength)
        for pattern, group, strength in readers
        for m in pattern.finditer(text)
    ]


def _duration(text: str) -> Scored:
    return _read(text, ((_DURATION_EN, 0, STRONG), (_DURATION_ZH, 0, STRONG)))


def _number(text: str) -> Scored:
    found: Scored = [(m.group(), STRONG) for m in re.finditer(r"\d[\d,.]*", text)]
    found += [
        (m.group(), WEAK)
        for m in _NUMBER_EN.finditer(text)
        if m.group().lower() not in ("a", "an", "first", "second", "one")
    ]
    found += [(m.group(), STRONG) for m in _NUMBER_ZH.finditer(text)]
    return found


def _amount(text: str) -> Scored:
    found = _read(text, ((_AMOUNT_EN, 0, STRONG), (_AMOUNT_ZH, 0, STRONG)))
    if not found:  # a bare number may be the price: "it was 300"
        found = [(m.group(), WEAK) for m in re.finditer(r"\d[\d,.]*", text)]
    return found


def _reason(text: str) -> Scored:
    return _read(text, ((_REASON, 0, STRONG),))


def _contact(text: str) -> Scored:
    found: Scored = [
        (m.group(), STRONG)
        for m in _PHONE.finditer(text)
        if sum(c.isdigit() for c in m.group()) >= 7
    ]
    return found + [(m.group(), STRONG) for m in _EMAIL.finditer(text)]


def _code(text: str) -> Scored:
    return _read(text, _CODE_READERS)


def _name(text: str) -> Scored:
    found: Scored = [
        (m.group(1), STRONG) for m in (*_NAMED_EN.finditer(text), *_NAMED_ZH.finditer(text))
    ]
    found += [(m.group(1), WEAK) for m in _QUOTED.finditer(text)]
    found += [(p, WEAK) for p, start in _caps_phrases(text) if start > 0]
    found += [(w, WEAK) for w, tag in _tags(text) if tag in ("nr", "nz")]
    return found


def _has_word(text: str, word: str) -> bool:
    if re.search(f"[{_HAN}]", word):
        return word in text
    return re.search(rf"(?<![\w-]){re.escape(word.replace('_', ' '))}(?![\w-])", text) is not None


def _kind(kind: str) -> Callable[[str], Scored]:
    _classes, members = KINDS[kind]
    cue = re.compile(KIND_CUES[kind], re.IGNORECASE) if kind in KIND_CUES else None

    def find(text: str) -> Scored:
        lowered = to_simplified(text).lower()
        strength = STRONG if cue is None or cue.search(lowered) else WEAK
        found: Scored = [(w.replace("_", " "), strength) for w in members if _has_word(lowered, w)]
        if kind in (
            "film",
            "book",
            "game",
            "music",
        ):  # titles: quoted, 《…》, capitalised after a verb
            found += [(m.group(1), STRONG) for m in _QUOTED.finditer(text)]
            found += [(m.group(1), WEAK) for m in _TITLE_AFTER.finditer(text)]
        elif kind == "job":  # Chinese titles by their ending: "物理治疗师", "美术主管"
            found += [
                (w, STRONG)
                for w, _tag in _tags(text)
                if len(w) >= 2 and w.endswith(JOB_SUFFIXES_ZH) and w not in ("老师们", "人员")
            ]
        elif kind in ("pet",):  # a pet's kind is often said with its name: "my dog Max"
            found += [(m.group(1), WEAK) for m in _NAMED_EN.finditer(text)]
        return found

    return find


FINDERS: dict[str, Callable[[str], Scored]] = {
    "place": _place,
    "person": _person,
    "organisation": _organisation,
    "time": _time,
    "duration": _duration,
    "number": _number,
    "amount": _amount,
    "reason": _reason,
    "contact": _contact,
    "code": _code,
    "name": _name,
    **{kind: _kind(kind) for kind in KINDS},
}


def scored_spans(text: str, kind: str) -> Scored:
    """(span, strength) of each span of ``text`` of that kind, each span once at its
    strongest; [] for a kind with no spans (``yes_no``) or an unknown one."""
    finder = FINDERS.get(kind)
    if finder is None:
        return []
    best: dict[str, float] = {}
    for span, strength in finder(text):
        span = span.strip()
        if span:
            best[span] = max(best.get(span, 0.0), strength)
    return list(best.items())
