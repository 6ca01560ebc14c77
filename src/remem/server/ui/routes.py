"""The web UI's pages under ``/ui``: overview, conversations, memories, people (facts),
search with explain, settings. Server-rendered (Jinja2); htmx only makes navigation and forms
swap the page body, every page and form also works without script.

Every read goes through the caller's scopes (``Caller.scopes``) and every record named in a URL
through ``actions.visible``, so an id the caller may not read answers 404 exactly like a
missing one. Every change is a POST from this origin, asks for confirmation when it deletes,
and is written to the audit log.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from remem.access import AuthError, Caller
from remem.errors import RememError
from remem.server.ui import (
    pages_account,
    pages_memories,
    pages_overview,
    pages_people,
    pages_search,
    queries,
)
from remem.server.ui.context import (
    _STATUS,
    HERE,
    PREFIX,
    UI,
    log,
)
from remem.server.ui.i18n import translator

if TYPE_CHECKING:
    from remem.engine import Memory


def mount_ui(app: FastAPI, mem: Memory) -> None:
    """Serve the UI at /ui on the REST app (same process, same tokens)."""
    ui = UI(app, mem)
    config = mem.config
    page, back = ui.page, ui.back
    # ------------------------------------------------------------------ errors
    api_error = app.exception_handlers[RememError]
    api_invalid = app.exception_handlers[RequestValidationError]
    api_http = app.exception_handlers[HTTPException]

    async def remem_error(request: Request, exc: Exception):
        if not request.url.path.startswith(PREFIX):
            return await api_error(request, exc)  # type: ignore[misc]  # async handlers
        if isinstance(exc, AuthError):
            here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return back(f"{PREFIX}/login", next=here)
        status = next((code for cls, code in _STATUS if isinstance(exc, cls)), 400)
        return page(request, "error.html", None, status=status, message=str(exc))

    async def invalid(request: Request, exc: Exception):
        if not request.url.path.startswith(PREFIX):
            return await api_invalid(request, exc)  # type: ignore[misc]  # async handlers
        errors = exc.errors() if isinstance(exc, RequestValidationError) else []
        first = errors[0] if errors else {"loc": ("query", "?"), "msg": "invalid"}
        field = ".".join(str(p) for p in first["loc"][1:]) or "body"
        return page(
            request, "error.html", None, status=422, message=f"invalid {field}: {first['msg']}"
        )

    async def http_error(request: Request, exc: Exception):
        """An unknown /ui/... address (or a wrong method) answers the UI's error page with
        the status, not the API's JSON."""
        if not request.url.path.startswith(PREFIX) or not isinstance(exc, HTTPException):
            return await api_http(request, exc)  # type: ignore[misc]  # async handlers
        t = translator(ui.lang_of(request))
        if exc.status_code == 404:
            message = t("error.no_page", path=request.url.path)
        elif exc.status_code == 405:
            message = t("error.method", method=request.method, path=request.url.path)
        else:
            message = str(exc.detail)
        response = page(request, "error.html", None, status=exc.status_code, message=message)
        response.headers.update(exc.headers or {})
        return response

    app.add_exception_handler(RememError, remem_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(HTTPException, http_error)

    # every page module adds its routes to one router: under the prefix, out of the schema
    router = ui.router()
    for pages in (pages_account, pages_overview, pages_memories, pages_people, pages_search):
        pages.routes(ui, router)
    app.include_router(router)

    def warm_up() -> None:
        callers = [
            Caller.as_agent(agent) for agent in {g.agent for g in config.server.tokens.values()}
        ]
        scope_sets: list[list[str] | None] = [None] if not callers else []
        for c in callers:
            try:
                scope_sets.append(c.scopes(mem))
            except RememError as exc:  # an agent the resolver refuses sees nothing anyway
                log.warning("web UI: no aggregates for agent %r: %s", c.agent, exc)
        try:
            queries.warm_up(mem, scope_sets)
        except Exception:  # the pages compute what they need on their first request then
            log.exception("web UI: computing the aggregates at start-up failed")

    threading.Thread(target=warm_up, daemon=True, name="remem-ui-warm-up").start()
    app.mount(f"{PREFIX}/static", StaticFiles(directory=str(HERE / "static")), name="ui-static")

    @app.get("/", include_in_schema=False)
    def root() -> Response:
        return RedirectResponse(PREFIX)
