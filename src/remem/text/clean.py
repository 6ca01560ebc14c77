"""Strip what a host wraps around a user's words before capture or auto-recall sees them.

Chat hosts prepend metadata to the text an LLM receives: conversation-info, sender and
replied-message blocks (OpenClaw's "… (untrusted metadata):" headers over a fenced JSON block),
``[cron:...]`` tags, ``[[reply_to_current]]`` directives, timestamp and channel envelopes
("[Mon 2026-01-05 10:00 GMT+8]"), role prefixes ("User: ..."). And remem itself
injects memory blocks (``<relevant-memories>``, ``<remem-memory>``): what remem injected must
never be captured again, or a memory would breed copies of itself. Capture and auto-recall run
the same function, so a query and a stored memory are normalised alike.
"""

from __future__ import annotations

import re

from remem.text.lazy_re import lazy_compile

# Blocks remem (or a compatible plugin) injects; their whole content goes.
_INJECTED = lazy_compile(
    r"<(relevant-memories|remem-memory|memories|memory-context)\b[^>]*>.*?</\1\s*>",
    re.S | re.I,
)
# An opened but never closed injected block (cut by a length limit): drop to the end.
_INJECTED_OPEN = lazy_compile(r"<(relevant-memories|remem-memory)\b[^>]*>.*\Z", re.S | re.I)
# Host metadata blocks: tagged, or a header line followed by a fenced block. OpenClaw's headers
# all end in "(untrusted …):" ("Conversation info (untrusted metadata):", "Sender (untrusted
# metadata):", "Replied message (untrusted, for context):", "Chat history since last reply
# (untrusted, for context):" ...), each followed by a ```json fence.
_META_TAGGED = lazy_compile(
    r"<(conversation[-_ ]info|sender[-_ ]metadata|sender[-_ ]info|message[-_ ]metadata|"
    r"system[-_ ]reminder)\b[^>]*>.*?</\1\s*>",
    re.S | re.I,
)
_UNTRUSTED_HEAD = r"[^\n`]{1,100}\(untrusted[^)\n]*\):"
_META_FENCED = lazy_compile(
    rf"^[ \t]*({_UNTRUSTED_HEAD}|(conversation info|sender metadata|sender info|"
    r"message metadata)[^\n]*:?)[ \t]*\n```[^\n]*\n.*?\n```[ \t]*\n?",
    re.S | re.I | re.M,
)
# the same header with its value on the line ("Sender (untrusted metadata): webchat")
_META_INLINE = lazy_compile(rf"^[ \t]*{_UNTRUSTED_HEAD}[^\n]*\n?", re.I | re.M)
# OpenClaw appends external content under this header: it runs to the end of the message
_UNTRUSTED_TAIL = lazy_compile(
    r"^[ \t]*Untrusted context \(metadata[^\n]*\):.*\Z", re.S | re.I | re.M
)
_META_HEADED = lazy_compile(
    r"^\[(conversation info|sender metadata|sender info|message metadata)[^\]]*\][^\n]*\n?",
    re.I | re.M,
)
_CRON = lazy_compile(r"\[cron:[^\]]*\]\s*", re.I)
# reply and delivery directives: "[[reply_to_current]]", "[[reply_to:123]]"
_DIRECTIVE = lazy_compile(r"\[\[[a-z_]{3,40}(:[^\]\n]*)?\]\]\s*", re.I)
# host event lines: "System: [2026-04-11 19:36:15 GMT+10] Gateway restart ok"
_SYSTEM_EVENT = lazy_compile(r"^[ \t]*System:[ \t]*\[\d{4}-\d{2}-\d{2}[^\]\n]*\][^\n]*\n?", re.M)
# At the start of a line: a bracket holding a date and a time, alone or inside a channel
# envelope ("[2026-11-30 10:15]", "[Mon 2026-01-05 10:00 GMT+8]", "[Discord ann user id:42
# +23s Fri 2026-03-06 06:00 UTC]"); "[10:15:02]"; or a bare ISO timestamp.
_TIMESTAMP = lazy_compile(
    r"^[ \t]*(\[[^\]\n]{0,120}?\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(:\d{2})?[^\]\n]*\]|"
    r"\[\s*\d{1,2}:\d{2}(:\d{2})?\s*\]|\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:?\d{2})?)"
    r"[ \t]*",
    re.M,
)
_ROLE = lazy_compile(
    r"^[ \t]*(user|human|assistant|ai|bot|system|用户|助手|系统)[ \t]*[:：][ \t]*", re.I | re.M
)


def strip_wrappers(text: str) -> str:
    """The words a person wrote, without host metadata or injected memory blocks."""
    out = _INJECTED.sub(" ", text)
    out = _INJECTED_OPEN.sub(" ", out)
    out = _META_TAGGED.sub(" ", out)
    out = _UNTRUSTED_TAIL.sub("", out)
    out = _META_FENCED.sub("", out)
    out = _META_INLINE.sub("", out)
    out = _META_HEADED.sub("", out)
    out = _SYSTEM_EVENT.sub("", out)
    out = _CRON.sub("", out)
    out = _DIRECTIVE.sub("", out)
    for _ in range(2):  # "[10:15] User: ..." and "User: [10:15] ..."
        out = _TIMESTAMP.sub("", out)
        out = _ROLE.sub("", out)
    lines = [line.strip() for line in out.splitlines()]
    return "\n".join(line for line in lines if line).strip()
