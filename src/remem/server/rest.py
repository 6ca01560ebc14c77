"""`remem serve`: the REST API (FastAPI; OpenAPI docs at /docs).

Every request is made by an identity: with ``server.tokens`` configured, the agent its bearer
token maps to, restricted by the scope resolver to what that agent may read and write; without
tokens (loopback only) the local operator, who sees everything, and ``scopes.agent`` for the
agent endpoints (tools, capture, auto-recall). Bodies are validated (422 with the field and the
reason); remem's own errors become 400 / 403 / 404 with one sentence; bodies over
``server.max_body_bytes`` get 413 and ``k`` is capped by ``server.max_k``. The Host/Origin
policy, the security headers and the JSON answer of an unexpected exception (500 with a
request id) are ``http_guard``'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from remem import __version__
from remem.access import AuthError, ScopeError
from remem.errors import ConflictError, NotFoundError, RememError, ValidationError, printable
from remem.server.http_guard import Guard, HostPolicy
from remem.server.rest_context import Requests
from remem.tools import ToolError

if TYPE_CHECKING:
    from remem.engine import Memory

_STATUS = (
    (AuthError, 401),
    (ScopeError, 403),
    (NotFoundError, 404),
    (ConflictError, 409),
    (ToolError, 400),
    (ValidationError, 400),
)


def _error(status: int, message: str, **extra: Any) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse({"error": message, **extra}, status_code=status, headers=headers)


class BodyLimit:
    """ASGI middleware: requests whose body exceeds the limit get 413, whether the length is
    declared or the body is streamed (chunked): a body without a declared length is read up
    to the limit before the app sees it, then handed over whole."""

    def __init__(self, app, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        too_large = _error(413, f"request body over {self.limit} bytes")
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit():
            if int(declared) > self.limit:
                return await too_large(scope, receive, send)
            return await self.app(scope, receive, send)
        messages, seen = [], 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break  # the client went away: let the app see it
            seen += len(message.get("body", b""))
            if seen > self.limit:
                return await too_large(scope, receive, send)
            if not message.get("more_body", False):
                break
        replay = iter(messages)

        async def buffered():
            return next(replay, None) or await receive()

        return await self.app(scope, buffered, send)


def _render(status: int, message: str, request_id: str | None) -> JSONResponse:
    """The answer of a request the guard refuses or a route that failed unexpectedly."""
    return _error(status, message, **({"request_id": request_id} if request_id else {}))


def create_app(mem: Memory, host: str | None = None) -> FastAPI:
    """The REST API and the web UI over ``mem``, for a server listening on ``host`` (default
    ``server.host``: the host policy of ``http_guard`` depends on it)."""
    from remem.server.rest_chat import chat_routes
    from remem.server.rest_docs import mount_docs
    from remem.server.rest_facts import fact_routes
    from remem.server.rest_records import read_routes, write_routes

    config = mem.config
    app = FastAPI(
        title="remem",
        version=__version__,
        description="Long-term memory for LLM agents: messages, curated memories, "
        "hybrid search and the agent memory tools.",
        docs_url=None,  # mount_docs serves them without a CDN
        redoc_url=None,
    )
    app.add_middleware(BodyLimit, limit=config.server.max_body_bytes)
    policy = HostPolicy(config, host or config.server.host)
    app.add_middleware(Guard, policy=policy, render=_render)  # last: wraps everything
    mount_docs(app)

    @app.exception_handler(RememError)
    async def remem_error(_request: Request, exc: RememError) -> JSONResponse:
        status = next((code for cls, code in _STATUS if isinstance(exc, cls)), 400)
        return _error(status, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {
                "field": printable(".".join(str(p) for p in e["loc"][1:])) or "body",
                "error": e["msg"],
            }
            for e in exc.errors()
        ]
        first = errors[0] if errors else {"field": "body", "error": "invalid"}
        return _error(422, f"invalid {first['field']}: {first['error']}", details=errors)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        """Unknown routes, wrong methods and unreadable bodies answer like every other error
        (``{"error": ...}``), not FastAPI's ``{"detail": ...}``; the web UI keeps its own."""
        if request.url.path.startswith("/ui"):
            return await http_exception_handler(request, exc)  # type: ignore[return-value]
        message = str(exc.detail)
        if exc.status_code == 400 and "parsing the body" in message:
            # e.g. JSON nested deeper than the parser's recursion limit
            message = "invalid body: it could not be parsed as JSON (nested too deeply?)"
        response = _error(exc.status_code, message)
        response.headers.update(exc.headers or {})
        return response

    @app.get("/healthz", tags=["meta"])
    def health() -> dict[str, Any]:
        """Liveness: `{"ok": true, "version": ...}`; asks nothing of the store."""
        return {"ok": True, "version": __version__}

    requests = Requests(mem)
    api = APIRouter()  # every REST module adds its routes to it, in this order
    for add_routes in (write_routes, read_routes, chat_routes, fact_routes):
        add_routes(requests, api)
    app.include_router(api)

    from remem.server.ui import mount_ui  # the web UI at /ui: same identities and scopes

    mount_ui(app, mem)  # on every store: its aggregates are the store's dashboard reads
    return app
