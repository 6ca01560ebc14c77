"""Whose value a hit states: answerability evidence from the fact layer (issue 45).

Relevance and the asked-attribute reader say that a line is about the question's subject and
states the asked attribute; neither says *whose* value it states. A near miss's best hit is
often another subject's value of the asked attribute (another flat's rent, another friend's
pet). The fact layer (``remem.facts``: subject, attribute, value and the records that state
it, extracted without an LLM) reads exactly that, and ``facts.question`` reads which subject
and attribute a question asks about. Two inputs of the answerability score:

- ``fact_whose`` (a hit): 1 when a fact of an asked attribute about the asked subject cites
  the hit; 0.75 when one cites a neighbour of it; 0 when facts of an asked attribute cite it
  (or a neighbour) about other subjects only; 0.5 when no fact of an asked attribute cites
  either. None when the question names no subject the store has facts about, or no attribute
  family (``facts.question.asked_attributes``).
- ``speaker_whose`` (a hit, without facts): a first-person line ("my wifi password is ...",
  "我养了一只猫") states its speaker's value: 1 when the question names the speaker, 0 when it
  names someone else; None when the line is not first-person or the question names nobody.

A third was tried and left out (docs/decisions/0014-answerability.md): whether the asked
subject has a fact of the asked attribute anywhere in the store while others do (no gain once
``fact_whose`` is in: its fitted weight came out against its meaning). Every read goes through
the store's public fact calls (``FactStore``): two per search, none for a store without facts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from remem.facts.question import asked_fact
from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.store.base import FactStore
from remem.text.lazy_re import lazy_compile
from remem.types import Fact

# the values of ``fact_whose``
STATED = 1.0
STATED_NEAR = 0.75
UNSAID = 0.5
ANOTHERS = 0.0

# a line in the first person: its speaker's own value ("我们" is the group's, not the speaker's)
_FIRST_PERSON_EN = lazy_compile(r"\b(?:I|I'm|I've|I'd|my|mine|me)\b", re.IGNORECASE)
_FIRST_PERSON_ZH = lazy_compile(r"我(?!们)")


@dataclass
class AskedFacts:
    """What the fact layer knows about the one (subject, attributes) a question asks for."""

    subject: str  # the asked subject's key
    attributes: tuple[str, ...]  # the families the question may mean
    # record id -> the subjects of the facts of an asked attribute that the record states
    stated: dict[str, set[str]] = field(default_factory=dict)


def _same_attribute(fact: str, asked: Iterable[str]) -> bool:
    """A fact's attribute is one asked: the same, or of the asked family when the question
    names no kind ("contact" asks for contact.phone; favourite.film is not favourite.food)."""
    return any(fact == a or ("." not in a and fact.partition(".")[0] == a) for a in asked)


def read_asked(
    store: object, query: str, scopes: Sequence[str] | None, record_ids: Sequence[str]
) -> AskedFacts | None:
    """The fact layer's view of the question for these records (the best hits and their
    neighbours); None when the store keeps no facts or the question asks no known fact."""
    if not isinstance(store, FactStore):
        return None
    subjects = [(key, shown) for key, shown, _n in store.fact_subjects(scopes)]
    asked = asked_fact(query, subjects) if subjects else None
    if asked is None or not asked.attributes:
        return None
    found = AskedFacts(asked.subject, asked.attributes)
    for fact in _of_asked(store.facts_citing(list(record_ids)), asked.attributes):
        for rid in fact.source_ids:
            found.stated.setdefault(rid, set()).add(fact.subject)
    return found


class SearchEvidence(Protocol):
    """What these inputs read of the answerability stage's ``HitEvidence``."""

    ctx: StageContext
    top: list[Candidate]  # the best hits
    near_ids: dict[int, list[str]]  # rowid -> its neighbours' record ids
    facts_read: bool
    asked_facts: AskedFacts | None


def fact_whose(c: Candidate, ev: SearchEvidence) -> float | None:
    """``fact_whose`` of a hit (the fact layer read once per search, at the first use)."""
    if not ev.facts_read:
        ids = [h.record.id for h in ev.top if h.record is not None]
        ids += [rid for near in ev.near_ids.values() for rid in near]
        scopes = ev.ctx.request.filters.scopes if ev.ctx.request.filters is not None else None
        ev.facts_read = True
        ev.asked_facts = read_asked(ev.ctx.readers.store, ev.ctx.request.query, scopes, ids)
    if ev.asked_facts is None or c.record is None:
        return None
    return whose(ev.asked_facts, c.record.id, ev.near_ids.get(c.rowid, ()))


def speaker_feature(c: Candidate, ev: SearchEvidence) -> float | None:
    """``speaker_whose`` of a hit."""
    if c.record is None:
        return None
    return speaker_whose(c.record.speaker_label, c.record.text, ev.ctx.understood.named)


def _of_asked(facts: Iterable[Fact], attributes: tuple[str, ...]) -> list[Fact]:
    return [f for f in facts if _same_attribute(f.attribute, attributes)]


def whose(asked: AskedFacts, record_id: str, neighbour_ids: Iterable[str]) -> float:
    """``fact_whose`` of a hit (see the module's docstring)."""
    own = asked.stated.get(record_id, set())
    if asked.subject in own:
        return STATED
    near: set[str] = set()
    for rid in neighbour_ids:
        near |= asked.stated.get(rid, set())
    if asked.subject in near:
        return STATED_NEAR
    return ANOTHERS if own or near else UNSAID


def first_person(text: str) -> bool:
    """Whether a line speaks in the first person singular (English or Chinese)."""
    return bool(_FIRST_PERSON_EN.search(text) or _FIRST_PERSON_ZH.search(text))


def speaker_whose(label: str | None, text: str, named: Iterable[str]) -> float | None:
    """``speaker_whose`` of a line said by ``label`` (``named``: the speaker labels the
    question names)."""
    names = set(named)
    if not names or not label or not first_person(text):
        return None
    return 1.0 if label in names else 0.0
