"""Which fact a question asks for: whose (a subject the store holds facts about) and which
attribute ("Where does Tom live now?" -> Tom, ``lives_in``; "汤姆现在在哪家公司" -> 汤姆,
``works_at``).

Recall's currency stage (``search/currency.py``) puts the current value of that one chain
first (the value before it for a question about the past), so it must not guess: a question
whose words name no family, or no person the store has facts about, asks for nothing here.

- **Attribute**: the words a question uses for a family, in English and Chinese (Traditional
  and Cantonese folded as the extractor folds them, ``rules_zh.fold``). A table row gives the
  families it may mean, most likely first ("job" is a role, else an employer); the caller
  takes the first the subject has facts for. The families and their kinds are the extractor's
  (``model.ATTRIBUTES``, ``values_en.KINDS``, ``subjects.RELATIONS_*``).
- **Subject**: the fact subjects of the store, by the name they are shown with and its
  aliases (``query.names_of``: "Tom", "小明" for 王小明), matched as whole words in English
  and as characters in Chinese; a relative the speaker names ("Gran", "奶奶") by relation.
  The one named first wins ("Who was Mia's boyfriend before Sam?" is Mia's).
- **A value named**: "Is Ann still at Initech?" names no family, but Initech is a value of
  Ann's ``works_at``: ``attribute_of_value`` finds the chain by the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from remem.facts import rules_zh, values_en
from remem.facts.model import thing_core, value_key
from remem.facts.query import names_of
from remem.facts.subjects import RELATIONS_EN, RELATIONS_ZH
from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified
from remem.types import Fact

_I = re.IGNORECASE
_WORK = ("works_at", "role")
_JOB = ("role", "works_at")
_HOME = ("lives_in", "located_in")
# (words, the families they ask for, most likely first); every matching row counts, in order
_EN: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    *[
        (lazy_compile(rf"\b{app}\b", _I), (f"contact.{app}",))
        for app in ("telegram", "wechat", "instagram", "twitter", "discord", "whatsapp", "slack")
    ],
    (lazy_compile(r"\be-?mail\b", _I), ("contact.email",)),
    (lazy_compile(r"\b(?:phone|mobile|number|call|ring)\b", _I), ("contact.phone",)),
    (lazy_compile(r"\ballerg", _I), ("allergic_to",)),
    (lazy_compile(r"\b(?:diet|dietary|vegan|vegetarian|eats?|eating)\b", _I), ("diet",)),
    (
        lazy_compile(
            r"\b(?:dating|boyfriend|girlfriend|partner|wife|husband|spouse|fianc\w*|"
            r"relationship|married|marry|still with|together)\b",
            _I,
        ),
        ("partner",),
    ),
    (lazy_compile(r"\b(?:pets?|dogs?|cats?|hamsters?|pupp(?:y|ies)|kittens?)\b", _I), ("pet",)),
    (lazy_compile(r"\b(?:car|cars|drives?|driving|bike)\b", _I), ("owns",)),
    (
        lazy_compile(
            r"\b(?:stud(?:y|ies|ying)|university|uni|school|college|degree|student)\b", _I
        ),
        ("studies_at",),
    ),
    (
        lazy_compile(
            r"\b(?:job|role|title|position|occupation|profession|do for (?:a )?(?:living|work))\b|"
            # "What does Nadia do at her company?": the job, not the company
            r"\bdo (?:at|in) (?:(?:her|his|their|the|your|my) )?(?:new )?(?:company|job|work|"
            r"startup|firm|office|business)\b",
            _I,
        ),
        _JOB,
    ),
    (lazy_compile(r"\b(?:work|works|working|company|employer|employed|firm)\b", _I), _WORK),
    (
        lazy_compile(
            r"\b(?:live|lives|living|lived|based|resides?|home|neighbou?rhood|city|town)\b", _I
        ),
        _HOME,
    ),
    (lazy_compile(r"\bvisit\b.*\bin\b", _I), _HOME),
    (lazy_compile(r"\b(?:sports?|hobby|hobbies)\b", _I), ("likes",)),
    (lazy_compile(r"\b(?:when|what date|which day)\b", _I), ("plan",)),
    # things, groups and roles (``rules_things``): their subject is the thing named
    (lazy_compile(r"\b(?:password|passcode|wi-?fi)\b", _I), ("password",)),
    (lazy_compile(r"\b(?:ip|url|address|host|hostname|server)\b", _I), ("address",)),
    (lazy_compile(r"\b(?:what time|which time|time)\b", _I), ("time",)),
    (lazy_compile(r"\b(?:when|date|day|days)\b", _I), ("date",)),
    (lazy_compile(r"\b(?:where|venue|meet|meets|meeting|held)\b", _I), ("place",)),
    (lazy_compile(r"\b(?:how much|price|cost|costs|rent|fee|fees)\b", _I), ("price",)),
    (lazy_compile(r"\b(?:who|whom|who's)\b", _I), ("held_by",)),
]
_ZH: list[tuple[re.Pattern[str], tuple[str, ...]]] = [
    (lazy_compile(r"微信"), ("contact.wechat",)),
    (lazy_compile(r"邮箱|邮件|电邮|email", _I), ("contact.email",)),
    (lazy_compile(r"电话|手机|号码|那个号|号吗"), ("contact.phone",)),
    (lazy_compile(r"怎么联系|联系方式"), ("contact.phone", "contact.wechat", "contact.email")),
    (lazy_compile(r"过敏"), ("allergic_to",)),
    (lazy_compile(r"爱吃|最爱吃|喜欢吃"), ("favourite.food", "likes", "diet")),
    (lazy_compile(r"饮食|忌口|吃辣|吃素|不吃|能吃|吃什么"), ("diet", "likes")),
    (
        lazy_compile(r"女朋友|男朋友|对象|老婆|老公|谈恋爱|恋爱|在一起|交往|结婚对象"),
        ("partner",),
    ),
    (lazy_compile(r"宠物|养的|养了|狗|猫"), ("pet",)),
    (lazy_compile(r"车"), ("owns",)),
    (lazy_compile(r"读书|学校|大学|上学|读研|读博|念书|专业|学什么"), ("studies_at",)),
    # "在公司负责什么": what one does there, not where ("谁负责" asks who holds a task: held_by)
    (
        lazy_compile(r"职位|职务|岗位|头衔|职业|什么工作|工作是什么|做什么的|干什么的|负责什么"),
        _JOB,
    ),
    (lazy_compile(r"公司|上班|单位|工作"), _WORK),
    (lazy_compile(r"住|城市|家在|哪个区|哪一区"), _HOME),
    (lazy_compile(r"什么运动|什么球|打球|爱好"), ("likes",)),
    (lazy_compile(r"在哪[里儿]?[？?吗]*$|还在[^？?]{1,8}[吗么]"), ("located_in", "lives_in")),
    (lazy_compile(r"哪天|什么时候|几号|几月|日期"), ("plan",)),
    (lazy_compile(r"密码|wi-?fi", _I), ("password",)),
    (lazy_compile(r"\bip\b|地址|网址|域名|服务器", _I), ("address",)),
    (lazy_compile(r"几点|什么时间|时间"), ("time",)),
    (lazy_compile(r"哪天|哪几天|什么时候|几号|几月|日期|时间"), ("date",)),
    (lazy_compile(r"在哪|哪里|哪儿|地点|什么地方"), ("place",)),
    (lazy_compile(r"多少钱|价格|价钱|房租|租金|费用|多少|成交价|交多少"), ("price",)),
    (lazy_compile(r"谁"), ("held_by",)),
]
_FAVOURITE_EN = lazy_compile(r"\bfavou?rite\s+(\w+)", _I)
_FAVOURITE_ZH = lazy_compile(r"最喜欢的?(\S{1,2}?)(?:是|叫|$)")
_HAN = lazy_compile(r"[\u4e00-\u9fff]")


# the value a subject had at the start ("What was Lucy's job when she joined?", 刚来的时候)
_AT_START = lazy_compile(
    r"\bwhen (?:he|she|they|i|you|we|\w+) (?:first )?(?:joined|started|arrived|came|began)\b|"
    r"\b(?:at first|at the start|in the beginning|first job|first role)\b|"
    r"刚来的时候|刚开始的时候|刚入职|刚加入|一开始|最开始|起初|最初",
    _I,
)
# how a value ended: what the question asks is the line that ended it ("Who did Ben sell his
# old car to?" -> "Sold the Civic to ...", "What happened to Kenji's hamster?", 卖了多少钱)
_ENDING = lazy_compile(
    r"\b(?:sell|sold|selling|died|die|dies|pass(?:ed)? away|happened to|break up|broke up|"
    r"split up|give away|gave away|get rid of|got rid of)\b|卖|分手|去世|死了|送人|送走|怎么了",
    _I,
)
# "What did Ben drive before he sold the Civic?" asks for the value, not how it ended
_BEFORE = lazy_compile(r"\bbefore\b|之前|以前", _I)


def asks_first(question: str) -> bool:
    """Whether a question asks for the value a subject had at the start (the first said)."""
    return bool(_AT_START.search(fold_question(question)))


def asks_ending(question: str) -> bool:
    """Whether a question asks how a value ended (sold, died, broke up, 卖了, 分手)."""
    folded = fold_question(question)
    return bool(_ENDING.search(folded)) and not _BEFORE.search(folded)


@dataclass(frozen=True, slots=True)
class AskedFact:
    """The subject a question asks about and the families it may mean, most likely first."""

    subject: str  # subject key
    name: str  # as the question says it
    attributes: tuple[str, ...]


def fold_question(question: str) -> str:
    """The question as the rules read it: Simplified, Cantonese forms as Mandarin."""
    return rules_zh.fold(to_simplified(question))


def asked_attributes(question: str) -> tuple[str, ...]:
    """The families a question's words ask for, most likely first (none: it names none)."""
    folded = fold_question(question)
    found: list[str] = []
    favourite = _FAVOURITE_EN.search(question)
    if favourite and favourite.group(1).casefold() in values_en.KINDS:
        found.append(f"favourite.{values_en.KINDS[favourite.group(1).casefold()]}")
    table = _ZH if _HAN.search(folded) else _EN
    for pattern, families in table:
        if pattern.search(folded):
            found += [f for f in families if f not in found]
    return tuple(found)


@lru_cache(maxsize=4096)
def _forms_of(shown: str) -> frozenset[str]:
    """A shown name's folded forms and aliases (cached: read for every subject per search)."""
    return frozenset(names_of(shown) | names_of(to_simplified(shown)))


_WORD = lazy_compile(r"[^\W_]+")  # "Mia's" is Mia and s; "O'Brien" is o brien on both sides
# a question's Latin-script words, also between Chinese characters ("以前Kai打什么球")
_LATIN_WORD = lazy_compile(r"[^\W_\u3400-\u9fff]+")


def _phrases(lowered: str) -> dict[str, int]:
    """Every run of one to four words of a question (Latin script), at its first place."""
    words = [(m.group(), m.start()) for m in _LATIN_WORD.finditer(lowered)]
    found: dict[str, int] = {}
    for i, (_word, at) in enumerate(words):
        for n in range(1, 5):
            if i + n <= len(words):
                found.setdefault(" ".join(w for w, _ in words[i : i + n]), at)
    return found


# "we" / 我们 / 大家 name the chat's own group in every question: read by family, not by name
GROUP_THINGS = frozenset({"thing:we", "thing:us", "thing:我们", "thing:咱们", "thing:大家"})
_STEM = lazy_compile(r"(?<=\w)(?:es|s)$")


def thing_named_at(lowered: str, key: str, shown: str) -> int | None:
    """Where a question names a thing (``model.thing_key``), or None: every Latin word of
    the thing's shown name as a word of the question (a plural or third-person "s" aside:
    "Who leads the mobile team?" names "mobile team lead"), its Chinese as characters."""
    if key in GROUP_THINGS:
        return None
    asked: dict[str, int] = {}
    for m in _LATIN_WORD.finditer(lowered):
        asked.setdefault(_STEM.sub("", m.group()), m.start())
    places: list[int] = []
    for word in _LATIN_WORD.findall(fold_question(thing_core(shown)).casefold()):
        at = asked.get(_STEM.sub("", word))
        if at is None:
            return None
        places.append(at)
    han = "".join(re.findall(r"[\u4e00-\u9fff]+", key))
    if han:
        at = lowered.replace(" ", "").find(han)
        if at < 0:
            return None
        places.append(at)
    return min(places, default=None)


def _named_at(lowered: str, phrases: dict[str, int], key: str, shown: str) -> int | None:
    """Where in the question a subject is named (by name, alias or relation), or None: a
    Latin-script name as whole words, a Chinese one as characters."""
    if key.startswith("thing:"):
        return thing_named_at(lowered, key, shown)
    forms = set(_forms_of(shown))
    relation = key.rpartition("/family.")[2] if "/family." in key else None
    if relation:
        forms |= {w for w, r in RELATIONS_EN.items() if r == relation}
        forms |= {w for w, r in RELATIONS_ZH.items() if r == relation}
    places: list[int] = []
    for form in forms:
        if _HAN.search(form):
            at = lowered.find(form)
            if at >= 0:
                places.append(at)
        elif " ".join(_WORD.findall(form)) in phrases:
            places.append(phrases[" ".join(_WORD.findall(form))])
    return min(places, default=None)


def asked_subjects(question: str, subjects: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(subject key, shown name) of every subject the question names, the first named first.
    ``subjects``: (key, shown name) pairs, such as ``Store.fact_subjects`` gives."""
    lowered = fold_question(question).casefold()
    phrases = _phrases(lowered)
    found: list[tuple[int, str, str]] = []
    for key, shown in subjects:
        at = _named_at(lowered, phrases, key, shown)
        if at is not None:
            found.append((at, key, shown))
    return [(key, shown) for _at, key, shown in sorted(found, key=lambda t: t[0])]


def asked_fact(question: str, subjects: Iterable[tuple[str, str]]) -> AskedFact | None:
    """The subject (the first named) and families a question asks for; None when it names no
    subject of ``subjects``. ``attributes`` is empty when its words name no family (a value
    it names may still tell: ``attribute_of_value``)."""
    named = asked_subjects(question, subjects)
    if not named:
        return None
    key, shown = named[0]
    return AskedFact(key, shown, asked_attributes(question))


def fact_of_value(question: str, facts: Sequence[Fact]) -> Fact | None:
    """The fact whose value the question names ("Is Ann still at Initech?" -> Ann's
    works_at Initech), the longest value named (the latest said of equals); None when it
    names none."""
    folded = value_key(fold_question(question))
    best: tuple[int, float, Fact] | None = None
    for fact in facts:
        if not fact.value:
            continue
        key = value_key(fold_question(fact.value))
        rank = (len(key), fact.said_at)
        if len(key) >= 2 and key in folded and (best is None or rank > best[:2]):
            best = (len(key), fact.said_at, fact)
    return best[2] if best else None


def attribute_of_value(question: str, facts: Sequence[Fact]) -> str | None:
    """The attribute of the fact whose value the question names (``fact_of_value``)."""
    named = fact_of_value(question, facts)
    return named.attribute if named else None


_WORD_EN = lazy_compile(r"[a-z]{3,}")
_DATE = lazy_compile(r"\s*\(\d{4}-\d{2}-\d{2}\)$")
_STOPWORDS = frozenset({"the", "and", "for", "now", "when", "what", "does", "did", "was", "our"})


def _words(text: str) -> set[str]:
    """A text's words for matching a plan: English words of 3+ letters, Chinese pairs."""
    folded = fold_question(text).casefold()
    words = set(_WORD_EN.findall(folded)) - _STOPWORDS
    for run in re.findall(r"[\u4e00-\u9fff]+", folded):
        words |= {run[i : i + 2] for i in range(len(run) - 1)}
    return words


def plans_named(question: str, plans: Sequence[Fact], least: int = 1) -> list[Fact]:
    """The plans that share at least ``least`` of the question's words ("When is Dad's knee
    surgery?" -> "knee surgery (2026-03-18)", "surgery (2026-04-22)"), not the subject's
    other plans."""
    asked = _words(question)
    return [p for p in plans if p.value and len(_words(_DATE.sub("", p.value)) & asked) >= least]
