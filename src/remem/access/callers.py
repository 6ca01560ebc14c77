"""Who is calling: the one place a surface's caller is worked out. REST, the web UI, the MCP
server and the OpenAI-compatible proxy hand over what they know (an ``Authorization: Bearer``
header, the agent they were started as) and get a ``Caller``; ``Caller.guard`` is then what
that caller may read and write in one call (``resolve`` with its session and user).

Bearer tokens map to agent identities (``server.tokens``) and optionally to the users they
may act for. A caller with a token is restricted to its agent's access list. Without tokens
configured the caller is the local operator acting as ``scopes.agent`` (or the agent a server
was started as): the REST API and the web UI do not limit it, while the agent tools (MCP, the
proxy) always act as that agent.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any, Protocol

from remem.access.guard import ScopeGuard
from remem.access.rules import Access, ScopeError, resolve
from remem.config import Config, TokenGrant
from remem.errors import RememError


class AuthError(RememError):
    """Missing or unknown bearer token."""


class Configured(Protocol):
    """Anything that carries the configuration (``Memory``, ``AsyncMemory``)."""

    @property
    def config(self) -> Config: ...


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
    return Caller.of_token(config, authorization).agent


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


@dataclass
class Caller:
    """Who calls a server, worked out once per request."""

    agent: str | None  # None: the local operator (no tokens configured, no scopes.agent)
    restricted: bool  # True when the agent came from a token: the resolver limits it
    grant: TokenGrant | None = None  # the token's grant: the users it may act for

    @classmethod
    def local(cls, config: Config, agent: str | None = None) -> Caller:
        """The local operator (no token), acting as ``agent`` or else ``scopes.agent``."""
        return cls(agent or config.scopes.agent, restricted=False)

    @classmethod
    def of_token(
        cls, config: Config, authorization: str | None, *, agent: str | None = None
    ) -> Caller:
        """The caller of a request with this ``Authorization`` header: the token's agent,
        restricted, or (no tokens configured) the local operator acting as ``agent`` or
        ``scopes.agent``. A missing or unknown token when tokens are configured: AuthError."""
        grant = grant_for(config, authorization)
        if grant is None:
            return cls.local(config, agent)
        return cls(grant.agent, restricted=True, grant=grant)

    @classmethod
    def as_agent(cls, agent: str) -> Caller:
        """An agent as a token would present it (restricted), e.g. to warm up its views."""
        return cls(agent, restricted=True)

    @property
    def acting_agent(self) -> str | None:
        """The agent a facade call (``agent=``) acts as: a token's agent, limited to its
        access; None for the local operator, who is not limited."""
        return self.agent if self.restricted else None

    def user(self, named: str | None) -> str | None:
        """The user this request acts for (a bound token cannot be widened: 403)."""
        return user_for(self.grant, named)

    def access(
        self, mem: Configured, session: str | None = None, user: str | None = None
    ) -> Access:
        """What the caller's agent may touch in this call (refused without an agent)."""
        if not self.agent:
            raise ScopeError("no agent identity: configure server.tokens or scopes.agent")
        return resolve(mem.config, self.agent, session=session, user=user)

    def guard(
        self, mem: Configured, session: str | None = None, user: str | None = None
    ) -> ScopeGuard:
        """The scope guard for this request (the local operator's is unrestricted)."""
        if not self.restricted:
            return ScopeGuard.operator()
        return ScopeGuard(self.access(mem, session, user))

    def scopes(self, mem: Configured, requested: Any = None) -> list[str] | None:
        """The scopes a read may use: None = unrestricted (local operator)."""
        return self.guard(mem).read_scopes(requested)

    def check_write(self, mem: Configured, scope: str) -> None:
        self.guard(mem).check_write(scope)
