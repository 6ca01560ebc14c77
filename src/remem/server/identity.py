"""Who is calling a server: bearer tokens map to agent identities (``server.tokens``), and
optionally to the users they may act for; the identity then goes through the same scope
resolver as every other path.

With no tokens configured a server acts as ``scopes.agent`` and refuses to listen anywhere but
loopback (unless ``server.allow_unauthenticated_bind`` says the network is trusted), so an
unauthenticated server is not reachable from another machine by accident.
"""

from __future__ import annotations

import hmac
import ipaddress

from remem.access import ScopeError
from remem.config import Config, TokenGrant
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
    """Refuse to serve beyond loopback without tokens, unless the operator says the network
    is trusted (``server.allow_unauthenticated_bind``)."""
    server = config.server
    if not server.tokens and not is_loopback(host) and not server.allow_unauthenticated_bind:
        raise ConfigError(
            f"refusing to listen on {host!r} without authentication: everyone who can reach "
            "it could read, change and delete every memory. Set server.tokens (token -> agent "
            "id), listen on 127.0.0.1, or on a trusted network set "
            "server.allow_unauthenticated_bind = true (and the names clients use in "
            "server.allowed_hosts)"
        )


def grant_for(config: Config, authorization: str | None) -> TokenGrant | None:
    """What a request's ``Authorization: Bearer`` token stands for (None when no tokens are
    configured: the local operator)."""
    tokens = config.server.tokens
    if not tokens:
        return None
    if not authorization or not authorization.lower().startswith("bearer "):
        raise AuthError("missing bearer token: send 'Authorization: Bearer <token>'")
    given = authorization[7:].strip()
    for token, grant in tokens.items():
        if hmac.compare_digest(token.encode(), given.encode()):  # constant time
            return grant
    raise AuthError("unknown bearer token")


def agent_for(config: Config, authorization: str | None) -> str | None:
    """The agent identity of a request, from its ``Authorization: Bearer`` header."""
    grant = grant_for(config, authorization)
    return config.scopes.agent if grant is None else grant.agent


def user_for(grant: TokenGrant | None, named: str | None) -> str | None:
    """The user a request acts for, given the one it names (request body, ``X-Remem-User``).

    Who vouches for the user: a token bound to users (``server.tokens``, ``users = [...]``)
    acts only for them, so naming another is refused and naming none means its user when it
    has exactly one. Without a binding (or without tokens) the caller vouches for the user it
    names, and ``user:{user}`` in an access list trusts it."""
    if grant is None or grant.users is None:
        return named
    if named is None:
        return grant.users[0] if len(grant.users) == 1 else None
    if named not in grant.users:
        raise ScopeError(
            f"this token acts only for user {', '.join(map(repr, grant.users))} "
            f"(server.tokens binds it), not for {named!r}; name one of those or leave the "
            "user out"
        )
    return named
