"""People's names without an LLM: the aliases a speaker label is called by, and which labels a
query names.

A Chinese label (王小明, 赵磊, 许静怡) is called by its given name (小明), 老/小 + surname
(老赵), 阿 + a given-name character (阿静), a doubled given-name character (东东), and by the
pinyin of any of these without tones, joined or spaced ("Xiaoming", "Lao Zhao", "Wang
Xiaoming", "Jingyi"); a single pinyin syllable ("Dong") counts only written with a capital
inside the query, since many syllables are English words ("long", "fan"). A Latin label
("Daniel Tan", "Caroline") is matched case-folded, and by its first word. An alias that two
labels of the store share names neither.

People also say what they are called: "我是 Tina", "I'm Kelvin, 香港人", "英文名 Ethan". Such a
self-introduction (``introduced_names``) gives its speaker's label one more alias, so an
English question about Tina finds 周婷婷's lines.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from remem.text.lazy_re import lazy_compile

# The most common single surnames (they make up most of China's population) and the compound
# ones: a label is taken apart into surname + given name only when it starts with one.
_SURNAMES = set(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶"
    "程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾"
    "毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰"
    "焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲"
    "房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全"
    "佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝"
)
_COMPOUND = {
    "欧阳",
    "司马",
    "诸葛",
    "上官",
    "东方",
    "皇甫",
    "尉迟",
    "公孙",
    "慕容",
    "令狐",
    "司徒",
    "夏侯",
}
_DIMINUTIVE = set("小晓老阿")


def surname_characters() -> frozenset[str]:
    """The common single-character surnames this module knows."""
    return frozenset(_SURNAMES)


_HAN_ANY = lazy_compile(r"[\u4e00-\u9fff]")
_HAN = lazy_compile(r"^[\u4e00-\u9fff]+$")
_LATIN = lazy_compile(r"^[A-Za-z][A-Za-z .'\-]*$")


@dataclass(frozen=True, slots=True)
class Alias:
    text: str  # case-folded; pinyin aliases are ASCII with single spaces
    latin: bool  # matched on word boundaries (else as a substring: Chinese)
    capital: bool = False  # only a capitalised occurrence counts (single pinyin syllables)


def _split(label: str) -> tuple[str, str] | None:
    """(surname, given name) of a Chinese personal name, None when it does not look like one."""
    if len(label) >= 3 and label[:2] in _COMPOUND:
        return label[:2], label[2:]
    if len(label) in (2, 3) and label[0] in _SURNAMES:
        return label[0], label[1:]
    return None


def _pinyin(han: str) -> list[str]:
    from pypinyin import lazy_pinyin  # imported on first use: ~0.2 s

    return [s.lower() for s in lazy_pinyin(han)]


def _romanised(syllables: list[str]) -> set[str]:
    """ "xiaoming" and "xiao ming" for a name's syllables."""
    return {"".join(syllables), " ".join(syllables)}


@lru_cache(maxsize=4096)
def aliases(label: str) -> frozenset[Alias]:
    """Every form a speaker label may be called by in a question (the label included)."""
    label = label.strip()
    if not label:
        return frozenset()
    if _LATIN.match(label):
        folded = " ".join(label.casefold().split())
        out = {Alias(folded, True)}
        first = folded.split(" ")[0]
        if len(first) >= 3:
            out.add(Alias(first, True))
        return frozenset(out)
    if not _HAN.match(label):
        return frozenset({Alias(label.casefold(), False)})
    out = {Alias(label, False)}
    out |= {Alias(r, True) for r in _romanised(_pinyin(label))}
    parts = _split(label)
    if parts is None:
        return frozenset(out)
    surname, given = parts
    sur_py, given_py = "".join(_pinyin(surname)), _pinyin(given)
    han_forms = {"老" + surname: ["lao", sur_py], "小" + surname: ["xiao", sur_py]}
    if len(given) >= 2:
        han_forms[given] = given_py
    for ch, py in zip(given, given_py, strict=True):
        if ch in _DIMINUTIVE:
            continue  # 王小明 is not 阿小 or 小小
        han_forms["阿" + ch] = ["a", py]
        han_forms[ch + ch] = [py, py]
        if len(given) >= 2:
            out.add(Alias(py, True, capital=True))
    for han, syllables in han_forms.items():
        out.add(Alias(han, False))
        out |= {Alias(r, True) for r in _romanised(syllables)}
    given_joined = "".join(given_py)
    out |= {Alias(f"{given_joined} {sur_py}", True), Alias(f"{sur_py} {given_joined}", True)}
    return frozenset(out)


# A Latin name as people write their own: "Tina", "Ho Ka-ho", "Anna Lee" (up to three words).
_NAME = r"[A-Z][a-z]+(?:[-'][A-Za-z]+)?(?: [A-Z][a-z]+(?:[-'][A-Za-z]+)?){0,2}"
# After the name the line or the clause ends ("我是 Tina", "I'm Kelvin, 香港人"), or a particle
# follows ("我是 Tina 呀"). "我是 Leo 的朋友" is someone else's name, "I'm So tired" no name, and a
# title is no introduction ('**I Am Legend** (2007)'). After 叫我 / 我叫 only "just call me"
# words may follow ("叫我 Tina 就好"; "我叫Uber了" ordered a car), after 英文名 anything but 的.
_PARTICLES = "呀啊啦喔哦吧嘛哈"
_CLOSE = rf"$|[^\w\s'’\-*\"”]|\[|[{_PARTICLES}]"
_ENDS = rf"(?=\s*(?:{_CLOSE}))"
_CALLED_ENDS = rf"(?=\s*(?:{_CLOSE}|就好|就行|就可以|好了))"
_GOES_ON = rf"(?=\s*(?:{_CLOSE}|(?!的)[\u4e00-\u9fff]))"
# The English words people introduce themselves with, as written (case-sensitive, one space
# before the name); INTRODUCTION_PATTERNS covers each.
_EN_TRIGGERS = (
    *("I'm", "I’m", "i'm", "i’m", "Im", "im", "I'M", "I’M", "IM"),
    *("I am", "i am", "I AM", "I go by", "i go by", "call me", "Call me"),
    *(f"{my} name{is_}" for my in ("my", "My") for is_ in (" is", "'s", "’s")),
)
_INTRODUCTIONS = (
    lazy_compile(rf"(?:我是(?:群主|新人|新来的|管理员|群管|老师)?|我係)\s*({_NAME}){_ENDS}"),
    lazy_compile(rf"(?:叫我|我叫)\s*({_NAME}){_CALLED_ENDS}"),
    lazy_compile(rf"英文名(?:字)?(?:是|叫)?\s*({_NAME}){_GOES_ON}"),
    lazy_compile(
        r"(?<![*\"“])\b(?:" + "|".join(map(re.escape, _EN_TRIGGERS)) + rf") ({_NAME}){_ENDS}"
    ),
)
# Capitalised words that follow "I'm" without being a name ("I'm Back!", "I am Not Sure.");
# any word of a name found is checked, and so are words in -ing ("I'm Coming!").
_NOT_NAMES = frozenset(
    re.findall(
        r"\w+",
        """back here home fine good great ok okay sorry sure done ready in out on off free busy
    tired late new so not just also very still really too always never almost all only there
    happy sad glad proud grateful excited hungry alive thanks thank lost sick right wrong
    serious nervous scared afraid bored stuck retired married single curious interested
    the a an no yes your my chinese english american british french german japanese korean
    canadian australian indian thai malaysian singaporean""",
    )
)
# The lines a store is asked for before ``introduced_names`` reads them (the store's portable
# patterns: "%" any characters, "[A-Z]" a capital): a capitalised Latin word after the end of
# a trigger word, a few patterns covering them all ("m " ends "I'm", "im", "I am"; "M " ends
# "I'M", "I AM"): the scan's cost grows with their number (27 exact ones took 0.76 s at 100k
# records in SQLite, these ten 0.13 s), the regex then reads the few lines found.
INTRODUCTION_PATTERNS = (
    *(f"%{w}%[A-Z]%" for w in ("我是", "我係", "叫我", "我叫", "英文名")),
    *("%m [A-Z]%", "%M [A-Z]%", "%name%[A-Z]%", "%all me [A-Z]%", "%go by [A-Z]%"),
)


def _is_name(name: str) -> bool:
    words = name.casefold().split()
    return not any(w in _NOT_NAMES or (len(w) >= 5 and w.endswith("ing")) for w in words)


def introduced_names(text: str) -> list[str]:
    """The Latin names the writer of ``text`` says they are called by, in order."""
    found: list[str] = []
    for pattern in _INTRODUCTIONS:
        for match in pattern.finditer(text):
            name = match.group(1)
            if _is_name(name) and name not in found:
                found.append(name)
    return found


def alias_table(
    labels: Iterable[str], introduced: Mapping[str, Iterable[str]] | None = None
) -> dict[Alias, str]:
    """Alias -> the one label it names. A label's own text names that label; any other alias
    text two labels share (whatever its case rule) is left out. ``introduced``: label -> the
    names its speaker introduced themselves by (``introduced_names``), each one more alias of
    that label; a one-word name counts only capitalised in a question, as written ("Sunny",
    not "a sunny day")."""
    owners: dict[tuple[str, bool], set[str]] = defaultdict(set)
    forms: dict[tuple[str, bool], set[Alias]] = defaultdict(set)
    exact: dict[str, str] = {}

    def own(alias: Alias, label: str) -> None:
        owners[alias.text, alias.latin].add(label)
        forms[alias.text, alias.latin].add(alias)

    for label in dict.fromkeys(labels):
        if label and label.strip():
            exact[label.strip().casefold()] = label
            for alias in aliases(label):
                own(alias, label)
    known = set(exact.values())
    for label, names in (introduced or {}).items():
        if label in known:
            for name in names:
                text = " ".join(name.casefold().split())
                own(Alias(text, True, capital=" " not in text), label)
    table: dict[Alias, str] = {}
    for key, owner in owners.items():
        named = exact.get(key[0]) or (next(iter(owner)) if len(owner) == 1 else None)
        if named is not None:
            table.update(dict.fromkeys(forms[key], named))
    return table


class NameIndex:
    """An alias table indexed for lookup: finding the names in a query costs a few dict
    lookups per word or character, whatever the number of speakers."""

    def __init__(self, table: dict[Alias, str]) -> None:
        self.table = table
        self.latin: dict[str, list[Alias]] = defaultdict(list)  # keyed without spaces
        self.han: dict[str, Alias] = {}
        for alias in table:
            if alias.latin:
                self.latin[alias.text.replace(" ", "")].append(alias)
            else:
                self.han[alias.text] = alias
        self.longest = max((len(t) for t in self.han), default=0)


_WORD = lazy_compile(r"[A-Za-z]+")
_JOINER = lazy_compile(r"[\s\-]*")


def _latin_spans(query: str, index: NameIndex) -> Iterable[tuple[int, int, Alias]]:
    """Runs of up to four words (joined by spaces or hyphens, or none) that are an alias."""
    words = list(_WORD.finditer(query))
    opens_question = not _HAN_ANY.search(query)  # a capital first in English proves nothing
    for i, first in enumerate(words):
        key = ""
        for j in range(i, min(i + 4, len(words))):
            if j > i and not _JOINER.fullmatch(query, words[j - 1].end(), words[j].start()):
                break
            key += words[j].group().casefold()
            for alias in index.latin.get(key, ()):
                if alias.capital and (
                    j > i
                    or first.group() != alias.text.capitalize()
                    or (opens_question and not query[: first.start()].strip())
                ):
                    continue
                yield first.start(), words[j].end(), alias


def _han_spans(query: str, index: NameIndex) -> Iterable[tuple[int, int, Alias]]:
    folded = query.casefold()
    for i in range(len(folded)):
        for n in range(1, index.longest + 1):
            alias = index.han.get(folded[i : i + n])
            if alias is not None:
                yield i, i + n, alias


def find_names(query: str, table: dict[Alias, str] | NameIndex) -> dict[str, str]:
    """Label -> the alias the query calls it by, longest aliases first (a span is claimed
    once: 王小明 in a query names 王小明, not also the 小明 inside it)."""
    index = table if isinstance(table, NameIndex) else NameIndex(table)
    spans = sorted(
        [*_latin_spans(query, index), *_han_spans(query, index)],
        key=lambda s: (s[0] - s[1], s[2].text, s[0]),
    )
    taken: list[tuple[int, int]] = []
    found: dict[str, str] = {}
    for start, end, alias in spans:
        if any(start < e and s < end for s, e in taken):
            continue
        taken.append((start, end))
        found.setdefault(index.table[alias], alias.text)
    return found
