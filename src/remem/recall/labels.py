"""Speaker labels that cannot pass for the bot or the system.

A recalled line is labelled with its speaker's display name, which the speaker chose. A user
who calls themselves "Assistant (you)", "system" or the bot's own name would otherwise
render exactly like the bot's own lines (labelled ``Assistant (you)``) or a system line, and
the model would read their words as its own. So a name is compared with the words that name
the bot or the system after folding what a reader (or a tokenizer) hardly sees: case, width,
invisible characters (zero-width spaces, joiners), accents, spacing and punctuation,
and letters from other scripts that look alike (Unicode's confusables, via the
``confusables`` package). A name that reads as one of them is shown as a user's name
(``user named "system"``), so only real assistant lines read as the bot's.

Every label part also loses the characters that give a label its structure (``[``, ``]``
and ``/``), so a name cannot close its own label and start a forged one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

# The words the block itself uses for the bot and for system lines, and the chat roles. Latin
# words match as whole words ("system admin" does, "ecosystem" does not); Chinese ones
# anywhere in the name (spacing and punctuation between the characters do not help).
RESERVED_WORDS: tuple[str, ...] = ("assistant", "system", "developer", "notice", "you")
RESERVED_CJK: tuple[str, ...] = ("助手", "你自己", "通知", "系统", "系統")

_USER_NAMED = {"en": 'user named "{}"', "zh": "用户「{}」"}
# One character per structural one: brackets close or open a label, '/' separates its parts.
_STRUCTURE = str.maketrans({"[": "(", "]": ")", "/": "∕", "［": "(", "］": ")", "／": "∕"})
_PAD = r"[\W_]*"  # spacing and punctuation a name may put between the letters


def _visible(text: str) -> str:
    """The text without what a reader does not see: control and format characters (zero-width
    spaces and joiners, bidi marks)."""
    return "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf"))


def _folded(text: str) -> str:
    """What a name is compared by: compatibility forms folded (width, ligatures, styled
    letters), invisible characters and combining marks dropped, case folded."""
    decomposed = unicodedata.normalize("NFKD", _visible(text))
    bare = "".join(ch for ch in decomposed if unicodedata.category(ch) not in ("Mn", "Me"))
    return unicodedata.normalize("NFKC", bare).casefold()


def _is_cjk(word: str) -> bool:
    return any(unicodedata.name(ch, "").startswith("CJK") for ch in word)


@lru_cache(maxsize=256)
def _pattern(word: str) -> re.Pattern[str]:
    """A pattern for ``word`` and every spelling that looks like it: a whole word for Latin
    words, anywhere for Chinese ones (which have no spaces between words)."""
    from confusables import confusable_characters  # loads Unicode's table: only when needed

    parts = []
    for ch in word:
        variants = {ch, ch.upper(), *(confusable_characters(ch) or [])}
        alternatives = sorted(variants, key=len, reverse=True)  # longest first ("rn" for "m")
        parts.append("(?:" + "|".join(re.escape(v) for v in alternatives) + ")")
    body = _PAD.join(parts)
    if _is_cjk(word):
        return re.compile(body)
    return re.compile(r"(?<![^\W_])" + body + r"(?![^\W_])", re.IGNORECASE)


def claims_reserved(name: str, bot_names: Iterable[str] = ()) -> bool:
    """Whether ``name`` reads as the bot, the system, a role word or one of ``bot_names``."""
    folded = _folded(name)
    if not folded:
        return False
    words = [*RESERVED_WORDS, *RESERVED_CJK, *(_folded(b).strip() for b in bot_names)]
    return any(w and _pattern(w).search(folded) for w in words)


def label_part(text: str) -> str:
    """One part of a label (platform, place, speaker), unable to forge another label."""
    return _visible(text).translate(_STRUCTURE)


def speaker_name(
    name: str, *, language: str = "en", bot_names: Iterable[str] = (), role: str | None = None
) -> str:
    """The speaker part of a label for somebody other than the bot: the name, or, when it
    reads as the bot or the system, marked as a user's name. A real system line (``role``
    "system") may say "system"."""
    shown = label_part(name)
    if role == "system" and _folded(name) == "system":
        return shown
    if claims_reserved(name, bot_names):
        quoted = shown.replace('"', "'")
        return _USER_NAMED.get(language, _USER_NAMED["en"]).format(quoted)
    return shown
