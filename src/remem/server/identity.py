"""Where a server may listen. Who is calling it (bearer tokens -> agents and users) is decided
in ``remem.access.callers``; its names are re-exported here for older imports.

With no tokens configured a server acts as ``scopes.agent`` and refuses to listen anywhere but
loopback (unless ``server.allow_unauthenticated_bind`` says the network is trusted), so an
unauthenticated server is not reachable from another machine by accident.
"""

from __future__ import annotations

import ipaddress

from remem.access import AuthError, agent_for, grant_for, user_for
from remem.config import Config
from remem.errors import ConfigError

__all__ = [
    "LOOPBACK_NAMES",
    "AuthError",
    "agent_for",
    "check_bind",
    "grant_for",
    "is_loopback",
    "user_for",
]

LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}


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
