"""The rule tables as the extractor's passes try them (``extract._found_in``), in order.

Tables read on the same text are one set: one scan finds the words all of them need
(``RuleSet``), and trying them in this order gives what the tables tried one after the other
gave. The English things' rules are read in both languages ("staging 的 IP").
"""

from __future__ import annotations

from remem.facts import (
    rules_employers,
    rules_en,
    rules_homes,
    rules_owned,
    rules_roles,
    rules_things,
    rules_zh,
)
from remem.facts.rule import Rule, RuleSet

ZH_ALL = RuleSet(
    rules_zh.RULES
    + rules_employers.RULES_ZH
    + rules_owned.RULES_ZH
    + rules_roles.RULES_ZH
    + rules_things.RULES_ZH
)
EN_ALL = RuleSet(
    rules_en.RULES
    + rules_employers.RULES_EN
    + rules_owned.RULES_EN
    + rules_homes.RULES_EN
    + rules_roles.RULES_EN
    + rules_things.RULES_EN
)
EN_AND_THINGS = RuleSet(
    rules_en.RULES + rules_employers.RULES_EN + rules_roles.RULES_EN + rules_things.RULES_EN
)
THINGS_EN = RuleSet(rules_things.RULES_EN)
RULE_SETS = (ZH_ALL, EN_ALL, EN_AND_THINGS, THINGS_EN)

# every rule table the passes read, by name: what the tests compile and check, so a new table
# is added here once
RULE_TABLES: dict[str, list[Rule]] = {
    "rules_employers.RULES_EN": rules_employers.RULES_EN,
    "rules_employers.RULES_ZH": rules_employers.RULES_ZH,
    "rules_en.RULES": rules_en.RULES,
    "rules_homes.RULES_EN": rules_homes.RULES_EN,
    "rules_owned.RULES_EN": rules_owned.RULES_EN,
    "rules_owned.RULES_ZH": rules_owned.RULES_ZH,
    "rules_roles.RULES_EN": rules_roles.RULES_EN,
    "rules_roles.RULES_ZH": rules_roles.RULES_ZH,
    "rules_things.RULES_EN": rules_things.RULES_EN,
    "rules_things.RULES_ZH": rules_things.RULES_ZH,
    "rules_zh.RULES": rules_zh.RULES,
}
assert {id(r) for rs in RULE_SETS for r in rs.rules} == {
    id(r) for table in RULE_TABLES.values() for r in table
}, "a rule set reads a table RULE_TABLES does not name"


def prepare_rule_sets() -> int:
    """Derive every rule set's gate now instead of on the first message read for facts
    (~0.4 CPU-s: a server's warm-up, so a first recall that waits for a message's facts
    does not wait for this); the number of rules."""
    for rule_set in RULE_SETS:
        rule_set.to_try("")
    return sum(len(rule_set.rules) for rule_set in RULE_SETS)
