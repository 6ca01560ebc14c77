"""Names in a text without a model: the capitalised Latin words and phrases that are not
just a sentence's first word (what the link channel, ``search/links.py``, links hits by)."""

from __future__ import annotations

import re

from remem.text.tokenize import ENGLISH_STOPWORDS

# A run of capitalised Latin words ("Point Reyes", "LGBTQ", "Mini 4 Pro"); the look-behind,
# not \b, so a name written straight after Chinese characters counts too.
_WORD = r"[A-Z][A-Za-z0-9'’\-]*"
_NAME = re.compile(rf"(?<![A-Za-z0-9'’]){_WORD}(?:[ ]+(?:{_WORD}|\d+))*")
_SENTENCE_END = tuple(".!?。！？:：;；\n\"“”'(（[—-")
# Capitalised because they open a sentence, not because they name something.
# fmt: off
_OPENERS = frozenset([
    "hey", "hi", "hello", "wow", "oh", "ok", "okay", "yes", "yeah", "yep", "no", "nope",
    "thanks", "thank", "sure", "well", "so", "yay", "haha", "lol", "great", "cool", "nice",
    "awesome", "sounds", "glad", "good", "sorry", "congrats", "congratulations",
    "absolutely", "definitely", "totally", "really", "also", "just", "maybe", "anyway",
    "btw", "what", "how", "why", "when", "where", "who", "which", "do", "does", "did",
    "can", "could", "would", "should", "will", "have", "has", "had", "let",
])
# Capitalised, but a time, not a thing two records can share (the time intent stage's job).
_TIMES = frozenset([
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday",
    "friday", "saturday", "sunday", "today", "tomorrow", "yesterday",
])
# fmt: on


def salient_names(text: str) -> list[str]:
    """The capitalised Latin names in a text. A sentence's first word alone is not one (its
    capital says where the sentence starts: "Since", "Check", "Best" linked LoCoMo turns at
    random); a longer run opened by a stop word, an interjection or a contraction ("I'm")
    loses that word."""
    names = []
    for match in _NAME.finditer(text):
        words = match.group().split()
        before = text[: match.start()].rstrip()
        if not before or before.endswith(_SENTENCE_END):
            if len(words) == 1:
                continue
            first = words[0].casefold()
            if first in ENGLISH_STOPWORDS or first in _OPENERS or "'" in first or "’" in first:
                words = words[1:]
        if words:  # a possessive is the name: "Scout's" -> "Scout"
            words[-1] = re.sub(r"['’]s$", "", words[-1])
        words = [w for w in words if w not in ("I", "I'm", "I’m", "I've", "I'll", "I'd")]
        while words and words[-1].isdigit():  # "Sweden 4 years ago": the name is "Sweden"
            words.pop()
        if len(words) == 1 and words[0].casefold() in _TIMES:
            continue
        if words:
            names.append(" ".join(words))
    return list(dict.fromkeys(names))
