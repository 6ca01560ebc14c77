"""Who may read and write which memories: the one place access is decided.

- ``callers``: who is calling a server (a bearer token's agent, or the local operator),
  worked out once for REST, the web UI, MCP and the OpenAI-compatible proxy (``Caller``).
- ``rules``: what one agent may read and write in one call (``resolve`` -> ``Access``), from
  ``scopes.agents``, ``scopes.mode`` and ``scopes.read_only``.
- ``guard``: the checks every path asks (``ScopeGuard``: the scopes a read may use, whether a
  record is visible, whether a write may go to a scope). A guard without an ``Access`` is the
  local operator (loopback without tokens, the CLI without an agent), who is not limited.

Nothing outside this package tests a record's scope against what a caller may read, builds a
guard or an ``Access`` by hand, or reads a bearer token (``tests/architecture/test_access.py``);
the store backends only apply the scope filter they are handed.
"""

from remem.access.callers import AuthError, Caller, Configured, agent_for, grant_for, user_for
from remem.access.guard import ScopeGuard, check_write, in_scopes
from remem.access.rules import AGENT_RE, Access, ScopeError, resolve

__all__ = [
    "AGENT_RE",
    "Access",
    "AuthError",
    "Caller",
    "Configured",
    "ScopeError",
    "ScopeGuard",
    "agent_for",
    "check_write",
    "grant_for",
    "in_scopes",
    "resolve",
    "user_for",
]
