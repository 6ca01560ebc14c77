"""The web UI's pages under ``/ui``: overview, conversations, memories, search with explain,
settings. Server-rendered (Jinja2); htmx only makes navigation and forms swap the page body,
every page and form also works without script.

Every read goes through the caller's scopes (``Caller.scopes``) and every record named in a URL
through ``actions.visible``, so an id the caller may not read answers 404 exactly like a
missing one. Every change is a POST from this origin, asks for confirmation when it deletes,
and is written to the audit log.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, FastAPI, Form, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from remem.errors import NotFoundError, RememError, ValidationError
from remem.scopes import ScopeError
from remem.server.identity import AuthError
from remem.server.rest_context import Caller
from remem.server.ui import actions, queries
from remem.server.ui.audit import AuditLog, audit_path
from remem.server.ui.auth import TOKEN_COOKIE, same_origin, token_agent, ui_caller
from remem.server.ui.charts import timeline_chart
from remem.server.ui.explain import (
    CHANNELS,
    FormError,
    Injection,
    SearchForm,
    chat_block,
    memory_block,
    run_search,
)
from remem.server.ui.i18n import EN, LANG_COOKIE, LANGUAGES, choose_language, translator
from remem.types import KINDS

log = logging.getLogger("remem.ui")
PREFIX = "/ui"
HERE = Path(__file__).parent
PAGE = 50  # rows per page: every listing is LIMITed, never the whole store
CATEGORIES = ("preference", "fact", "decision", "entity", "other")
_STATUS = (
    (AuthError, 401),
    (ScopeError, 403),
    (NotFoundError, 404),
    (FormError, 422),
    (ValidationError, 400),
)


def _when(ts: float | None) -> str:
    if ts is None:
        return ""
    from datetime import UTC, datetime

    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M")


def _bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    exp = min(int(math.log(n, 1024)), 4)
    return f"{n / 1024**exp:.1f} {'BKMGT'[exp]}iB"


def _as_json_number(text: str) -> Any:
    """A form field read as the JSON number it spells (as the API would receive it), or the
    text as it is, so validation names the same value the API's would."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, int | float) and not isinstance(value, bool) else text


def mount_ui(app: FastAPI, mem) -> None:
    """Serve the UI at /ui on the REST app (same process, same tokens)."""
    config = mem.config
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.filters.update(when=_when, size=_bytes, q=lambda s: quote(str(s), safe=""))
    templates.env.globals.update(
        PREFIX=PREFIX,
        KINDS=KINDS,
        CATEGORIES=CATEGORIES,
        STATES=queries.MEMORY_STATES,
        CHANNELS=CHANNELS,
    )
    audit = AuditLog(audit_path(mem.path))
    backfill = actions.Backfill()
    router = APIRouter(prefix=PREFIX, include_in_schema=False)

    def caller(request: Request) -> Caller:
        return ui_caller(config, request)

    def lang_of(request: Request) -> str:
        return choose_language(
            request.query_params.get("lang"),
            request.cookies.get(LANG_COOKIE),
            request.headers.get("accept-language"),
        )

    def page(
        request: Request, name: str, c: Caller | None, status: int = 200, **context: Any
    ) -> HTMLResponse:
        lang = lang_of(request)
        done = request.query_params.get("done")
        done = done if done in EN else None  # only our own messages, never text from a URL
        response = templates.TemplateResponse(
            request,
            name,
            {
                "t": translator(lang),
                "lang": lang,
                "caller": c,
                "done": done,
                "path": request.url.path,
                "query": dict(request.query_params),
                "lang_url": request.url.path
                + "?"
                + urlencode({**request.query_params, "lang": "en" if lang == "zh" else "zh"}),
                **context,
            },
            status_code=status,
        )
        if request.query_params.get("lang") in LANGUAGES:
            response.set_cookie(LANG_COOKIE, lang, samesite="strict", max_age=365 * 86400)
        return response

    def back(url: str, **params: Any) -> RedirectResponse:
        kept = {k: v for k, v in params.items() if v not in (None, "")}
        return RedirectResponse(url + ("?" + urlencode(kept) if kept else ""), status_code=303)

    def changed(c: Caller, action: str, ids: list[str], **detail: Any) -> None:
        """After a change: log it, and recount the memories at once (the page that follows
        shows the count; the other aggregates may lag by one background recount)."""
        audit.record(c.agent, action, ids, **detail)
        queries.AGGREGATES.forget(mem, "memory-count")

    def check_origin(request: Request) -> None:
        if not same_origin(request):
            raise ScopeError("a change must come from a page of this server (Origin mismatch)")

    # ------------------------------------------------------------------ errors
    api_error = app.exception_handlers[RememError]
    api_invalid = app.exception_handlers[RequestValidationError]

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

    app.add_exception_handler(RememError, remem_error)
    app.add_exception_handler(RequestValidationError, invalid)

    # ------------------------------------------------------------------ sign in
    @router.get("/login", response_class=HTMLResponse)
    def login_form(request: Request, next: str = PREFIX):
        return page(request, "login.html", None, next=next if next.startswith(PREFIX) else PREFIX)

    @router.post("/login")
    def login(request: Request, token: str = Form(""), next: str = Form(PREFIX)):
        check_origin(request)
        if not config.server.tokens or token_agent(config, token) is None:
            return page(request, "login.html", None, status=401, error=True, next=next)
        response = back(next if next.startswith(PREFIX) else PREFIX)
        response.set_cookie(
            TOKEN_COOKIE, token.strip(), httponly=True, samesite="strict", path=PREFIX
        )
        return response

    @router.post("/logout")
    def logout(request: Request):
        check_origin(request)
        response = back(f"{PREFIX}/login")
        response.delete_cookie(TOKEN_COOKIE, path=PREFIX)
        return response

    # ------------------------------------------------------------------ overview
    @router.get("", response_class=HTMLResponse)
    def overview(request: Request, c: Caller = Depends(caller)):
        scopes = c.scopes(mem)
        data = queries.overview(mem, scopes)
        live = mem.indexer.queue_stats()  # the store-wide stats() would scan the whole store
        dropped = int(mem.store.meta_get("indexing", "dropped") or 0)
        return page(
            request,
            "overview.html",
            c,
            data=data,
            chart=timeline_chart(data.per_day),
            size=queries.store_size(mem.path),
            dropped=dropped,
            queue=live,
            backfill=backfill,
        )

    @router.post("/backfill")
    def run_backfill(request: Request, c: Caller = Depends(caller)):
        check_origin(request)
        if backfill.start(mem):
            audit.record(c.agent, "backfill")
        return back(PREFIX, done="overview.backfill_started")

    # ------------------------------------------------------------------ conversations
    @router.get("/conversations", response_class=HTMLResponse)
    def conversations(request: Request, c: Caller = Depends(caller)):
        groups = queries.session_groups(mem, c.scopes(mem))
        return page(request, "conversations.html", c, groups=groups)

    @router.get("/session", response_class=HTMLResponse)
    def session(
        request: Request,
        s: str = Query(min_length=1),
        offset: int = Query(0, ge=0),
        at: str | None = None,
        c: Caller = Depends(caller),
    ):
        scopes = c.scopes(mem)
        records, total = queries.session_page(mem, scopes, s, offset=offset, limit=PAGE)
        if total == 0:
            raise NotFoundError(f"no session {s!r}")  # the same for one the caller cannot read
        return page(
            request,
            "session.html",
            c,
            session=s,
            records=records,
            total=total,
            offset=offset,
            page_size=PAGE,
            at=at,
        )

    @router.get("/record/{record_id:path}")
    def jump(record_id: str, c: Caller = Depends(caller)):
        """Any hit's place: a message in its conversation, a memory on its own page."""
        rec = actions.visible(mem, c, record_id)
        if rec.kind == "memory" or not rec.session:
            return back(f"{PREFIX}/memory/{quote(rec.id, safe='')}")
        offset = queries.offset_of(mem, c.scopes(mem), rec, PAGE)
        url = f"{PREFIX}/session?" + urlencode({"s": rec.session, "offset": offset, "at": rec.id})
        return RedirectResponse(f"{url}#r-{quote(rec.id, safe='')}", status_code=303)

    # ------------------------------------------------------------------ memories
    @router.get("/memories", response_class=HTMLResponse)
    def memories(
        request: Request,
        scope: str = "",
        category: str = "",
        state: str = "current",
        offset: int = Query(0, ge=0),
        c: Caller = Depends(caller),
    ):
        if state not in queries.MEMORY_STATES:
            raise ValidationError("state", state, "use current, superseded or all")
        scopes = c.scopes(mem, scope or None)
        found = queries.memory_page(
            mem, scopes, category=category or None, state=state, offset=offset, limit=PAGE
        )
        return page(
            request,
            "memories.html",
            c,
            rows=found.records,
            more=found.more,
            total=found.total,
            offset=offset,
            page_size=PAGE,
            scope=scope,
            category=category,
            state=state,
            scope_choices=_scope_choices(c),
            categories=queries.categories(mem, c.scopes(mem)),
        )

    def _scope_choices(c: Caller) -> list[str]:
        scopes = c.scopes(mem)
        return scopes if scopes is not None else queries.scopes_in_use(mem)

    @router.get("/memory/{memory_id:path}", response_class=HTMLResponse)
    def memory(request: Request, memory_id: str, c: Caller = Depends(caller)):
        rec = actions.visible_memory(mem, c, memory_id)
        chain = actions.history(mem, c, memory_id)
        readable = c.scopes(mem)
        sources = [
            r
            for r in (mem.get(i) for i in rec.source_ids)
            if r is not None and (readable is None or r.scope in readable)
        ]
        return page(
            request,
            "memory.html",
            c,
            rec=rec,
            chain=chain,
            sources=sources,
            scope_choices=_scope_choices(c),
        )

    @router.post("/edit/{memory_id:path}")
    def edit(
        request: Request,
        memory_id: str,
        text: str = Form(""),
        scope: str = Form(""),
        importance: str = Form(""),
        category: str = Form(""),
        c: Caller = Depends(caller),
    ):
        check_origin(request)
        try:
            new = actions.edit(
                mem,
                c,
                memory_id,
                text=text,
                scope=scope or None,
                importance=_as_json_number(importance),
                category=category or None,
            )
        except (ValidationError, ScopeError) as exc:
            rec = actions.visible_memory(mem, c, memory_id)
            return page(
                request,
                "memory.html",
                c,
                status=400 if isinstance(exc, ValidationError) else 403,
                rec=rec,
                chain=actions.history(mem, c, memory_id),
                sources=[],
                scope_choices=_scope_choices(c),
                error=str(exc),
                form={"text": text, "scope": scope, "importance": importance, "category": category},
            )
        changed(c, "edit", [memory_id, new.id])
        return back(f"{PREFIX}/memory/{quote(new.id, safe='')}", done="mem.edited")

    @router.post("/undo/{memory_id:path}")
    def undo(request: Request, memory_id: str, c: Caller = Depends(caller)):
        check_origin(request)
        restored = actions.undo(mem, c, memory_id)
        changed(c, "undo", [memory_id, *[r.id for r in restored]])
        target = restored[0].id if restored else memory_id
        return back(f"{PREFIX}/memory/{quote(target, safe='')}", done="mem.undo_done")

    @router.get("/delete/{record_id:path}", response_class=HTMLResponse)
    def confirm_delete(request: Request, record_id: str, c: Caller = Depends(caller)):
        rec = actions.visible(mem, c, record_id)
        return page(request, "confirm_delete.html", c, rec=rec)

    @router.post("/delete/{record_id:path}")
    def delete(
        request: Request, record_id: str, confirm: str = Form(""), c: Caller = Depends(caller)
    ):
        check_origin(request)
        if confirm != "yes":
            return back(f"{PREFIX}/delete/{quote(record_id, safe='')}")
        rec = actions.delete(mem, c, record_id)
        changed(c, "delete", [rec.id], kind=rec.kind, scope=rec.scope)
        if rec.kind == "message" and rec.session:
            return back(f"{PREFIX}/session", s=rec.session, done="mem.deleted")
        return back(f"{PREFIX}/memories", done="mem.deleted")

    @router.post("/bulk-delete", response_class=HTMLResponse)
    def bulk_delete(
        request: Request,
        scope: str = Form(""),
        category: str = Form(""),
        state: str = Form("current"),
        confirm: str = Form(""),
        expected: int = Form(-1),
        c: Caller = Depends(caller),
    ):
        """First a dry run (what would go), then the delete; refused if the set changed."""
        check_origin(request)
        if state not in queries.MEMORY_STATES:
            raise ValidationError("state", state, "use current, superseded or all")
        scopes = c.scopes(mem, scope or None)
        filters = queries.memory_filters(scopes, category or None, state)
        ids = queries.memory_ids(mem, filters, state)
        if confirm == "yes" and expected == len(ids):
            n = actions.delete_many(mem, c, ids)
            changed(
                c, "bulk-delete", ids, scope=scope or None, category=category or None, state=state
            )
            return back(f"{PREFIX}/memories", done="confirm.deleted_many", n=n)
        sample = [r for r in (mem.get(i) for i in ids[:10]) if r is not None]
        return page(
            request,
            "confirm_bulk.html",
            c,
            count=len(ids),
            sample=sample,
            scope=scope,
            category=category,
            state=state,
            changed=(expected, len(ids)) if confirm == "yes" else None,
        )

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
        )

    @router.get("/search", response_class=HTMLResponse)
    def search(request: Request, c: Caller = Depends(caller)):
        form = search_form(request)
        result = error = None
        if form.q.strip():
            try:
                result = run_search(mem, c, form, config.server.max_k)
            except (ValidationError, FormError, ScopeError) as exc:
                error = str(exc)
        inject_query = urlencode({"q": form.q, "turn": form.turn, "session": form.session})
        return page(
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
    def inject(request: Request, c: Caller = Depends(caller)):
        """The blocks that would be injected: a fragment for htmx, else a page of its own.
        Two more retrievals, so the search page does not wait for them."""
        form = search_form(request)
        fragment = request.headers.get("hx-request") == "true"
        return page(
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

    # ------------------------------------------------------------------ settings
    @router.get("/settings", response_class=HTMLResponse)
    def settings(request: Request, c: Caller = Depends(caller)):
        sections: dict[str, list[tuple[str, str | None, str]]] = {}
        for key, value, source in config.effective():
            shown: str | None = json.dumps(value, default=str, ensure_ascii=False)
            if c.restricted and key in ("server.tokens", "scopes.agents"):
                shown = None  # other agents and their access lists: not this agent's business
            sections.setdefault(key.split(".")[0], []).append((key, shown, source))
        entries = audit.recent(c.agent if c.restricted else None)
        return page(
            request,
            "settings.html",
            c,
            sections=sections,
            audit=entries,
            audit_file=str(audit.path),
        )

    def warm_up() -> None:
        callers = [Caller(agent, restricted=True) for agent in set(config.server.tokens.values())]
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
    app.include_router(router)
    app.mount(f"{PREFIX}/static", StaticFiles(directory=str(HERE / "static")), name="ui-static")

    @app.get("/", include_in_schema=False)
    def root() -> Response:
        return RedirectResponse(PREFIX)
