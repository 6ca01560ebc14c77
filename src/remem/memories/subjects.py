"""Whose fact a curated memory is: "I live in Paris." captured for Ann is Ann's, not the bot's.

A memory a user states in the first person is about that user: it carries ``about``
(``speaker:<user id>``, the subject key of the fact layer) and ``about_name`` in its metadata,
and goes by default to the user's own scope when the caller may write there
(``user:<id>``, see ``remem.access``). Recall (``remem.recall.subjects``) then gives it only
to that user, or to a question that names them ("where does Ann live").

A memory stored before subjects were recorded is read the same way: a user's first-person
memory with a ``speaker_id`` is about that speaker.
"""

from __future__ import annotations

import re
from typing import Any

from remem.access import Access
from remem.facts.model import speaker_subject
from remem.types import Record

# "I" is first person only as a capital; "me", "my", "mine" in any case; 我 but not 我们 ("we")
_EN_FIRST = re.compile(r"(?-i:\bI\b)|\b(me|my|mine|myself)\b|\bI'(m|ve|d|ll)\b", re.I)
_ZH_FIRST = re.compile(r"我(?!们|們)")


def first_person(text: str) -> bool:
    """Whether the text speaks of its speaker ("I live in Paris", "我住在巴黎")."""
    return bool(_EN_FIRST.search(text) or _ZH_FIRST.search(text))


def about(
    text: str, role: str | None, speaker_id: str | None, speaker_label: str | None = None
) -> dict[str, Any]:
    """The ``about`` metadata of a new memory: the user it is about, when a known user states
    it in the first person; empty otherwise (the assistant's words, third person, no user)."""
    if role != "user" or not speaker_id or not first_person(text):
        return {}
    return {"about": speaker_subject(speaker_id), "about_name": speaker_label or speaker_id}


def owner_of(record: Record) -> tuple[str, str] | None:
    """(subject key, name) of the person a memory is about, or None when it is nobody's own."""
    meta = record.metadata or {}
    key = meta.get("about")
    if isinstance(key, str) and key:
        name = meta.get("about_name")
        return key, name if isinstance(name, str) and name else key.partition(":")[2]
    said = record.kind == "memory" and record.role == "user" and bool(record.speaker_id)
    if said and record.speaker_id and first_person(record.text):
        return speaker_subject(record.speaker_id), record.speaker_label or record.speaker_id
    return None


def user_scope(access: Access, text: str, role: str | None, speaker_id: str | None) -> str:
    """Where a new memory goes: the calling user's first-person statement to that user's
    scope when the caller may write it, anything else to the caller's write scope."""
    user = access.user
    mine = user is not None and speaker_id == user and role == "user" and first_person(text)
    if mine and access.can_write(f"user:{user}"):
        return f"user:{user}"
    return access.write_scope
