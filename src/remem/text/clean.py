"""Strip what a host wraps around a user's words before capture or auto-recall sees them.

Chat hosts prepend metadata to the text an LLM receives: conversation-info and sender-metadata
blocks, ``[cron:...]`` tags, timestamp prefixes, role prefixes ("User: ..."). And remem itself
injects memory blocks (``<relevant-memories>``, ``<remem-memory>``): what remem injected must
never be captured again, or a memory would breed copies of itself. Capture and auto-recall run
the same function, so a query and a stored memory are normalised alike.
"""

from __future__ import annotations

import re

# Blocks remem (or a compatible plugin) injects; their whole content goes.
_INJECTED = re.compile(
    r"<(relevant-memories|remem-memory|memories|memory-context)\b[^>]*>.*?</\1\s*>",
    re.S | re.I,
)
# An opened but never closed injected block (cut by a length limit): drop to the end.
_INJECTED_OPEN = re.compile(r"<(relevant-memories|remem-memory)\b[^>]*>.*\Z", re.S | re.I)
# Host metadata blocks: fenced or tagged "conversation info" / "sender metadata".
_META_TAGGED = re.compile(
    r"<(conversation[-_ ]info|sender[-_ ]metadata|sender[-_ ]info|message[-_ ]metadata|"
    r"system[-_ ]reminder)\b[^>]*>.*?</\1\s*>",
    re.S | re.I,
)
_META_FENCED = re.compile(
    r"^[ \t]*(conversation info|sender metadata|sender info|message metadata)"
    r"[^\n]*:?[ \t]*\n```[^\n]*\n.*?\n```[ \t]*\n?",
    re.S | re.I | re.M,
)
_META_HEADED = re.compile(
    r"^\[(conversation info|sender metadata|sender info|message metadata)[^\]]*\][^\n]*\n?",
    re.I | re.M,
)
_CRON = re.compile(r"\[cron:[^\]]*\]\s*", re.I)
# "[2026-11-30 10:15]", "[10:15:02]", "2026-11-30T10:15:00Z " at the start of a line
_TIMESTAMP = re.compile(
    r"^[ \t]*(\[\s*\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(:\d{2})?[^\]]*\]|"
    r"\[\s*\d{1,2}:\d{2}(:\d{2})?\s*\]|\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:?\d{2})?)"
    r"[ \t]*",
    re.M,
)
_ROLE = re.compile(
    r"^[ \t]*(user|human|assistant|ai|bot|system|用户|助手|系统)[ \t]*[:：][ \t]*", re.I | re.M
)


def strip_wrappers(text: str) -> str:
    """The words a person wrote, without host metadata or injected memory blocks."""
    out = _INJECTED.sub(" ", text)
    out = _INJECTED_OPEN.sub(" ", out)
    out = _META_TAGGED.sub(" ", out)
    out = _META_FENCED.sub("", out)
    out = _META_HEADED.sub("", out)
    out = _CRON.sub("", out)
    for _ in range(2):  # "[10:15] User: ..." and "User: [10:15] ..."
        out = _TIMESTAMP.sub("", out)
        out = _ROLE.sub("", out)
    lines = [line.strip() for line in out.splitlines()]
    return "\n".join(line for line in lines if line).strip()
