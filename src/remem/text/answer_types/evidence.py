"""Answer-type evidence: does a hit (or the lines just around it) carry an answer of the type
the question asks for? "What is Priya's favourite movie?" against Priya's lines about her
garden: no film in them, evidence against answering, however strongly they are about Priya.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from remem.text.answer_types.questions import asked_type
from remem.text.answer_types.spans import scored_spans

# How much a span in a neighbouring line counts against one in the hit itself: an answer is
# often the reply to the hit ("Where did you go?" / "Hangzhou"), but a neighbour is also often
# about something else
NEIGHBOUR_WEIGHT = 0.7
# Types whose answer no span shows: a yes or a no is said in any words, and a reason mostly
# without "because" ("佩珊为什么没去？" / "脚崴了"): their spans (``typed_spans(text, "reason")``)
# are a sign where present, but their absence is no evidence against
NO_SPANS = frozenset({"yes_no", "reason"})


def _folded(text: str) -> str:
    return re.sub(r"[\s'’]+", "", text.lower())


def answer_evidence(question: str, texts: Sequence[str]) -> float | None:
    """Evidence in [0, 1] that one of ``texts`` carries an answer of the type ``question``
    asks for; None when the question's type is unknown or is one no span shows (yes/no, reason).

    ``texts[0]`` is the hit, the rest its immediate neighbours (the lines just before and
    after it in its conversation). Each text scores its strongest span of the asked type: 1.0
    for an unmistakable one (a currency amount, a gazetteer city), 0.5 for a weak sign (a
    capitalised phrase after "in"); a neighbour's score is multiplied by ``NEIGHBOUR_WEIGHT``
    (0.7). A span the question itself contains does not count ("Where in Shanghai ...?" is not
    answered by "Shanghai"). The evidence is the best score over the texts: 0.0 when none of
    them has a span of the type, which is evidence against answering.
    """
    kind = asked_type(question)
    if kind is None or kind in NO_SPANS:
        return None
    asked = _folded(question)
    best = 0.0
    for i, text in enumerate(texts):
        weight = 1.0 if i == 0 else NEIGHBOUR_WEIGHT
        for span, strength in scored_spans(text, kind):
            if _folded(span) and _folded(span) not in asked:
                best = max(best, weight * strength)
    return best
