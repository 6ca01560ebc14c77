"""What every HTTP surface (the REST API with the web UI, MCP over HTTP, the proxy) does before
and after its own code, in one ASGI middleware, ``Guard``:

- **Host and Origin.** A page of another site whose name was re-pointed at 127.0.0.1 (DNS
  rebinding) is "same origin" with a loopback server and sends its own name as ``Host``; a
  page of any site can send a simple cross-site request, whose ``Origin`` names that site.
  Without tokens, on loopback, or once ``server.allowed_hosts`` is set, both must name
  127.0.0.1, localhost, ::1 or a configured host, else the request gets 421 (Host) or
  403 (Origin) before any route runs. ``Origin: null`` (sandboxed frames, files) is refused
  without tokens.
- **Security headers** on every answer: no framing (``X-Frame-Options``, CSP
  ``frame-ancestors``), a CSP that lets the web UI run its own scripts only, ``nosniff`` and
  ``Referrer-Policy: same-origin``. A route that sets its own CSP (the API docs) keeps it.
- **Unexpected exceptions** answer 500 in the surface's own error shape with a request id,
  and the log gets one line with that id and the traceback (never a bare text/plain
  "Internal Server Error" or a reset connection).

``check_bind`` (in ``identity``) decides where a server may listen; this module decides what
it answers there.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from remem.config import Config
from remem.server.identity import is_loopback

log = logging.getLogger("remem.http")

# The web UI loads its script and stylesheet from /ui/static; its explain bars set their width
# in a style attribute, hence 'unsafe-inline' for styles only.
UI_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "content-security-policy": UI_POLICY,
}

# (status, message, request id or None) -> the surface's error answer
Render = Callable[[int, str, str | None], Response]


def host_name(value: str) -> str:
    """The host name of a ``Host`` header or an origin's netloc, lower case, without port."""
    try:
        return (urlsplit(f"//{value}").hostname or "").lower()
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return ""


class HostPolicy:
    """Which names a server answers to (see the module's docstring)."""

    def __init__(self, config: Config, bind_host: str) -> None:
        self.allowed = frozenset(config.server.allowed_hosts)
        self.tokens = bool(config.server.tokens)
        # On loopback only loopback names can be legitimate, and without tokens nothing else
        # stands between a rebound page and the records; beyond loopback with tokens the names
        # a server is reached by are the operator's business, unless they listed them.
        self.checked = not self.tokens or is_loopback(bind_host) or bool(self.allowed)

    def accepts(self, name: str) -> bool:
        return is_loopback(name) or name in self.allowed

    def names(self) -> str:
        return ", ".join(["127.0.0.1", "localhost", "::1", *sorted(self.allowed)])

    def refusal(self, headers: Headers) -> tuple[int, str] | None:
        """(status, reason) when the request must not be served, else None."""
        if not self.checked:
            return None
        host = headers.get("host", "")
        if not self.accepts(host_name(host)):
            return 421, (
                f"this server answers only at {self.names()}, not at Host {host!r}: to serve "
                "it under another name, add the name to server.allowed_hosts"
            )
        origin = headers.get("origin")
        if origin is None or (origin == "null" and self.tokens):
            return None
        if origin == "null" or not self.accepts(host_name(urlsplit(origin).netloc)):
            return 403, (
                f"requests from pages of Origin {origin!r} are refused: this server answers "
                f"pages of {self.names()} only (server.allowed_hosts adds names)"
            )
        return None


def change_refusal(headers: Headers, tokens: bool) -> str | None:
    """Why a state-changing browser request (a web UI form POST) must be refused, or None.

    Browsers send ``Origin`` with a POST; a few old ones, and some privacy settings, send only
    ``Referer``: either must name this server exactly (scheme aside: host and port). With
    neither, a token-less server cannot tell a foreign page from its own and refuses; with
    tokens, the SameSite=Strict cookie or a bearer header already proves the caller."""
    host = headers.get("host", "")
    origin = headers.get("origin")
    referer = headers.get("referer")
    if origin is not None:
        if origin != "null" and urlsplit(origin).netloc == host:
            return None
        return f"a change must come from a page of this server, not from Origin {origin!r}"
    if referer is not None:
        if urlsplit(referer).netloc == host:
            return None
        return "a change must come from a page of this server (the Referer names another)"
    if tokens:
        return None
    return (
        "a change must come from a page of this server: the request has neither Origin nor "
        "Referer (a browser sends one with a form; without server.tokens one is required)"
    )


class Guard:
    """ASGI middleware: the host policy, the security headers and the JSON 500 (see above).
    Add it last so it wraps every other middleware of the app."""

    def __init__(self, app: ASGIApp, policy: HostPolicy, render: Render) -> None:
        self.app, self.policy, self.render = app, policy, render

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def secured(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        refusal = self.policy.refusal(Headers(scope=scope))
        if refusal is not None:
            return await self.render(*refusal, None)(scope, receive, secured)
        try:
            await self.app(scope, receive, secured)
        except Exception:  # whatever the route did: one logged line, one JSON answer
            request_id = uuid.uuid4().hex[:16]
            log.exception(
                "request %s failed: %s %s", request_id, scope.get("method"), scope.get("path")
            )
            if started:  # the status line is gone: the client sees a cut-short body
                return
            message = (
                f"internal error in remem (request id {request_id}); the server log has the "
                "details under that id"
            )
            answer = self.render(500, message, request_id)
            answer.headers["x-request-id"] = request_id
            await answer(scope, receive, secured)
