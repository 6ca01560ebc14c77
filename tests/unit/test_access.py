"""The one scope guard: reads narrow, writes are checked against writable scopes (distinct
from readable ones), and a record the caller may not read answers like a missing one."""

import pytest

from remem import Config
from remem.access import ScopeError, ScopeGuard
from remem.errors import NotFoundError, ValidationError
from remem.types import Record


def guard(**settings) -> ScopeGuard:
    config = Config.load(None, overrides=settings)
    return ScopeGuard.for_agent(config, "bot", session="s1", user="u1")


def record(scope: str) -> Record:
    return Record(id="r1", kind="memory", text="x", scope=scope)


def test_reads_narrow_and_never_widen():
    g = guard()
    assert g.read_scopes() == ["global", "agent:bot"]
    assert g.read_scopes("agent:bot") == ["agent:bot"]
    with pytest.raises(ScopeError, match="may not use scope"):
        g.read_scopes("agent:other")
    with pytest.raises(ValidationError):
        g.read_scopes("not a scope")


def test_hidden_records_answer_like_missing_ones():
    g = guard()
    assert g.visible(record("agent:bot"), "record 'r1'").scope == "agent:bot"
    with pytest.raises(NotFoundError) as hidden:
        g.visible(record("agent:other"), "record 'r1'")
    with pytest.raises(NotFoundError) as missing:
        g.visible(None, "record 'r1'")
    assert str(hidden.value) == str(missing.value)


def test_read_only_scopes_are_read_but_not_written():
    g = guard(**{"scopes.read_only": ["global"]})
    assert g.read_scopes() == ["global", "agent:bot"]
    assert g.access is not None and g.access.can_read("global")
    assert not g.access.can_write("global") and g.access.can_write("agent:bot")
    with pytest.raises(ScopeError, match="may not write to scope 'global'"):
        g.check_write("global")
    assert g.write_target(None) == "agent:bot"


def test_a_default_write_scope_that_is_read_only_moves_to_a_writable_one():
    g = guard(
        **{
            "scopes.agents": {"bot": ["global", "user:{user}"]},
            "capture.scope": "global",
            "scopes.read_only": ["global"],
        }
    )
    assert g.access is not None and g.access.write_scope == "user:u1"


def test_nothing_writable_is_refused():
    with pytest.raises(ScopeError, match="may write nowhere"):
        guard(**{"scopes.read_only": ["global", "agent:bot"]})


def test_the_operator_is_not_limited():
    g = ScopeGuard()
    assert not g.restricted
    assert g.read_scopes() is None and g.read_scopes("agent:x") == ["agent:x"]
    g.check_write("agent:anyone")
    assert g.visible(record("agent:x"), "record").scope == "agent:x"
