"""Recall before an LLM call: from this turn's archived inputs to a block to inject.

The query is the archived text of the turn's inputs, in order, joined (earliest inputs are
dropped past ``conversation.max_query_chars``); a turn none of whose inputs was archived does
not recall. Which sessions may be recalled is the cross-session mode; with ``others-only``
the bot's own replies are never hits (they still show as neighbours, labelled as its own).
Each hit brings the messages around it in its session (``window`` each side): stored-only
messages such as notices are context and appear; control and directive messages and system
messages are skipped and do not use up the window; messages already in the current
conversation are not repeated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from remem.conversation.modes import narrow, resolve_mode
from remem.conversation.render import render_block
from remem.types import Filters, Hit, Record


@dataclass
class Turn:
    session: str
    inputs: list[str]  # ids of this turn's archived input messages, in order
    user_id: str | None = None  # who is asking (same-user boost in `user` mode)
    platform: str | None = None
    current_ids: list[str] = field(default_factory=list)  # already in the prompt
    now: float | None = None
    group_id: str | None = None
    platform_type: str | None = None
    # runtime per-session settings from the host (same keys as conversation.modes); they may
    # hold anything: a broken value means the narrowest mode
    settings: dict[str, str] = field(default_factory=dict)
    requested_mode: str | None = None  # e.g. the recall tool's scope: can only narrow
    scopes: list[str] | None = None  # the caller may only see these (servers: its access)


@dataclass
class TurnRecall:
    query: str = ""
    hits: list[Hit] = field(default_factory=list)
    context: list[Record] = field(default_factory=list)  # hits and their windows, in order
    block: str = ""
    skipped_reason: str | None = None
    mode: str = ""
    mode_source: str = ""


def build_query(records: list[Record], max_chars: int) -> str:
    texts = [r.shown_text for r in records]
    while len(texts) > 1 and len("\n".join(texts)) > max_chars:
        texts.pop(0)  # drop the earliest inputs first
    query = "\n".join(texts)
    return query[-max_chars:] if len(query) > max_chars else query


def current_platform(mem, turn: Turn) -> str | None:
    """A group or private room belongs to its origin platform whichever entry point drove
    this turn, and a sub-session to its root's; else the turn's own platform."""
    info = mem.store.session_info(turn.session)
    return (info or {}).get("platform") or turn.platform


def recall_for_turn(mem, turn: Turn) -> TurnRecall:
    cfg = mem.config.conversation
    archived = [mem.get(i) for i in turn.inputs]
    inputs = [r for r in archived if r is not None
              and (turn.scopes is None or r.scope in turn.scopes)]  # fmt: skip
    if not inputs:
        return TurnRecall(skipped_reason="none of this turn's inputs was archived")
    query = build_query(inputs, cfg.max_query_chars)
    filters = Filters(kinds=["message"], exclude_ids=[*turn.inputs, *turn.current_ids],
                      scopes=list(turn.scopes) if turn.scopes is not None else None)  # fmt: skip
    mode, source = resolve_mode(
        {**cfg.modes, **turn.settings}, cfg.cross_session, session=turn.session,
        group=turn.group_id, platform_type=turn.platform_type, platform=turn.platform,
    )  # fmt: skip
    mode = narrow(mode, turn.requested_mode)
    platform = current_platform(mem, turn)
    if mode == "isolated" or (mode == "platform" and not platform):
        filters.sessions = [turn.session]  # no platform known: the narrowest safe choice
    elif mode == "platform":
        filters.platform = platform
        filters.platform_by_session = True
    if cfg.recall_roles == "others-only":
        filters.exclude_roles = ["assistant"]
    result = mem.search(
        query, k=cfg.recall_k, filters=filters, now=turn.now, asker=turn.user_id,
        same_user_boost=mode == "user",  # the boost only where the effective mode is user
    )  # fmt: skip
    out = TurnRecall(query=query, hits=list(result.hits), mode=mode, mode_source=source)
    out.context = expand(mem, out.hits, turn, filters)
    out.block = render_block(out.context, language=cfg.language,
                             max_chars_per_item=cfg.max_chars_per_item)  # fmt: skip
    return out


def expand(mem, hits: list[Hit], turn: Turn, filters: Filters) -> list[Record]:
    cfg = mem.config.conversation
    records = [h.record for h in hits]
    skip = set(turn.inputs) | set(turn.current_ids)
    window_filters = Filters(exclude_roles=["system"], exclude_ids=sorted(skip) or None,
                             scopes=filters.scopes)  # fmt: skip
    anchors = [r for r in records if cfg.expand_other_sessions or r.session == turn.session]
    around = mem.store.neighbours(anchors, cfg.window, cfg.window, window_filters,
                                  context=True) if cfg.window > 0 else {}  # fmt: skip
    out: dict[str, Record] = {r.id: r for r in records}
    for rec in anchors:
        for neighbour in around.get(rec.rowid, []):
            out.setdefault(neighbour.id, neighbour)
    return sorted(out.values(), key=lambda r: (r.session or "", r.created_at, r.rowid or 0))
