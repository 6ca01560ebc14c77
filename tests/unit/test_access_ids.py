"""The id rule of the scope guard: an agent picks ids only in the namespace of the scope it
writes to (everything before the id's last '/'), so whether an id is taken never tells it
about a scope it cannot write; the local operator picks any id."""

import pytest

from remem import Config
from remem.access import ScopeError, ScopeGuard


def guard(*scopes: str) -> ScopeGuard:
    config = Config.load(None, overrides={"scopes.agents": {"bot": list(scopes)}})
    return ScopeGuard.for_agent(config, "bot")


@pytest.mark.parametrize(
    "scope, record_id",
    [
        ("agent:bot", None),  # remem makes the id
        ("agent:bot", "agent:bot/m1"),
        ("agent:bot", "agent:bot/qq:12345"),
        ("custom:a/b", "custom:a/b/x"),  # a scope name holding '/'
        ("custom:a", "custom:a/x"),
    ],
)
def test_ids_under_the_written_scope_pass(scope, record_id):
    guard("agent:bot", "custom:a", "custom:a/b").check_new_record(record_id, scope)


@pytest.mark.parametrize(
    "scope, record_id",
    [
        ("agent:bot", "m1"),
        ("agent:bot", "agent:bot/"),  # no name
        ("agent:bot", "agent:bot"),
        ("agent:bot", "agent:other/m1"),
        ("agent:bot", "agent:botnet/m1"),
        ("custom:a", "custom:a/b/x"),  # custom:a/b's namespace, not custom:a's
        ("agent:bot", 42),
    ],
)
def test_other_ids_are_refused_with_one_answer(scope, record_id):
    g = guard("agent:bot", "custom:a", "custom:a/b")
    with pytest.raises(ScopeError) as err:
        g.check_new_record(record_id, scope)
    assert str(err.value) == (
        f"agent 'bot' may choose ids only under the scope it writes to: give '{scope}/<name>' "
        f"(a name without '/', e.g. '{scope}/msg-42'), or leave the id out and remem makes one"
    )


def test_a_scope_it_may_not_write_is_refused_first():
    with pytest.raises(ScopeError, match="may not write to scope 'agent:other'"):
        guard("agent:bot").check_new_record("agent:other/m1", "agent:other")


def test_the_operator_picks_any_id():
    ScopeGuard().check_new_record("anything at all", "agent:whoever")
