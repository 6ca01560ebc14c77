"""Sign-in and the read-only settings page (with the audit log)."""

from __future__ import annotations

import json

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse

from remem.server.rest_context import Caller
from remem.server.ui.auth import TOKEN_COOKIE, token_agent
from remem.server.ui.context import (
    PREFIX,
    UI,
)


def routes(ui: UI, router: APIRouter) -> None:

    # ------------------------------------------------------------------ sign in
    @router.get("/login", response_class=HTMLResponse)
    def login_form(request: Request, next: str = PREFIX):
        return ui.page(
            request, "login.html", None, next=next if next.startswith(PREFIX) else PREFIX
        )

    @router.post("/login")
    def login(request: Request, token: str = Form(""), next: str = Form(PREFIX)):
        ui.check_origin(request)
        if not ui.config.server.tokens or token_agent(ui.config, token) is None:
            return ui.page(request, "login.html", None, status=401, error=True, next=next)
        response = ui.back(next if next.startswith(PREFIX) else PREFIX)
        response.set_cookie(
            TOKEN_COOKIE, token.strip(), httponly=True, samesite="strict", path=PREFIX
        )
        return response

    @router.post("/logout")
    def logout(request: Request):
        ui.check_origin(request)
        response = ui.back(f"{PREFIX}/login")
        response.delete_cookie(TOKEN_COOKIE, path=PREFIX)
        return response

    # ------------------------------------------------------------------ settings
    @router.get("/settings", response_class=HTMLResponse)
    def settings(request: Request, c: Caller = ui.who):
        sections: dict[str, list[tuple[str, str | None, str]]] = {}
        for key, value, source in ui.config.effective():
            shown: str | None = json.dumps(value, default=str, ensure_ascii=False)
            if c.restricted and key in ("server.tokens", "scopes.agents"):
                shown = None  # other agents and their access lists: not this agent's business
            sections.setdefault(key.split(".")[0], []).append((key, shown, source))
        entries = ui.audit.recent(c.acting_agent)
        return ui.page(
            request,
            "settings.html",
            c,
            sections=sections,
            audit=entries,
            audit_file=None if ui.audit.path is None else str(ui.audit.path),
        )
