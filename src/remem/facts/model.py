"""The shapes of the fact layer: statements read from records, attribute families, subject
keys, and the ids that make a rebuild write the same facts again."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

Polarity = Literal["assert", "negate"]


@dataclass(frozen=True, slots=True)
class AttributeSpec:
    """An attribute family. ``single``: a subject has one value at a time (a new value closes
    the old one: where someone lives); otherwise values coexist and only a negation closes one
    (likes, pets, allergies). ``kinds``: the family takes a kind after a dot
    ("favourite.film", "contact.phone", "family.sister"), each kind its own chain."""

    name: str
    single: bool
    description: str
    kinds: bool = False


ATTRIBUTES: dict[str, AttributeSpec] = {
    spec.name: spec
    for spec in (
        AttributeSpec("lives_in", True, "where the subject lives (city, country, address)"),
        AttributeSpec("located_in", True, "where the subject is staying or is right now"),
        AttributeSpec("works_at", True, "the organisation the subject works for"),
        AttributeSpec("studies_at", True, "the school or university the subject attends"),
        AttributeSpec("role", True, "the subject's job or title"),
        AttributeSpec("partner", True, "the subject's partner or spouse"),
        AttributeSpec("family", False, "a relative, by relation: family.sister = Mei", True),
        AttributeSpec("pet", False, "an animal the subject keeps"),
        AttributeSpec("likes", False, "something the subject likes or enjoys"),
        AttributeSpec("dislikes", False, "something the subject dislikes"),
        AttributeSpec("favourite", True, "the subject's favourite of a kind", True),
        AttributeSpec("owns", False, "something the subject owns (a car, an instrument)"),
        AttributeSpec("allergic_to", False, "an allergy"),
        AttributeSpec("health", False, "a health condition or injury"),
        AttributeSpec("diet", True, "how the subject eats (vegetarian, halal, no sugar)"),
        AttributeSpec("plan", False, "something the subject plans to do, with its date"),
        AttributeSpec("contact", True, "a contact handle by kind: contact.phone", True),
    )
}


def spec_of(attribute: str) -> AttributeSpec:
    """The family of an attribute ("favourite.film" -> favourite); KeyError names it."""
    family, _, kind = attribute.partition(".")
    spec = ATTRIBUTES.get(family)
    if spec is None or bool(kind) != spec.kinds:
        raise KeyError(f"unknown fact attribute {attribute!r}")
    return spec


@dataclass(frozen=True, slots=True)
class Statement:
    """One thing a record says about a subject's attribute. ``value`` None only for a
    negation that names no value ("I don't work there any more"). ``valid_from``: when it
    became (or becomes) true: the time said ("last month", a plan's "on December 1st"), else
    when it was said. ``valid_to``: set when the statement itself puts the fact in the past
    ("I used to live in Berlin"), which closes nothing else."""

    record_id: str
    scope: str
    subject: str
    subject_name: str
    attribute: str
    value: str | None
    said_at: float
    valid_from: float
    polarity: Polarity = "assert"
    valid_to: float | None = None
    confidence: float = 0.9
    origin: str = "rules"


def speaker_subject(speaker_id: str) -> str:
    """The subject key of someone the store knows by id."""
    return f"speaker:{speaker_id}"


def name_subject(name: str) -> str:
    """The subject key of someone known only by name (case and width folded)."""
    return f"name:{unicodedata.normalize('NFKC', name).casefold().strip()}"


_ARTICLES = re.compile(r"^(?:the|a|an|my|our)\s+", re.IGNORECASE)
_PUNCT = re.compile(r"[\s\W_]+", re.UNICODE)


def value_key(value: str) -> str:
    """What two values must share to be the same value: "Shanghai." == "shanghai" ==
    "the Shanghai"; width, case, articles, spaces and punctuation do not count."""
    text = unicodedata.normalize("NFKC", value).casefold().strip()
    text = _ARTICLES.sub("", text)
    return _PUNCT.sub("", text) or text


def fact_id(scope: str, subject: str, attribute: str, value: str, first_source: str) -> str:
    """A fact's id from what makes it itself, so a rebuild writes the same ids again."""
    raw = "\x1f".join((scope, subject, attribute, value_key(value), first_source))
    return "f_" + hashlib.sha1(raw.encode()).hexdigest()[:20]
