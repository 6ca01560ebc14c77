"""What every page of the web UI shares: the memory, templates, audit log, the caller of a
request and the page/redirect/change helpers. Each ``pages_*`` module adds its routes to a
router with ``routes(ui)``."""

from __future__ import annotations

import json
import logging
import math
from datetime import UTC, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.templating import Jinja2Templates

from remem.access import AuthError, Caller, ScopeError
from remem.errors import NotFoundError, ValidationError
from remem.recall.render import local_time
from remem.server.http_guard import change_refusal
from remem.server.ui import actions, queries
from remem.server.ui.audit import AuditLog, audit_path
from remem.server.ui.auth import ui_caller
from remem.server.ui.explain import (
    CHANNELS,
    FormError,
)
from remem.server.ui.i18n import EN, LANG_COOKIE, LANGUAGES, ROLES, choose_language, translator
from remem.server.ui.pipeline_text import sentence, stage_name
from remem.types import KINDS, keyword_score

if TYPE_CHECKING:
    from remem.engine import Memory

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


def _when(ts: float | None, zone: tzinfo = UTC) -> str:
    """A time on ``calendar.timezone``'s clock, with its UTC offset where that is not UTC."""
    return "" if ts is None else local_time(ts, zone, "%Y-%m-%d %H:%M")


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


class UI:
    """The UI of one REST app over one memory."""

    def __init__(self, app: FastAPI, mem: Memory) -> None:
        self.app = app
        self.mem = mem
        self.config = mem.config
        self.templates = templates = Jinja2Templates(directory=str(HERE / "templates"))
        zone = self.config.calendar.zone()
        templates.env.filters.update(
            when=lambda ts: _when(ts, zone), size=_bytes, q=lambda s: quote(str(s), safe="")
        )
        templates.env.globals.update(
            PREFIX=PREFIX,
            KINDS=KINDS,
            CATEGORIES=CATEGORIES,
            STATES=queries.MEMORY_STATES,
            CHANNELS=CHANNELS,
            ROLES=ROLES,
            ZONE=self.config.calendar.timezone,  # the clock every time is shown on
            stage_name=stage_name,
            sentence=sentence,
            keyword_score=keyword_score,
        )
        self.audit = AuditLog(audit_path(mem))
        self.backfill = actions.Backfill()
        # the caller as a route's parameter default (``c: Caller = ui.who``), made once
        self.who: Any = Depends(self.caller)

    def caller(self, request: Request) -> Caller:
        return ui_caller(self.config, request)

    def router(self) -> APIRouter:
        """A router for pages of the UI: under its prefix, left out of the OpenAPI schema."""
        return APIRouter(prefix=PREFIX, include_in_schema=False)

    def lang_of(self, request: Request) -> str:
        return choose_language(
            request.query_params.get("lang"),
            request.cookies.get(LANG_COOKIE),
            request.headers.get("accept-language"),
        )

    def page(
        self, request: Request, name: str, c: Caller | None, status: int = 200, **context: Any
    ) -> HTMLResponse:
        lang = self.lang_of(request)
        done = request.query_params.get("done")
        done = done if done in EN else None  # only our own messages, never text from a URL
        response = self.templates.TemplateResponse(
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

    @staticmethod
    def back(url: str, **params: Any) -> RedirectResponse:
        kept = {k: v for k, v in params.items() if v not in (None, "")}
        return RedirectResponse(url + ("?" + urlencode(kept) if kept else ""), status_code=303)

    def changed(self, c: Caller, action: str, ids: list[str], **detail: Any) -> None:
        """After a change: log it, and count again at once (every page that follows shows
        the change in its counts, not the count from before it)."""
        self.audit.record(c.agent, action, ids, **detail)
        queries.AGGREGATES.forget_all(self.mem)

    def check_origin(self, request: Request) -> None:
        reason = change_refusal(request.headers, tokens=bool(self.config.server.tokens))
        if reason is not None:
            raise ScopeError(reason)
