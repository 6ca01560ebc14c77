"""The shape of an extraction rule, shared by the English and Chinese rule lists.

A rule is a pattern with named groups: ``subj`` (who; absent or empty = the speaker), ``value``
(what; absent only in a negation that names none), ``kind`` (the kind of a family with kinds: "favourite.<kind>").

``confidence`` is the rule's strength, read by recall and shown with a fact:

- 0.9: a first-person statement in the family's own words ("I live in", "我住在", "I'm allergic to");
- 0.85: a cue that usually, not always, means the family ("I joined X", "我在X做Y", "I bought X");
- 0.7-0.8: a weaker one ("still in X", "X died" for a pet, an event "booked for" a date).

The extractor then takes 0.05 off for a subject named in the third person or a relative, and
0.1 for a subject left out at the start of a clause ("Moved to Cork last weekend!") or read
back from "he" / "她".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from remem.facts.model import Polarity

Tense = Literal["now", "past", "plan"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One way a language says a family's fact (see the module docstring for the groups)."""

    pattern: re.Pattern[str]
    attribute: str  # a family, or "family." / "favourite." / "contact." awaiting the kind
    confidence: float = 0.9
    polarity: Polarity = "assert"
    tense: Tense = "now"
    kinds: Mapping[str, str] = field(default_factory=dict)  # the kind group's words -> kind
    shape: Callable[[str], str] | None = None  # the value as stored ("打网球" -> "网球")
    plan_verb: str | None = None  # a plan's verb ("move to"): a plan statement is added
    # the value names what another reading of the same sentence only describes ("一家游戏公司，
    # 星辰科技", "a startup, Acme Labs"): that reading gives way (``extract._distinct``)
    names: bool = False

    def attribute_of(self, match: re.Match[str]) -> str | None:
        """The attribute with its kind filled in; None when the kind is not one it knows."""
        if not self.attribute.endswith("."):
            return self.attribute
        word = (match.groupdict().get("kind") or "").casefold()
        kind = self.kinds.get(word) if self.kinds else word
        return f"{self.attribute}{kind}" if kind else None


def rule(
    pattern: str,
    attribute: str,
    confidence: float = 0.9,
    *,
    polarity: Polarity = "assert",
    tense: Tense = "now",
    kinds: Mapping[str, str] | None = None,
    shape: Callable[[str], str] | None = None,
    plan_verb: str | None = None,
    flags: int = 0,
    names: bool = False,
) -> Rule:
    """A rule from its pattern's text."""
    return Rule(
        re.compile(pattern, flags),
        attribute,
        confidence,
        polarity,
        tense,
        dict(kinds or {}),
        shape,
        plan_verb,
        names,
    )
