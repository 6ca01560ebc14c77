"""`remem serve`: the REST API (FastAPI; OpenAPI docs at /docs).

Every request is made by an identity: with ``server.tokens`` configured, the agent its bearer
token maps to, restricted by the scope resolver to what that agent may read and write; without
tokens (loopback only) the local operator, who sees everything, and ``scopes.agent`` for the
agent endpoints (tools, capture, auto-recall). Bodies are validated (422 with the field and the
reason); remem's own errors become 400 / 403 / 404 with one sentence; bodies over
``server.max_body_bytes`` get 413 and ``k`` is capped by ``server.max_k``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from remem import __version__
from remem.errors import NotFoundError, RememError, ValidationError
from remem.scopes import Access, ScopeError
from remem.server.identity import AuthError, agent_for
from remem.tools import TOOLS, ToolError, tool_specs
from remem.types import Filters


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchBody(_Body):
    query: str = Field(min_length=1, max_length=10_000)
    k: int = Field(default=10, ge=1)
    filters: dict[str, Any] = Field(default_factory=dict)
    explain: bool = False
    now: float | str | None = None


class TurnBody(_Body):
    session: str
    inputs: list[str]
    user_id: str | None = None
    platform: str | None = None
    current_ids: list[str] = Field(default_factory=list)
    now: float | None = None
    group_id: str | None = None
    platform_type: str | None = None
    settings: dict[str, str] = Field(default_factory=dict)
    requested_mode: str | None = None


class CaptureBody(_Body):
    messages: list[str | dict[str, Any]] = Field(min_length=1)
    session: str | None = None
    user: str | None = None
    now: float | None = None


class RecallBody(_Body):
    query: str = Field(min_length=1, max_length=10_000)
    session: str | None = None
    user: str | None = None


class ToolBody(_Body):
    arguments: dict[str, Any] = Field(default_factory=dict)
    session: str | None = None
    user: str | None = None


@dataclass
class Caller:
    agent: str | None  # None: the local operator (no tokens configured, no scopes.agent)
    restricted: bool  # True when the agent came from a token: the resolver limits it

    def access(self, mem, session: str | None = None, user: str | None = None) -> Access:
        if not self.agent:
            raise ScopeError("no agent identity: configure server.tokens or scopes.agent")
        return mem.scope_access(self.agent, session=session, user=user)

    def scopes(self, mem, requested: Any = None) -> list[str] | None:
        """The scopes a read may use: None = unrestricted (local operator)."""
        wanted = [requested] if isinstance(requested, str) else requested
        if not self.restricted:
            return None if wanted is None else list(wanted)
        access = self.access(mem)
        if wanted is None:
            return access.narrow(None)
        return [s for w in wanted for s in access.narrow(w)]

    def check_write(self, mem, scope: str) -> None:
        if self.restricted and not self.access(mem).can_write(scope):
            raise ScopeError(f"agent {self.agent!r} may not write to scope {scope!r}")


_STATUS = ((AuthError, 401), (ScopeError, 403), (NotFoundError, 404), (ToolError, 400),
           (ValidationError, 400))  # fmt: skip


def _error(status: int, message: str, **extra: Any) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse({"error": message, **extra}, status_code=status, headers=headers)


class BodyLimit:
    """ASGI middleware: requests whose body exceeds the limit get 413 (declared or streamed)."""

    def __init__(self, app, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            return await _error(413, f"request body over {self.limit} bytes")(scope, receive, send)
        seen = 0

        async def counted():
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except _TooLarge:
            await _error(413, f"request body over {self.limit} bytes")(scope, receive, send)


class _TooLarge(Exception):
    pass


def create_app(mem) -> FastAPI:
    config = mem.config
    app = FastAPI(title="remem", version=__version__,
                  description="Long-term memory for LLM agents: messages, curated memories, "
                  "hybrid search and the agent memory tools.")  # fmt: skip
    app.add_middleware(BodyLimit, limit=config.server.max_body_bytes)

    @app.exception_handler(RememError)
    async def remem_error(_request: Request, exc: RememError) -> JSONResponse:
        status = next((code for cls, code in _STATUS if isinstance(exc, cls)), 400)
        return _error(status, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"field": ".".join(str(p) for p in e["loc"][1:]) or "body", "error": e["msg"]}
                  for e in exc.errors()]  # fmt: skip
        first = errors[0] if errors else {"field": "body", "error": "invalid"}
        return _error(422, f"invalid {first['field']}: {first['error']}", details=errors)

    def caller(request: Request) -> Caller:
        agent = agent_for(config, request.headers.get("authorization"))
        return Caller(agent, restricted=bool(config.server.tokens))

    def check_k(k: int) -> None:
        if k > config.server.max_k:
            raise ValidationError("k", k, f"use at most {config.server.max_k} (server.max_k)")

    def visible(c: Caller, record_id: str):
        rec = mem.get(record_id)
        scopes = c.scopes(mem)
        if rec is None or (scopes is not None and rec.scope not in scopes):
            raise NotFoundError(f"no record {record_id!r}")  # the same answer either way
        return rec

    @app.get("/healthz", tags=["meta"])
    def health() -> dict[str, Any]:
        return {"ok": True, "version": __version__}

    @app.post("/v1/ingest", tags=["write"], status_code=201)
    def ingest(body: dict[str, Any] | list[dict[str, Any]], c: Caller = Depends(caller)):
        """Archive chat messages (one object, or a list): committed before the answer."""
        items = body if isinstance(body, list) else body.get("messages", [body])
        if not isinstance(items, list) or not items:
            raise ValidationError("body", body, "send a message object or a list of them")
        if c.restricted:  # an agent's records go to its own scope unless it names another
            default = c.access(mem).write_scope
            items = [{"scope": default, **i} if isinstance(i, dict) else i for i in items]
        for item in items:
            c.check_write(mem, item.get("scope", "global") if isinstance(item, dict) else "global")
        records = mem.ingest_many(items)
        return {"ingested": [r.to_dict() for r in records]}

    @app.post("/v1/memories", tags=["write"], status_code=201)
    def add(body: dict[str, Any], c: Caller = Depends(caller)):
        """Store one curated memory as given (no dedup; the memory_store tool dedups)."""
        text = body.get("text")
        fields = {k: v for k, v in body.items() if k != "text"}
        if c.restricted:
            fields.setdefault("scope", c.access(mem).write_scope)
        c.check_write(mem, fields.get("scope", "global"))
        return mem.add(text, **fields).to_dict()

    @app.post("/v1/search", tags=["read"])
    def search(body: SearchBody, c: Caller = Depends(caller)):
        """Hybrid search through the whole pipeline; ``explain`` adds every stage's score and
        the candidates that were dropped."""
        check_k(body.k)
        filters = dict(body.filters)
        scopes = c.scopes(mem, filters.pop("scope", None) or filters.pop("scopes", None))
        if scopes is not None:
            filters["scopes"] = scopes
        result = mem.search(body.query, k=body.k, filters=filters, now=body.now)
        return result.to_dict(explain=body.explain)

    @app.get("/v1/records/{record_id}", tags=["read"])
    def get(record_id: str, c: Caller = Depends(caller)):
        return visible(c, record_id).to_dict()

    @app.get("/v1/records", tags=["read"])
    def list_records(kind: str | None = None, scope: str | None = None,
                     session: str | None = None, limit: int = 50, offset: int = 0,
                     c: Caller = Depends(caller)):  # fmt: skip
        check_k(limit)
        if offset < 0:
            raise ValidationError("offset", offset, "use 0 or more")
        filters: dict[str, Any] = {"kind": kind, "session": session}
        scopes = c.scopes(mem, scope)
        if scopes is not None:
            filters["scopes"] = scopes
        return {"records": [r.to_dict() for r in mem.list(filters, limit=limit, offset=offset)]}

    @app.delete("/v1/records/{record_id}", tags=["write"])
    def delete(record_id: str, c: Caller = Depends(caller)):
        rec = visible(c, record_id)
        c.check_write(mem, rec.scope)
        return {"deleted": mem.delete(rec.id)}

    @app.get("/v1/stats", tags=["read"])
    def stats(c: Caller = Depends(caller)):
        if not c.restricted:
            return mem.stats()
        scopes = c.scopes(mem)
        return {"records": mem.store.count(Filters(scopes=scopes)), "scopes": scopes,
                "memories": mem.tools(c.agent).call("memory_stats", {})}  # fmt: skip

    @app.post("/v1/recall-for-turn", tags=["chat"])
    def recall_for_turn(body: TurnBody, c: Caller = Depends(caller)):
        """Before an LLM call: recall for this turn's archived inputs; returns the block."""
        from remem.conversation.recall import Turn

        turn = Turn(**body.model_dump(), scopes=c.scopes(mem))
        out = mem.recall_for_turn(turn)
        return {"query": out.query, "block": out.block, "mode": out.mode,
                "mode_source": out.mode_source, "skipped_reason": out.skipped_reason,
                "hits": [h.to_dict(explain=False) for h in out.hits],
                "context": [r.to_dict() for r in out.context]}  # fmt: skip

    @app.post("/v1/capture-after-turn", tags=["chat"])
    def capture(body: CaptureBody, c: Caller = Depends(caller)):
        """After an LLM response: capture this turn's memories."""
        from remem.capture.capture import CaptureTurn

        c.access(mem, body.session, body.user)  # identity required
        if c.restricted:  # archived messages it names must be ones it may read
            for m in body.messages:
                if isinstance(m, str):
                    visible(c, m)
        return mem.capture_after_turn(CaptureTurn(agent=c.agent, messages=body.messages,
                                                  session=body.session, user=body.user,
                                                  now=body.now)).to_dict()  # fmt: skip

    @app.post("/v1/recall-memories", tags=["chat"])
    def recall_memories(body: RecallBody, c: Caller = Depends(caller)):
        """Before an LLM request: the relevant curated memories as a block (auto-recall)."""
        c.access(mem, body.session, body.user)
        return mem.recall_memories(body.query, agent=c.agent, session=body.session,
                                   user=body.user).to_dict()  # fmt: skip

    @app.get("/v1/tools", tags=["tools"])
    def tools() -> list[dict[str, Any]]:
        """The memory tools: names, descriptions, JSON schemas (as MCP lists them)."""
        return tool_specs()

    @app.post("/v1/tools/{name}", tags=["tools"])
    def call_tool(name: str, body: ToolBody, c: Caller = Depends(caller)):
        if name not in TOOLS:
            raise NotFoundError(f"no tool {name!r}; the tools are {', '.join(TOOLS)}")
        c.access(mem, body.session, body.user)
        return mem.tools(c.agent, session=body.session, user=body.user).call(name, body.arguments)

    @app.get("/v1/export", tags=["read"])
    def export(kind: str | None = None, scope: str | None = None, with_vectors: bool = False,
               c: Caller = Depends(caller)) -> StreamingResponse:  # fmt: skip
        """Every visible record as JSONL (streamed; no limit)."""
        from remem.engine import make_filters
        from remem.transfer import export_lines

        filters: dict[str, Any] = {"kind": kind}
        scopes = c.scopes(mem, scope)
        if scopes is not None:
            filters["scopes"] = scopes
        parsed = make_filters(filters)

        def lines() -> Iterator[str]:
            for page in export_lines(mem, filters=parsed, with_vectors=with_vectors):
                yield "".join(page)

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    from remem.server.ui import mount_ui  # the web UI at /ui: same identities and scopes

    mount_ui(app, mem)
    return app
