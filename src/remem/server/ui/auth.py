"""Who is using the UI: the same identities as the REST API (``server.tokens`` -> agent ->
``Caller``). A browser cannot send a bearer header on a plain link, so the token can also come
from an HttpOnly, SameSite=Strict cookie set by the sign-in form; an ``Authorization`` header
still wins. Without tokens the UI answers loopback clients only, as the operator. Which Host
and Origin it answers to, and which form posts it accepts, is ``http_guard``'s policy."""

from __future__ import annotations

from fastapi import Request

from remem.access import AuthError, Caller, ScopeError, agent_for
from remem.config import Config
from remem.server.identity import is_loopback

TOKEN_COOKIE = "remem_token"


def ui_caller(config: Config, request: Request) -> Caller:
    """The Caller of a UI request; AuthError (-> sign-in page) when a token is needed."""
    if config.server.tokens:
        header = request.headers.get("authorization")
        cookie = request.cookies.get(TOKEN_COOKIE)
        if not header and cookie:
            header = f"Bearer {cookie}"
        return Caller.of_token(config, header)
    client = request.client.host if request.client else ""
    if not is_loopback(client):
        raise ScopeError("without server.tokens the UI answers loopback clients only")
    return Caller.local(config)


def token_agent(config: Config, token: str) -> str | None:
    """The agent a typed token belongs to, or None (the sign-in form)."""
    try:
        return agent_for(config, f"Bearer {token.strip()}")
    except AuthError:
        return None
