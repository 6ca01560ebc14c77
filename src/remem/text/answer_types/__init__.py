"""Answer types (issue 45): what kind of answer a question asks for, which spans of a text are
of that kind, and the evidence that a hit carries an answer of it, without a reader model.

- ``asked_type("张敏养了什么宠物？")`` -> ``"pet"``; ``asked_type("What is Lin Wei's phone
  number?")`` -> ``"contact"``; None when unknown.
- ``typed_spans("我花了三百块", "amount")`` -> ``["三百块"]``.
- ``answer_evidence(question, [hit, *neighbours])`` -> a float in [0, 1], or None.
- ``attribute_evidence(question, [hit, *neighbours])``: whether the lines state the asked
  attribute ("password", "养"/"宠物"), not only carry a span of its type (``attributes.py``).
"""

from __future__ import annotations

from remem.text.answer_types.attributes import asked_attribute, attribute_evidence
from remem.text.answer_types.evidence import answer_evidence
from remem.text.answer_types.lexicon import KINDS
from remem.text.answer_types.questions import asked_type
from remem.text.answer_types.spans import scored_spans

ANSWER_TYPES: tuple[str, ...] = (
    "place",
    "person",
    "organisation",
    "time",
    "duration",
    "number",
    "amount",
    "reason",
    "yes_no",
    "contact",  # a phone number or an e-mail address
    "code",  # a password, a PIN, an IP address
    "name",  # what someone or something is called (a pet's name, a band's)
    *KINDS,  # the named things of a kind: film, food, pet, instrument, sport, book ...
)


def typed_spans(text: str, kind: str) -> list[str]:
    """The spans of ``text`` that are of that kind (e.g. "Shanghai", "三百块", "next
    Tuesday"), strongest first; [] for ``yes_no`` and for a kind not in ``ANSWER_TYPES``."""
    return [span for span, _ in sorted(scored_spans(text, kind), key=lambda s: -s[1])]


__all__ = [
    "ANSWER_TYPES",
    "answer_evidence",
    "asked_attribute",
    "asked_type",
    "attribute_evidence",
    "typed_spans",
]
