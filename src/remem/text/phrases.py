"""One kind of phrase (a hedge, a memory cue, a hypothetical ...) in each language a sentence
may be written in, searched the way every detector in ``remem.text`` searches it: the English
pattern and the Japanese / Korean ones in the text as written, the Chinese one in the text
folded to Simplified (Traditional and Cantonese written forms are folded first).

The detectors used to write each kind as two to four module constants and a function that
tried them one by one (``_EN_X.search(text) or _ZH_X.search(to_simplified(text))``); a
``Phrases`` holds the patterns of one kind and is searched once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified


@dataclass(frozen=True)
class Phrases:
    """The patterns of one kind of phrase: ``english`` and ``others`` (Japanese, Korean) are
    searched in the text as it is, ``chinese`` in the text folded to Simplified."""

    english: re.Pattern[str]
    chinese: re.Pattern[str]
    others: tuple[re.Pattern[str], ...] = ()

    def search(self, text: str, simplified: str | None = None) -> bool:
        """Whether any language's pattern occurs in ``text`` (``simplified``: the text
        already folded, when the caller has it)."""
        if self.english.search(text) or any(p.search(text) for p in self.others):
            return True
        return bool(self.chinese.search(to_simplified(text) if simplified is None else simplified))


def phrases(en: str, zh: str, *others: str, en_flags: int = re.I) -> Phrases:
    """A kind of phrase from its English pattern (``en_flags``: any case unless told
    otherwise), its Chinese one and any others searched as written (Japanese, Korean)."""
    return Phrases(
        lazy_compile(en, en_flags), lazy_compile(zh), tuple(lazy_compile(p) for p in others)
    )
