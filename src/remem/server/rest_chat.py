"""REST routes of the chat path and the agent tools: recall before a call, capture after it,
auto-recall of curated memories, the memory tools and conversation recall."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from remem.access import ScopeError
from remem.errors import NotFoundError
from remem.recall.conversation import ConversationRecall
from remem.recall.messages import TurnRecall, session_context
from remem.server.rest_context import (
    Caller,
    CaptureBody,
    ConversationRecallBody,
    RecallBody,
    Requests,
    ResetBody,
    ToolBody,
    TurnBody,
)
from remem.server.session_reset import reset_answer
from remem.tools import TOOLS, tool_specs
from remem.types import Turn


def _messages(out: TurnRecall | ConversationRecall) -> dict[str, Any]:
    """What a recall of the archived chat found: its hits and the messages shown around them."""
    return {
        "hits": [h.to_dict(explain=False) for h in out.hits],
        "context": [rec.to_dict() for rec in out.context],
    }


def chat_routes(r: Requests, api: APIRouter) -> None:
    mem = r.mem

    @api.post("/v1/recall-for-turn", tags=["chat"])
    def recall_for_turn(body: TurnBody, c: Caller = r.who):
        """Before an LLM call: recall for this turn's archived inputs; returns the block."""
        user = c.user(body.user_id)
        scopes = c.guard(mem, body.session, user).read_scopes()
        turn = Turn(**{**body.model_dump(), "user_id": user}, scopes=scopes)
        out = mem.recall_for_turn(turn)
        return {
            "query": out.query,
            "block": out.block,
            "mode": out.mode,
            "mode_source": out.mode_source,
            "skipped_reason": out.skipped_reason,
            "held_back": out.held_back,
            **_messages(out),
        }

    @api.post("/v1/capture-after-turn", tags=["chat"])
    def capture(body: CaptureBody, c: Caller = r.who):
        """After an LLM response: capture this turn's memories."""
        user = c.user(body.user)
        c.access(mem, body.session, user)  # identity required
        if c.restricted:  # archived messages it names must be ones it may read
            for m in body.messages:
                if isinstance(m, str):
                    r.visible(c, m)
        turn = Turn(
            agent=c.agent,
            inputs=list(body.messages),
            session=body.session,
            user_id=user,
            now=body.now,
        )
        return mem.capture_after_turn(turn).to_dict()

    @api.post("/v1/recall-memories", tags=["chat"])
    def recall_memories(body: RecallBody, c: Caller = r.who):
        """Before an LLM request: the relevant curated memories as a block (auto-recall)."""
        user = c.user(body.user)
        c.access(mem, body.session, user)
        return mem.recall_memories(
            body.query, agent=c.agent, session=body.session, user=user, timezone=body.timezone
        ).to_dict()

    @api.post("/v1/sessions/{session}/reset", tags=["chat"])
    def session_reset(session: str, body: ResetBody | None = None, c: Caller = r.who):
        """A session ends (a host's `/new`): store one summary memory of its last messages
        when `capture.session_summary` is on. `summary` is null with `skipped_reason` when
        nothing was stored."""
        body = body or ResetBody()
        user = c.user(body.user)
        c.access(mem, session, user)  # identity required
        # a summary repeats the messages: the caller must read them all, in the scopes of the
        # session and user it names (session:{session}, user:{user} in its list)
        scopes = c.guard(mem, session, user).read_scopes()
        if scopes is not None:
            every = {"kind": "message", "session": session}
            if mem.count(every) != mem.count({**every, "scopes": scopes}):
                raise ScopeError(f"session {session!r} holds messages this agent may not read")
        return reset_answer(mem, session, mem.session_reset(session, agent=c.agent, user=user))

    tool_routes(r, api)


def tool_routes(r: Requests, api: APIRouter) -> None:
    """The agent tools, and conversation_recall for hosts that call it with a session."""
    mem = r.mem

    @api.post("/v1/conversation/recall", tags=["chat"])
    def conversation_recall(body: ConversationRecallBody, c: Caller = r.who):
        """The conversation_recall tool for a host: search the archived chat as ``session``
        sees it; ``scope`` and ``contextWindow`` only narrow. Returns the block to show."""
        fields = body.model_dump(include=set(TurnBody.model_fields) - {"inputs"})
        fields["user_id"] = user = c.user(body.user_id)
        if body.platform is None and body.group_id is None:
            fields.update(session_context(mem.store, body.session))
        turn = Turn(**fields, scopes=c.guard(mem, body.session, user).read_scopes())
        out = mem.conversation_recall(
            turn,
            body.query,
            scope=body.scope,
            context_window=body.context_window,
            limit=body.limit,
            cross_session=body.cross_session,
        )
        return {**out.shown(), "mode_source": out.mode_source, **_messages(out)}

    @api.get("/v1/tools", tags=["tools"])
    def tools() -> list[dict[str, Any]]:
        """The memory tools: names, descriptions, JSON schemas (as MCP lists them)."""
        return tool_specs(mem.config)

    @api.post("/v1/tools/{name}", tags=["tools"])
    def call_tool(name: str, body: ToolBody, c: Caller = r.who):
        """Call one memory tool (`GET /v1/tools` lists them) as the caller's agent, in the
        body's session and for its user; a tool's refusal answers 400 with its message."""
        if name not in TOOLS:
            raise NotFoundError(f"no tool {name!r}; the tools are {', '.join(TOOLS)}")
        user = c.user(body.user)
        c.access(mem, body.session, user)
        return mem.tools(c.agent, session=body.session, user=user).call(name, body.arguments)
