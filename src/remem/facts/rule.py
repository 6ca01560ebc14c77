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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from remem.facts.literals import Selector
from remem.facts.model import Polarity
from remem.text.lazy_re import LazyPattern

Tense = Literal["now", "past", "plan"]

# The rule tables hold a few hundred large patterns (~1.3 s to compile together), which every
# process importing the facts package paid at start, text or not: a rule's pattern is compiled
# when it is first matched instead (``LazyPattern``: once per process, whichever thread is first).


@dataclass(frozen=True, slots=True)
class Rule:
    """One way a language says a family's fact (see the module docstring for the groups)."""

    source: str  # the pattern's text, compiled on first use (``pattern``)
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
    flags: int = 0  # the pattern's re flags
    _lazy: LazyPattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_lazy", LazyPattern(self.source, self.flags))  # frozen: once

    @property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern: compiled once per process, by the first thread to match it."""
        return self._lazy.compiled()

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
    """A rule from its pattern's text (compiled when the rule is first matched)."""
    return Rule(
        pattern,
        attribute,
        confidence,
        polarity,
        tense,
        dict(kinds or {}),
        shape,
        plan_verb,
        names,
        flags,
    )


class RuleSet:
    """Rules tried in order on a text, skipping those that cannot match it (issue 47: most
    chat states no fact, and every rule's pattern on every sentence was ~40% of a writer's
    CPU): ``literals.Selector`` derives the words each rule's every match needs from its
    pattern, on first use, and finds them all in one scan of the text."""

    __slots__ = ("_selector", "rules")

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = tuple(rules)
        self._selector: Selector | None = None

    def to_try(self, text: str) -> list[Rule]:
        """The rules that may match ``text``, in their order; the others provably cannot."""
        selector = self._selector
        if selector is None:  # two threads may both build it: the same, harmlessly
            selector = self._selector = Selector([(r.source, r.flags) for r in self.rules])
        return [self.rules[i] for i in selector.runnable(text)]
