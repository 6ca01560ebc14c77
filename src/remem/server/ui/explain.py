"""The search page's view model: a search through the whole pipeline as the REST API runs it
(same validation, same scope narrowing), turned into bars per stage, channel ranks and the
candidates each gate dropped; plus the blocks that would be injected for a turn, on the chat
path (``Memory.recall_for_turn``) and the memory path (auto-recall)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError as PydanticValidationError

from remem.errors import RememError, ValidationError
from remem.server.rest_context import SearchBody
from remem.types import Filters, Hit, Record, SearchResult, Turn

if TYPE_CHECKING:
    from remem.engine import Memory

CHANNELS = ("vector", "lexical")


def pydantic_message(exc: PydanticValidationError) -> str:
    """The one sentence the REST API answers a 422 with (``invalid <field>: <reason>``)."""
    first = exc.errors()[0] if exc.errors() else {"loc": ("body",), "msg": "invalid"}
    fld = ".".join(str(p) for p in first["loc"]) or "body"
    return f"invalid {fld}: {first['msg']}"


class FormError(RememError):
    """A form field failed the same pydantic check the REST API runs (the API's 422)."""


@dataclass
class SearchForm:
    """The search page's query string, raw, as typed."""

    q: str = ""
    k: str = "10"
    kind: str = ""
    scope: str = ""
    session: str = ""
    since: str = ""
    until: str = ""
    channels: list[str] = field(default_factory=lambda: list(CHANNELS))
    turn: str = ""  # chat path: the archived message whose turn to replay
    inject: bool = False
    include_superseded: bool = False  # superseded memories are left out unless asked

    def filters(self) -> dict[str, Any]:
        raw = {"kind": self.kind, "session": self.session, "since": self.since, "until": self.until}
        out: dict[str, Any] = {k: v.strip() for k, v in raw.items() if v and v.strip()}
        if self.include_superseded:
            out["include_superseded"] = True
        return out

    def body(self) -> SearchBody:
        """Validated exactly like a POST /v1/search body (raises FormError)."""
        try:
            return SearchBody.model_validate(
                {"query": self.q, "k": self.k, "filters": self.filters()}
            )
        except PydanticValidationError as exc:
            raise FormError(pydantic_message(exc)) from None


@dataclass
class StageBar:
    name: str
    score: float
    percent: float  # of the tallest score on the page
    change: float  # against the stage before (0 for the first)


@dataclass
class HitView:
    rank: int
    record: Record
    score: float
    vector_rank: int | None
    vector_score: float | None
    lexical_rank: int | None
    lexical_score: float | None
    bars: list[StageBar]
    notes: list[str]


@dataclass
class DroppedView:
    id: str | None
    stage: str
    reason: str
    score: float | None
    record: Record | None


@dataclass
class Explained:
    query: str
    hits: list[HitView]
    dropped: list[DroppedView]
    degraded: bool
    warnings: list[str]
    notes: list[str]
    timings_ms: dict[str, float]


def run_search(mem: Memory, caller, form: SearchForm, max_k: int) -> Explained:
    body = form.body()
    if body.k > max_k:
        raise ValidationError("k", body.k, f"use at most {max_k} (server.max_k)")
    filters = dict(body.filters)
    scopes = caller.scopes(mem, form.scope.strip() or None)
    if scopes is not None:
        filters["scopes"] = scopes
    channels = tuple(c for c in CHANNELS if c in form.channels)
    result = mem.search(body.query, k=body.k, filters=filters, channels=channels)
    return explained(mem, result, scopes)


def explained(mem: Memory, result: SearchResult, scopes: list[str] | None) -> Explained:
    peak = max((s for h in result.hits for _, s in h.explain.stages), default=0.0)
    peak = max(peak, max((h.score for h in result.hits), default=0.0), 1e-9)
    hits = [_hit_view(i + 1, h, peak) for i, h in enumerate(result.hits)]
    dropped_ids = [d["id"] for d in result.dropped if d.get("id")]
    known: dict[str, Record] = {}
    if dropped_ids:  # the candidates came from the caller's scopes; fetch them through them
        known = {r.id: r for r in mem.list(Filters(ids=dropped_ids, scopes=scopes), limit=None)}
    dropped = [
        DroppedView(
            d.get("id"),
            d.get("stage", ""),
            d.get("reason", ""),
            d.get("score"),
            known.get(d.get("id") or ""),
        )
        for d in result.dropped
        if not d.get("id") or d["id"] in known
    ]
    return Explained(
        result.query,
        hits,
        dropped,
        result.degraded,
        list(result.warnings),
        list(result.notes),
        dict(result.timings_ms),
    )


def _hit_view(rank: int, hit: Hit, peak: float) -> HitView:
    e = hit.explain
    bars: list[StageBar] = []
    before: float | None = None
    for name, score in e.stages:
        bars.append(
            StageBar(
                name,
                score,
                round(100 * max(score, 0.0) / peak, 1),
                0.0 if before is None else score - before,
            )
        )
        before = score
    return HitView(
        rank,
        hit.record,
        hit.score,
        e.vector_rank,
        e.vector_score,
        e.lexical_rank,
        e.lexical_score,
        bars,
        list(e.notes),
    )


@dataclass
class Injection:
    path: str  # "chat" or "memory"
    block: str = ""
    skipped_reason: str | None = None
    detail: str = ""  # the query used / the turn replayed
    count: int = 0


def chat_block(mem: Memory, caller, turn_message: Record) -> Injection:
    """What ``recall_for_turn`` injects when ``turn_message`` is the turn's input."""
    out = mem.recall_for_turn(
        Turn(
            session=turn_message.session or "",
            inputs=[turn_message.id],
            user_id=turn_message.speaker_id,
            platform=turn_message.platform,
            group_id=turn_message.group_id,
            scopes=caller.scopes(mem),
        )
    )
    return Injection("chat", out.block, out.skipped_reason, out.query, len(out.hits))


def memory_block(mem: Memory, caller, query: str, *, session: str | None = None) -> Injection:
    """What auto-recall (``Memory.recall_memories``) injects for this message, as a preview:
    it does not count as an injection, or the next real turn would skip these memories."""
    access = caller.access(mem, session=session)
    out = mem.recall_memories(query, agent=access.agent, session=session, preview=True)
    return Injection("memory", out.block, out.skipped_reason, out.query, len(out.memories))
