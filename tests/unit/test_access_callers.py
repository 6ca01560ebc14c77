"""Who is calling, worked out once (``remem.access.Caller``) for REST, the web UI, MCP and the
proxy, and the guard a handed-down scope list gives (``ScopeGuard.limited_to``, what both
pre-turn paths and the web UI's lists ask)."""

import pytest

from remem import Config
from remem.access import AuthError, Caller, ScopeError, ScopeGuard
from remem.types import Record

TOKENS = {"server.tokens": {"token-of-the-bot-0123": {"agent": "bot", "users": ["ann"]}}}


def config(**settings) -> Config:
    return Config.load(None, overrides=settings)


def record(scope: str, rid: str = "r1") -> Record:
    return Record(id=rid, kind="memory", text="x", scope=scope)


class _Mem:
    def __init__(self, cfg: Config) -> None:
        self.config = cfg


def test_without_tokens_the_caller_is_the_local_operator_acting_as_scopes_agent():
    cfg = config(**{"scopes.agent": "desk"})
    c = Caller.of_token(cfg, None)
    assert (c.agent, c.restricted, c.grant) == ("desk", False, None)
    assert Caller.of_token(cfg, None, agent="cli").agent == "cli"  # a server's --agent wins
    assert c.guard(_Mem(cfg)).read_scopes() is None  # the operator reads every scope
    assert c.user("anyone") == "anyone"  # and vouches for the user it names


def test_a_token_gives_its_agent_restricted_and_bound_to_its_users():
    cfg = config(**TOKENS)
    c = Caller.of_token(cfg, "Bearer token-of-the-bot-0123", agent="ignored")
    assert (c.agent, c.restricted) == ("bot", True)
    assert c.guard(_Mem(cfg)).read_scopes() == ["global", "agent:bot"]
    assert c.user(None) == "ann"
    with pytest.raises(ScopeError, match="acts only for user 'ann'"):
        c.user("bo")


@pytest.mark.parametrize("header", [None, "Basic x", "Bearer nope"])
def test_with_tokens_a_missing_or_unknown_token_is_refused(header):
    with pytest.raises(AuthError):
        Caller.of_token(config(**TOKENS), header)


def test_a_caller_without_an_agent_has_no_access():
    c = Caller.local(config())
    assert c.agent is None
    with pytest.raises(ScopeError, match="no agent identity"):
        c.access(_Mem(config()))


def test_a_guard_filters_records_in_order_and_drops_missing_ones():
    g = ScopeGuard.for_agent(config(), "bot")
    shown = g.filter([record("agent:bot", "a"), None, record("agent:x", "b"), record("global")])
    assert [r.id for r in shown] == ["a", "r1"]
    assert ScopeGuard.operator().filter([record("agent:x"), None]) == [record("agent:x")]


def test_a_handed_down_scope_list_limits_reads_and_writes():
    g = ScopeGuard.limited_to(["global", "user:ann"])
    assert g.restricted and g.read_scopes() == ["global", "user:ann"]
    assert g.read_scopes("user:ann") == ["user:ann"]
    with pytest.raises(ScopeError, match="not one this call may read"):
        g.read_scopes("agent:x")
    assert [r.scope for r in g.filter([record("global"), record("agent:x")])] == ["global"]
    with pytest.raises(ScopeError):
        g.check_write("agent:x")
    assert ScopeGuard.limited_to([]).read_scopes() == []  # an empty list reads nothing
    assert ScopeGuard.limited_to(None) == ScopeGuard.operator()  # None: every scope


def test_the_agent_a_facade_call_acts_as():
    """A token's agent acts as itself; the local operator passes no agent (not limited)."""
    assert Caller.of_token(config(**TOKENS), "Bearer token-of-the-bot-0123").acting_agent == "bot"
    assert Caller.of_token(config(**{"scopes.agent": "desk"}), None).acting_agent is None
