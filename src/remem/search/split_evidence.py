"""Split evidence: the question's subject is matched, the asked attribute is not (issue 45).

A near miss ("What's the wifi password at Lin Wei's place?") finds lines about its subject
(Lin Wei, his place) and none that states what was asked (a password), or states it only
about another subject (Ann's home for "Where does Tom live?"). Each hit input says a little
of this (``attribute``: the asked attribute stated by the hit or its neighbours;
``fact_whose``: whose value of it the fact layer reads there); the answerability score's
question part sums them, so a search whose subject matches everywhere and whose attribute
is stated nowhere can still look answered. ``split_evidence`` reads the conjunction once per
search: 1 when some best hit matches the subject (a hit by a person the question names, or
holding a good share of its other words) and no best hit states the asked attribute (with its
neighbours) or every fact of the asked attribute there is about someone else; 0 when the
subject is not matched or an attribute is stated; None when the question asks for no
attribute the readers know (nothing to be split on).

Measured alone and combined in docs/decisions/0014-answerability.md ("Split evidence").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

# the hit inputs it reads (``remem.search.answerability.FEATURES``)
READS = frozenset({"attribute", "fact_whose", "named_speaker", "subject_near"})
# a share of the question's words (people's names left out) that counts as its subject
# matched: the level at which a line is about the same thing in the suite's questions
SUBJECT_MATCHED = 0.3


def split_evidence(rows: Sequence[Mapping[str, float | None]]) -> float | None:
    """1 when the best hits' ``rows`` match the question's subject but none states the asked
    attribute (or only another subject's value of it), 0 when not, None when unknown."""
    attributes = [v for r in rows if (v := r.get("attribute")) is not None]
    whose = [v for r in rows if (v := r.get("fact_whose")) is not None]
    if not attributes and not whose:
        return None
    absent = (bool(attributes) and max(attributes) == 0) or (bool(whose) and max(whose) == 0)
    subject = any(
        r.get("named_speaker") == 1 or (r.get("subject_near") or 0.0) >= SUBJECT_MATCHED
        for r in rows
    )
    return 1.0 if absent and subject else 0.0
