"""Which archived messages become searchable.

Everything is stored (it matters for context), but only somebody talking becomes a hit:
- internal injections that carry a ``source`` (host notices, scheduled tasks, workflows,
  sub-task dispatch, friend or group requests) are not indexed;
- media the bot sent (role ``notice`` or kind ``media``), system messages, control messages
  (compaction separators, command replies) and directives are not indexed.
Curated memories are always indexed.
"""

from __future__ import annotations

from remem.schemas import RecordIn

NOT_INDEXED_KINDS = frozenset({"media", "control", "directive"})


def index_reason(item: RecordIn) -> str | None:
    """None when the record should be indexed, else why it is stored only."""
    if item.kind != "message":
        return None
    if item.source:
        return f"internal injection (source {item.source!r})"
    if item.role == "notice":
        return "a notice (media the bot sent)"
    if item.role == "system":
        return "a system message"
    if item.message_kind in NOT_INDEXED_KINDS:
        return f"a {item.message_kind} message"
    return None
