"""Recall gives a memory about someone only to them, or to a question that names them.

"Where do I live" from Bob, or from a caller with no user, must never receive Ann's "I live in
Paris." (issue 48): first-person memories belong to their speaker (``remem.memories.subjects``).
"Where does Ann live?" may receive it, within the scopes the caller can read: the question
names her.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from remem.facts.model import speaker_subject
from remem.memories.subjects import owner_of
from remem.text.normalize import to_simplified
from remem.types import Hit


def _fold(text: str) -> str:
    return to_simplified(unicodedata.normalize("NFKC", text)).casefold()


def names(question: str, name: str) -> bool:
    """Whether the question names this person: as a word in Latin script, as written in
    Chinese (where words are not spaced)."""
    folded, wanted = _fold(question), _fold(name).strip()
    if not wanted:
        return False
    if wanted.isascii():
        return re.search(rf"(?<![\w]){re.escape(wanted)}(?![\w])", folded) is not None
    return wanted in folded


def for_asker(hits: Sequence[Hit], question: str, asker: str | None) -> list[Hit]:
    """The hits the asker may be told: nobody's own, their own, or about someone the
    question names."""
    mine = speaker_subject(asker) if asker else None
    kept = []
    for hit in hits:
        owner = owner_of(hit.record)
        if owner is None or owner[0] == mine or names(question, owner[1]):
            kept.append(hit)
    return kept
