"""The ``conversation_recall`` tool's read: the archived chat, searched on the model's request.

Automatic recall (``recall.messages``) searches with the turn's own words; this searches with
the query the model wrote. Both read through ``allowed_filters``, so the tool sees exactly what
the session's cross-session mode allows and the caller's scopes permit, and its two knobs only
narrow: ``scope`` (session / user / platform / all) can ask for a narrower mode than the
configured one, never a wider one, and ``context_window`` can ask for fewer messages around each
hit than ``conversation.window``, never more. The result is rendered by the same renderer, with
the same labels and the same untrusted-data wrapper, as automatic recall.

``scope: "user"`` ("this user's conversations") means the sessions the caller's user took part
in (spoke in), plus the current one, inside whatever the configured mode allows: with mode
``all`` it does not reach another user's private chat, and without a known user it is the
current session. ``cross_session: false`` (Aalis' third knob) keeps the search to the current
session; ``true`` or absent leaves the scope as it is (it never widens).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from remem.access import ScopeGuard
from remem.errors import ValidationError
from remem.recall.messages import (
    ChatArchive,
    allowed_filters,
    context_and_block,
    search_as_asker,
)
from remem.types import Hit, Record, Turn

# The tool's scope names (Aalis' vocabulary) and the cross-session modes they ask for.
SCOPE_MODES: dict[str, str] = {
    "session": "isolated",
    "platform": "platform",
    "user": "user",
    "all": "all",
}
MODE_SCOPES = {mode: scope for scope, mode in SCOPE_MODES.items()}


@dataclass(frozen=True, kw_only=True)
class Narrowing:
    """What a conversation recall asks for, each of which can only narrow (the module
    docstring): a ``scope`` of ``SCOPE_MODES``, a ``context_window`` of fewer messages, a
    ``limit`` on the hits, ``cross_session=False`` for the current session only."""

    scope: str | None = None
    context_window: int | None = None
    limit: int | None = None
    cross_session: bool | None = None


@dataclass
class ConversationRecall:
    query: str
    scope: str  # the effective scope (after narrowing), in the tool's vocabulary
    window: int  # the effective context window
    hits: list[Hit] = field(default_factory=list)
    context: list[Record] = field(default_factory=list)  # hits and their windows, in order
    block: str = ""
    mode_source: str = ""

    def shown(self) -> dict[str, Any]:
        """What every surface answers first (the REST route, the agent tool): the block and
        the effective scope and window, in the tool's vocabulary."""
        return {"block": self.block, "scope": self.scope, "contextWindow": self.window}


def conversation_recall(
    chat: ChatArchive,
    turn: Turn,
    query: str,
    *,
    guard: ScopeGuard,
    narrowing: Narrowing,
) -> ConversationRecall:
    """Search the archived messages ``turn`` may recall for ``query``.

    ``turn`` names the current session (and whatever else picks its cross-session mode:
    platform, group, per-session settings); ``guard`` what the caller may read;
    ``narrowing`` what it asked to narrow to. Messages already in the prompt
    (``turn.current_ids``) are neither hits nor context."""
    cfg = chat.config.conversation
    scope, context_window = narrowing.scope, narrowing.context_window
    cross_session = narrowing.cross_session
    if not isinstance(turn.session, str) or not turn.session:
        raise ValidationError(
            "session", turn.session, "conversation recall needs the current session"
        )
    if scope is not None and scope not in SCOPE_MODES:
        raise ValidationError("scope", scope, f"use one of {', '.join(SCOPE_MODES)}")
    if context_window is not None and context_window < 0:
        raise ValidationError("contextWindow", context_window, "use 0 or more messages")
    if cross_session is not None and not isinstance(cross_session, bool):
        raise ValidationError("crossSession", cross_session, "use true or false")
    if cross_session is False:
        scope = "session"  # the narrowest: whatever scope was asked, this session only
    asked = replace(turn, requested_mode=SCOPE_MODES[scope] if scope else turn.requested_mode)
    filters, mode, source = allowed_filters(chat, asked, list(turn.current_ids), guard)
    if scope == "user" and mode != "isolated":
        filters.sessions = users_sessions(chat, turn)
    window = cfg.window if context_window is None else min(context_window, cfg.window)
    result = search_as_asker(
        chat, turn, query, k=narrowing.limit or cfg.recall_k, filters=filters, mode=mode
    )
    out = ConversationRecall(
        query=query,
        scope=MODE_SCOPES[mode],
        window=window,
        hits=list(result.hits),
        mode_source=source,
    )
    out.context, out.block = context_and_block(chat, out.hits, asked, filters, window)
    return out


def users_sessions(chat: ChatArchive, turn: Turn) -> list[str]:
    """The sessions ``turn``'s user took part in, and the current one (the user is in it
    now); only the current one when the user is not known."""
    assert turn.session is not None
    spoken = chat.store.sessions_with_speaker(turn.user_id) if turn.user_id else []
    return sorted({turn.session, *spoken})


def message_view(rec: Record) -> dict[str, Any]:
    """A matching message as the ``conversation_recall`` tool lists it."""
    return {
        "id": rec.id,
        "session": rec.session,
        "speaker": rec.speaker_label or rec.speaker_id or rec.role,
        "role": rec.role,
        "text": rec.shown_text,
        "created_at": rec.created_at,
    }
