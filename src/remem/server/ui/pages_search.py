"""Search with explain, and the blocks that would be injected for a turn."""

from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from remem.access import ScopeError
from remem.errors import RememError, ValidationError
from remem.server.rest_context import Caller
from remem.server.ui import actions
from remem.server.ui.context import (
    UI,
)
from remem.server.ui.explain import (
    CHANNELS,
    FormError,
    Injection,
    SearchForm,
    chat_block,
    memory_block,
    run_search,
)


def routes(ui: UI, router: APIRouter) -> None:
    mem = ui.mem

    # ------------------------------------------------------------------ search
    def search_form(request: Request) -> SearchForm:
        params = request.query_params
        return SearchForm(
            q=params.get("q", ""),
            k=params.get("k", "10"),
            kind=params.get("kind", ""),
            scope=params.get("scope", ""),
            session=params.get("session", ""),
            since=params.get("since", ""),
            until=params.get("until", ""),
            channels=params.getlist("channels") or list(CHANNELS),
            turn=params.get("turn", ""),
            inject=params.get("inject") == "1",
            include_superseded=params.get("include_superseded") == "1",
        )

    @router.get("/search", response_class=HTMLResponse)
    def search(request: Request, c: Caller = ui.who):
        form = search_form(request)
        result = error = None
        if form.q.strip():
            try:
                result = run_search(mem, c, form, ui.config.server.max_k)
            except (ValidationError, FormError, ScopeError) as exc:
                error = str(exc)
        inject_query = urlencode({"q": form.q, "turn": form.turn, "session": form.session})
        return ui.page(
            request,
            "search.html",
            c,
            status=400 if error else 200,
            form=form,
            result=result,
            error=error,
            inject_query=inject_query,
        )

    @router.get("/inject", response_class=HTMLResponse)
    def inject(request: Request, c: Caller = ui.who):
        """The blocks that would be injected: a fragment for htmx, else a page of its own.
        Two more retrievals, so the search page does not wait for them."""
        form = search_form(request)
        fragment = request.headers.get("hx-request") == "true"
        return ui.page(
            request,
            "_injections.html" if fragment else "injections.html",
            c,
            injections=_injections(c, form),
        )

    def _injections(c: Caller, form: SearchForm) -> list[Injection]:
        out: list[Injection] = []
        if form.turn.strip():
            try:
                message = actions.visible(mem, c, form.turn.strip())
                out.append(chat_block(mem, c, message))
            except RememError as exc:
                out.append(Injection("chat", skipped_reason=str(exc)))
        else:
            out.append(Injection("chat", skipped_reason=None, detail=""))
        if form.q.strip():
            try:
                out.append(memory_block(mem, c, form.q, session=form.session.strip() or None))
            except RememError as exc:
                out.append(Injection("memory", skipped_reason=str(exc)))
        return out
