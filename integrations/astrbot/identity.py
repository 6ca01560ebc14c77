"""AstrBot event identities -> remem's session, speaker, group and scopes.

Kept free of AstrBot imports (it reads the event through its public getters), so the mapping
is one small function the README documents and the tests pin down.

- session: the event's ``unified_msg_origin`` (``<platform id>:<message type>:<session id>``),
  AstrBot's own key for "this conversation"; one group or one private chat is one session.
- platform: the adapter type (``aiocqhttp``, ``telegram``...); the platform *instance* id goes
  into the session and user ids, so two QQ bots never share a user.
- user: ``<platform id>:<sender id>``; curated memories go to ``user:<that>``.
- group: the group id of a group message, else none.

Fallback: an event without a sender id has no user. Its messages and memories go to the
session's scope, ``session:<session>`` (``session:astrbot:unidentified`` without a session
either): never a ``user:`` scope, so nothing said by an unidentified sender lands under a real
user, and never ``global``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# remem ids: no whitespace or control characters, no leading ':' (remem.access._ID_RE)
_UNSAFE = re.compile(r"[\s\x00-\x1f\x7f]+")
FALLBACK_SESSION = "astrbot:unidentified"


def _clean(value: Any, limit: int = 150) -> str | None:
    """A remem-safe id from a host value, or None when there is nothing usable."""
    if value is None:
        return None
    text = _UNSAFE.sub("_", str(value)).strip("_").lstrip(":")
    return text[:limit] or None


def _call(event: Any, getter: str) -> Any:
    fn = getattr(event, getter, None)
    try:
        return fn() if callable(fn) else None
    except Exception:  # an adapter whose event lacks the field raises instead of returning ""
        return None


@dataclass(frozen=True)
class Identity:
    session: str
    platform: str | None
    platform_id: str | None
    user: str | None  # None: the sender is unknown (the fallback scope applies)
    speaker_label: str | None
    group_id: str | None
    message_id: str | None

    @property
    def scope(self) -> str:
        """Where this event's messages and memories go."""
        return f"user:{self.user}" if self.user is not None else f"session:{self.session}"


def identity_of(event: Any) -> Identity:
    """The remem identity of one AstrBot ``AstrMessageEvent``."""
    platform_id = _clean(_call(event, "get_platform_id"))
    session = _clean(getattr(event, "unified_msg_origin", None), 180) or FALLBACK_SESSION
    sender = _clean(_call(event, "get_sender_id"))
    user = f"{platform_id or 'astrbot'}:{sender}" if sender else None
    name = _call(event, "get_sender_name")
    message = getattr(event, "message_obj", None)
    return Identity(
        session=session,
        platform=_clean(_call(event, "get_platform_name")),
        platform_id=platform_id,
        user=user,
        speaker_label=str(name)[:200] if name else None,
        group_id=_clean(_call(event, "get_group_id")),
        message_id=_clean(getattr(message, "message_id", None), 120),
    )
