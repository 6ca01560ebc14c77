"""A fact rule's pattern is compiled on first use, once, whichever thread gets there first
(the tables were compiled at import: ~1.3 s of every command's start)."""

from __future__ import annotations

import re

import pytest

from first_use import at_once, record_compiles
from remem.facts.rule import rule
from remem.facts.rule_sets import RULE_TABLES as TABLES


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_rule_of_the_tables_compiles(table):
    """A bad pattern no longer fails the import: it must fail here instead."""
    for r in TABLES[table]:
        assert r.pattern.pattern == r.source
        assert r.pattern.flags & r.flags == r.flags


def test_a_rule_is_compiled_on_first_use_once_across_threads(monkeypatch):
    calls = record_compiles(monkeypatch)
    r = rule(r"I live in (?P<value>\w+)", "lives_in", flags=re.I)
    assert calls == []  # not at construction
    seen: list[re.Pattern[str]] = []
    at_once(lambda: seen.append(r.pattern))
    assert calls == [r"I live in (?P<value>\w+)"]
    assert len({id(p) for p in seen}) == 1
    match = r.pattern.search("i live in Porto")
    assert match is not None and match["value"] == "Porto"
