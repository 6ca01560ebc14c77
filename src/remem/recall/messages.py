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
from datetime import tzinfo
from typing import Any

from remem import arguments
from remem.access import ScopeGuard
from remem.config import Config
from remem.errors import ValidationError
from remem.ingest.modes import narrow, resolve_mode
from remem.recall.render import render_block
from remem.schemas import check_encodable
from remem.search.answerability import deciding
from remem.search.checked import CheckedSearch, SearchRequest
from remem.store.base import Store
from remem.store.queries import RecordPage, SessionWindow
from remem.types import Filters, Hit, Record, SearchResult, Turn


@dataclass(frozen=True)
class ChatArchive:
    """What recall of the archived chat reads with (built once by ``Memory``): the
    configuration, the store (sessions, neighbours) and the checked search."""

    config: Config
    store: Store
    search: CheckedSearch


@dataclass
class TurnRecall:
    query: str = ""
    hits: list[Hit] = field(default_factory=list)
    context: list[Record] = field(default_factory=list)  # hits and their windows, in order
    block: str = ""
    skipped_reason: str | None = None
    # some hits held back under recall.answerability_threshold, and the evidence that decided
    held_back: str | None = None
    mode: str = ""
    mode_source: str = ""


def build_query(records: list[Record], max_chars: int) -> str:
    texts = [r.shown_text for r in records]
    while len(texts) > 1 and len("\n".join(texts)) > max_chars:
        texts.pop(0)  # drop the earliest inputs first
    query = "\n".join(texts)
    return query[-max_chars:] if len(query) > max_chars else query


def current_platform(chat: ChatArchive, turn: Turn) -> str | None:
    """A group or private room belongs to its origin platform whichever entry point drove
    this turn, and a sub-session to its root's; else the turn's own platform."""
    info = chat.store.session_info(turn.session) if turn.session else None
    return (info["platform"] if info else None) or turn.platform


def session_context(store: Store, session: str) -> dict[str, Any]:
    """The platform and group of a session, from its newest archived message: what picks
    the session's cross-session mode besides the session itself."""
    newest = store.list_records(RecordPage(Filters(kinds=["message"], sessions=[session]), limit=1))
    if not newest:
        return {}
    return {"platform": newest[0].platform, "group_id": newest[0].group_id}


def input_ids(turn: Turn) -> list[str]:
    """The ids of the turn's archived inputs (recall reads the archive, not loose text)."""
    return [
        i if isinstance(i, str) else str(i.get("id"))
        for i in turn.inputs
        if isinstance(i, str) or i.get("id")
    ]


def allowed_filters(
    chat: ChatArchive, turn: Turn, exclude_ids: list[str], guard: ScopeGuard
) -> tuple[Filters, str, str]:
    """The messages a turn may recall: (filters, effective mode, where the mode came from).

    The cross-session mode of the turn's session (narrowed by ``turn.requested_mode``) decides
    the sessions; ``guard`` the scopes; ``others-only`` leaves out the bot's replies.
    Every recall of the archived chat, automatic or the ``conversation_recall`` tool, reads
    through these filters."""
    cfg = chat.config.conversation
    filters = Filters(
        kinds=["message"],
        exclude_ids=exclude_ids or None,
        scopes=guard.read_scopes(),
    )
    mode, source = resolve_mode(
        {**cfg.modes, **turn.settings},
        cfg.cross_session,
        session=turn.session,
        group=turn.group_id,
        platform_type=turn.platform_type,
        platform=turn.platform,
    )
    mode = narrow(mode, turn.requested_mode)
    platform = current_platform(chat, turn)
    if mode == "isolated" or (mode == "platform" and not platform):
        filters.sessions = [turn.session or ""]  # no platform known: the narrowest safe choice
    elif mode == "platform":
        filters.platform = platform
        filters.platform_by_session = True
    if cfg.recall_roles == "others-only":
        filters.exclude_roles = ["assistant"]
    return filters, mode, source


def recall_for_turn(chat: ChatArchive, turn: Turn, guard: ScopeGuard) -> TurnRecall:
    """Recall for this turn's archived inputs, reading only what ``guard`` allows."""
    cfg = chat.config.conversation
    if not isinstance(turn.session, str) or not turn.session:
        raise ValidationError("session", turn.session, "give the session this turn belongs to")
    ids = input_ids(turn)
    archived = [chat.store.get(check_encodable("id", i)) for i in ids]
    inputs = guard.filter(archived)
    if not inputs:
        return TurnRecall(skipped_reason="none of this turn's inputs was archived")
    query = build_query(inputs, cfg.max_query_chars)
    filters, mode, source = allowed_filters(chat, turn, [*ids, *turn.current_ids], guard)
    result = search_as_asker(chat, turn, query, k=cfg.recall_k, filters=filters, mode=mode)
    out = TurnRecall(query=query, mode=mode, mode_source=source)
    threshold = chat.config.recall.answerability_threshold
    out.hits = answering(result.hits, threshold)
    if result.hits and not out.hits:
        out.skipped_reason = unanswered(result.hits, threshold)
    elif len(out.hits) < len(result.hits):
        out.held_back = held_back(result.hits, out.hits, threshold)
    out.context, out.block = context_and_block(chat, out.hits, turn, filters, cfg.window)
    return out


def search_as_asker(
    chat: ChatArchive, turn: Turn, query: str, *, k: int, filters: Filters, mode: str
) -> SearchResult:
    """The archive searched for ``query`` as ``turn``'s asker, at the turn's time and zone;
    the same-user boost only where the effective cross-session mode is user."""
    return chat.search.search(
        SearchRequest(
            query=query,
            k=k,
            filters=filters,
            now=turn.now,
            timezone=turn.timezone,
            asker=turn.user_id,
            same_user_boost=mode == "user",
        )
    )


def context_and_block(
    chat: ChatArchive, hits: list[Hit], turn: Turn, filters: Filters, window: int
) -> tuple[list[Record], str]:
    """The hits with ``window`` messages each side (``expand``), and the block that shows
    them on the turn's clock."""
    cfg = chat.config.conversation
    context = expand(chat, hits, turn, filters, window)
    block = render_block(
        context,
        language=cfg.language,
        max_chars_per_item=cfg.max_chars_per_item,
        zone=turn_zone(chat, turn),
        earlier={h.record.id: h.explain.earlier for h in hits if h.explain.earlier},
    )
    return context, block


def answering(hits: list[Hit], threshold: float) -> list[Hit]:
    """The hits whose answerability (``Hit.score``) reaches ``threshold``, in their order: when
    the evidence is split, fewer hits are injected rather than none."""
    return [h for h in hits if h.explain.answerability is None or h.score >= threshold]


def unanswered(hits: list[Hit], threshold: float) -> str:
    """Why nothing is injected though search returned hits: the best hit's answerability
    and the evidence that weighed most in it."""
    best = max(hits, key=lambda h: h.score)
    return (
        f"no hit reached recall.answerability_threshold {threshold}: best answerability "
        f"{best.score:.3f}; {deciding(best.explain.evidence or {})}"
    )


def held_back(hits: list[Hit], kept: list[Hit], threshold: float) -> str:
    """Why auto-recall injects fewer hits than search returned (split evidence injects less,
    not nothing): how many it held back, and the best held-back hit's score and evidence."""
    ids = {h.record.id for h in kept}
    left = [h for h in hits if h.record.id not in ids]
    best = max(left, key=lambda h: h.score)
    return (
        f"held back {len(left)} of {len(hits)} hits under recall.answerability_threshold "
        f"{threshold}: the best of them {best.score:.3f}; {deciding(best.explain.evidence or {})}"
    )


def turn_zone(chat: ChatArchive, turn: Turn) -> tzinfo:
    """The turn's own time zone, else ``calendar.timezone``."""
    return arguments.zone("timezone", turn.timezone) or chat.config.calendar.zone()


def expand(
    chat: ChatArchive, hits: list[Hit], turn: Turn, filters: Filters, window: int
) -> list[Record]:
    """The hits with ``window`` messages each side in their session, in session order."""
    cfg = chat.config.conversation
    records = [h.record for h in hits]
    skip = set(input_ids(turn)) | set(turn.current_ids)
    window_filters = Filters(
        exclude_roles=["system"], exclude_ids=sorted(skip) or None, scopes=filters.scopes
    )
    anchors = [r for r in records if cfg.expand_other_sessions or r.session == turn.session]
    around = (
        chat.store.neighbours(anchors, SessionWindow(window, window, window_filters, context=True))
        if window > 0
        else {}
    )
    out: dict[str, Record] = {r.id: r for r in records}
    for rec in anchors:
        for neighbour in around.get(rec.rowid or -1, []):
            out.setdefault(neighbour.id, neighbour)
    return sorted(out.values(), key=lambda r: (r.session or "", r.created_at, r.rowid or 0))
