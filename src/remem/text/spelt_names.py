"""Chinese people's names an English question spells in pinyin: "Chen Mo" -> 陈默.

Speaker aliases (``names.py``) cover the people who write in a chat; a question may also name
someone they write about ("Where did Chen Mo propose to Jingyi?", the chat saying 陈默求婚了).
A surname and a given name written apart are taken apart into syllables, each syllable into
the common characters read so (GB2312's 6,763), and the store decides which of them it holds:
the name is built one character at a time, each step kept only where the store's keyword index
holds the two-character pair it ends with (the index holds every such pair of a Chinese line).
So no dictionary of names is needed, and a spelling nobody in the store wears finds nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache

from remem.text.lazy_re import lazy_compile
from remem.text.names import surname_characters

MAX_GIVEN_SYLLABLES = 2  # Chinese given names have one or two characters
MAX_SYLLABLE_LETTERS = 6  # "zhuang", the longest pinyin syllable
MAX_NAMES = 4  # "Surname Given" pairs read per question
MAX_PREFIXES = 3  # partial names grown a further character (those the store holds most)

# Two capitalised words: a surname, then a given name ("Chen Mo", "Xu Jingyi"). In a lookahead,
# so "Did Chen Mo ..." tries "Chen Mo" after "Did Chen"; a possessive 's is dropped first.
_SURNAME_GIVEN = lazy_compile(r"(?<![A-Za-z'-])(?=([A-Z][a-z]+) ([A-Z][a-z]+)(?![A-Za-z'-]))")
_POSSESSIVE = lazy_compile(r"(?<=[A-Za-z])['’]s\b")


def drop_possessives(text: str) -> str:
    """ "Niangao's bowl" -> "Niangao bowl": a name keeps its form before an 's."""
    return _POSSESSIVE.sub("", text)


@lru_cache(maxsize=1)
def _syllable_characters() -> dict[str, tuple[str, ...]]:
    """Toneless pinyin syllable -> the GB2312 characters read so (every reading of each)."""
    from pypinyin import Style, pinyin  # imported on first use
    from pypinyin.pinyin_dict import pinyin_dict

    out: dict[str, list[str]] = {}
    for code in pinyin_dict:
        ch = chr(code)
        try:
            if len(ch.encode("gb2312")) != 2:
                continue
        except UnicodeEncodeError:
            continue
        for reading in pinyin(ch, style=Style.NORMAL, heteronym=True)[0]:
            if reading.isascii() and reading.isalpha():
                out.setdefault(reading, []).append(ch)
    return {reading: tuple(chars) for reading, chars in out.items()}


@lru_cache(maxsize=1)
def _surnames_by_reading() -> dict[str, tuple[str, ...]]:
    """Toneless pinyin -> the common surnames read so as names usually are ("chen" -> 陈;
    沈 is "shen", 方 "fang", whatever else they read as)."""
    from pypinyin import Style, lazy_pinyin

    out: dict[str, list[str]] = {}
    for ch in sorted(surname_characters()):
        out.setdefault(lazy_pinyin(ch, style=Style.NORMAL)[0], []).append(ch)
    return {reading: tuple(chars) for reading, chars in out.items()}


def syllables(word: str) -> list[str] | None:
    """A lower-case Latin word as pinyin syllables ("jingyi" -> jing, yi), the longest first
    syllable that lets the rest split too; None when it does not split."""
    known = _syllable_characters()
    if len(word) > MAX_SYLLABLE_LETTERS * MAX_GIVEN_SYLLABLES:
        return None  # longer than any given name (and a bound on the recursion below)

    @cache
    def split(start: int) -> tuple[str, ...] | None:
        if start == len(word):
            return ()
        for end in range(min(len(word), start + 6), start, -1):
            if word[start:end] in known:
                rest = split(end)
                if rest is not None:
                    return (word[start:end], *rest)
        return None

    found = split(0)
    return list(found) if found else None


def spelt_names(
    query: str,
    held: Callable[[list[str]], dict[str, int]],
    is_english: Callable[[str], bool] = lambda _: False,
) -> list[str]:
    """The Chinese names ``query`` spells as "Surname Given" that the store holds. ``held``:
    keyword tokens -> how many records hold each (the store's term counts); ``is_english``
    leaves out pairs that are English words ("Hong Kong")."""
    query = drop_possessives(query)
    pairs = dict.fromkeys(m.groups() for m in _SURNAME_GIVEN.finditer(query))
    out: list[str] = []
    for surname, given in list(pairs)[:MAX_NAMES]:
        if is_english(f"{surname} {given}".lower()):
            continue
        first = _surnames_by_reading().get(surname.lower())
        parts = syllables(given.lower())
        if not first or not parts or len(parts) > MAX_GIVEN_SYLLABLES:
            continue
        out += [name for name in _grown(list(first), parts, held) if name not in out]
    return out


def _grown(
    names: list[str], parts: list[str], held: Callable[[list[str]], dict[str, int]]
) -> list[str]:
    """``names`` grown by a character per syllable, each step kept where the store holds the
    pair of characters it ends with (the most held first)."""
    for syllable in parts:
        chars = _syllable_characters().get(syllable, ())
        counts = held(sorted({name[-1] + ch for name in names for ch in chars}))
        grown = [(counts.get(name[-1] + ch, 0), name + ch) for name in names for ch in chars]
        grown.sort(key=lambda h: (-h[0], h[1]))
        names = [name for count, name in grown if count][:MAX_PREFIXES]
        if not names:
            return []
    return names
