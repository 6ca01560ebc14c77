"""Where someone lives, read from a visit (English): "Visited Gran today at her flat on Elm
Street", "saw Tom at his place in Leeds", "Gran's flat on Elm Street is cold". The one
visited is the subject (a name or a relative, ``rules_en.S``); "her" / "his" / "their" is
that person, named in the same clause. Beside ``rules_en``, which states homes in the
first person and by a move."""

from __future__ import annotations

from remem.facts.rule import Rule, rule
from remem.facts.rules_en import CAP, NAME, S

_HOME = r"(?:flat|house|place|home|apartment|bungalow|cottage)"
_VISIT = (
    r"\b(?i:visited|visiting|saw|seeing|called\s+(?:in|round)\s+on|popped\s+in\s+on|"
    r"dropped\s+in\s+on|stayed\s+with|staying\s+with)"
)
_WHEN = r"(?:\s+(?i:today|yesterday|again|this\s+morning|this\s+afternoon|last\s+night))?"

RULES_EN: list[Rule] = [
    rule(
        rf"{_VISIT}\s+{S}{_WHEN}\s+at\s+(?:her|his|their)\s+(?:new\s+|old\s+)?{_HOME}\s+"
        rf"(?:on|in)\s+{CAP}",
        "lives_in",
        0.8,
    ),
    rule(rf"(?P<subj>\b{NAME})'s\s+{_HOME}\s+(?:on|in)\s+{CAP}", "lives_in", 0.75),
]
