"""The scope rules: what one agent may read and write in one call (``Access``), worked out
from the configuration by ``resolve``.

An agent's access list comes from ``scopes.agents``; an agent that is not listed gets
``["global", "agent:<id>"]``: its own scope, never another agent's and never a shared
fallback identity. A missing or malformed agent id is refused. ``{user}`` and ``{session}`` in a
list stand for the current user and session of the call (and vanish when there is none).

Modes (``scopes.mode``):
- ``global``: the agent reads its access list; new memories go to ``capture.scope``.
- ``session``: only ``session:<current>``; new memories go there.
- ``session+global``: the access list plus ``session:<current>``; new memories go to the session.

A requested scope (a tool argument) can only narrow: it must be one the agent may read.
Reading and writing are distinct: ``scopes.read_only`` lists scopes agents read but never
write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from remem.config import Config
from remem.errors import RememError, ValidationError
from remem.schemas import SCOPE_RE

AGENT_RE = re.compile(r"^[A-Za-z0-9_.@\-]{1,100}\Z")
_ID_RE = re.compile(r"^[^\s\x00-\x1f\x7f:][^\s\x00-\x1f\x7f]{0,180}\Z")


class ScopeError(RememError):
    """The agent may not read or write there (or has no usable identity)."""


@dataclass(frozen=True)
class Access:
    """What one agent may touch in one call."""

    agent: str
    readable: tuple[str, ...]
    write_scope: str
    session: str | None = None
    user: str | None = None
    writable: tuple[str, ...] | None = None  # None: every readable scope

    def can_read(self, scope: str) -> bool:
        return scope in self.readable

    def can_write(self, scope: str) -> bool:
        return scope in (self.readable if self.writable is None else self.writable)

    def narrow(self, requested: str | None) -> list[str]:
        """The scopes a read may use: all readable ones, or the one requested if allowed."""
        if requested is None:
            return list(self.readable)
        if not isinstance(requested, str) or not SCOPE_RE.match(requested):
            raise ValidationError(
                "scope",
                requested,
                "use global, agent:<id>, user:<id>, project:<id>, session:<id> or custom:<name>",
            )
        if requested not in self.readable:
            raise ScopeError(
                f"agent {self.agent!r} may not use scope {requested!r} (allowed: "
                f"{', '.join(self.readable)})"
            )
        return [requested]

    def target(self, requested: str | None) -> str:
        """Where a write goes: the requested scope if allowed, else the default one."""
        if requested is None:
            return self.write_scope
        return self.narrow(requested)[0]


def _checked_id(name: str, value: str | None) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _ID_RE.match(value):
        raise ValidationError(name, value, "use 1-180 characters without spaces or a leading ':'")
    return value


def resolve(
    config: Config, agent: str | None, *, session: str | None = None, user: str | None = None
) -> Access:
    """The access of ``agent`` for a call in ``session`` on behalf of ``user``."""
    if agent is None or (isinstance(agent, str) and not agent.strip()):
        raise ScopeError(
            "no agent id: give the agent's id (configuration, --agent, the "
            "client's session); there is no shared default identity"
        )
    if not isinstance(agent, str) or not AGENT_RE.match(agent):
        raise ValidationError("agent", agent, "use 1-100 letters, digits, '_', '-', '.' or '@'")
    session = _checked_id("session", session)
    user = _checked_id("user", user)
    cfg = config.scopes
    listed = cfg.agents.get(agent)
    if listed is None:
        if not cfg.allow_unknown_agents:
            raise ScopeError(
                f"agent {agent!r} is not in scopes.agents and scopes.allow_unknown_agents is off"
            )
        listed = ["global", f"agent:{agent}"]
    base: list[str] = []
    for scope in listed:
        if ("{user}" in scope and user is None) or ("{session}" in scope and session is None):
            continue  # no current user/session: that entry grants nothing this call
        filled = scope.replace("{user}", user or "").replace("{session}", session or "")
        if filled not in base:
            base.append(filled)
    if cfg.mode == "global":
        template = config.capture.scope
        write = _fill(template, agent, user, session)
        if write is None or write not in base:
            write = f"agent:{agent}" if f"agent:{agent}" in base else (base[0] if base else "")
        if not base:
            raise ScopeError(f"agent {agent!r} has an empty access list")
        return _with_writable(Access(agent, tuple(base), write, session, user), cfg.read_only)
    if session is None:
        raise ScopeError(f"scopes.mode={cfg.mode!r} needs the current session id")
    own = f"session:{session}"
    readable = [own] if cfg.mode == "session" else [own, *[s for s in base if s != own]]
    return _with_writable(Access(agent, tuple(readable), own, session, user), cfg.read_only)


def _with_writable(access: Access, read_only: list[str]) -> Access:
    """The access with its writable scopes: the readable ones less ``read_only``; the default
    write scope moves to the first writable one when it is read-only."""
    writable = tuple(s for s in access.readable if s not in read_only)
    if not writable:
        raise ScopeError(
            f"agent {access.agent!r} may write nowhere: scopes.read_only covers "
            "its whole access list"
        )
    write = access.write_scope if access.write_scope in writable else writable[0]
    return replace(access, writable=writable, write_scope=write)


def _fill(template: str, agent: str, user: str | None, session: str | None) -> str | None:
    if ("{user}" in template and user is None) or ("{session}" in template and session is None):
        return None
    out = template.replace("{agent}", agent).replace("{user}", user or "")
    out = out.replace("{session}", session or "")
    return out if SCOPE_RE.match(out) else None
