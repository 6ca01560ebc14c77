"""The background warm-up (``search/warm.py``) prepares what a first recall would otherwise
pay for, including the fact rules' gates: a recall waits for the facts of a message said a
moment ago, and the first extraction in a process derived every rule set's gate (~0.4 CPU-s)."""

from __future__ import annotations

from remem.facts import rule_sets
from remem.facts.rule import RuleSet
from remem.search.warm import warm


def test_the_warm_up_derives_every_fact_rule_sets_gate(monkeypatch):
    for rule_set in rule_sets.RULE_SETS:
        monkeypatch.setattr(rule_set, "_selector", None)  # as in a fresh process
    warm()
    assert all(rule_set._selector is not None for rule_set in rule_sets.RULE_SETS)


def test_preparing_the_rule_sets_changes_no_extraction(monkeypatch):
    text = "I moved to Oslo last week, 我搬到上海了, my wifi password is hunter2"
    fresh = [RuleSet(rule_set.rules).to_try(text) for rule_set in rule_sets.RULE_SETS]
    for rule_set in rule_sets.RULE_SETS:
        monkeypatch.setattr(rule_set, "_selector", None)
    assert rule_sets.prepare_rule_sets() == sum(len(r.rules) for r in rule_sets.RULE_SETS)
    assert [rule_set.to_try(text) for rule_set in rule_sets.RULE_SETS] == fresh
    assert any(fresh)
