"""Who is calling a server: bearer tokens map to agent identities (``server.tokens``); the
identity then goes through the same scope resolver as every other path.

With no tokens configured a server acts as ``scopes.agent`` and refuses to listen anywhere but
loopback, so an unauthenticated server is never reachable from another machine.
"""

from __future__ import annotations

import hmac
import ipaddress

from remem.config import Config
from remem.errors import ConfigError, RememError

LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}


class AuthError(RememError):
    """Missing or unknown bearer token."""


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(config: Config, host: str) -> None:
    """Refuse to serve beyond loopback without tokens."""
    if not config.server.tokens and not is_loopback(host):
        raise ConfigError(
            f"refusing to listen on {host!r} without authentication: set "
            "server.tokens (token -> agent id) or listen on 127.0.0.1"
        )


def agent_for(config: Config, authorization: str | None) -> str | None:
    """The agent identity of a request, from its ``Authorization: Bearer`` header."""
    tokens = config.server.tokens
    if not tokens:
        return config.scopes.agent
    if not authorization or not authorization.lower().startswith("bearer "):
        raise AuthError("missing bearer token: send 'Authorization: Bearer <token>'")
    given = authorization[7:].strip()
    for token, agent in tokens.items():
        if hmac.compare_digest(token.encode(), given.encode()):  # constant time
            return agent
    raise AuthError("unknown bearer token")
