"""The shapes of the fact layer: statements read from records, attribute families, subject
keys, and the ids that make a rebuild write the same facts again."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from remem.text.lazy_re import lazy_compile

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
        # things and groups: the subject is the thing ("WiFi", "staging", "站会") or the role
        AttributeSpec("password", True, "a thing's password (the WiFi, an account)"),
        AttributeSpec("address", True, "where a thing is reached: an IP, a URL, an address"),
        AttributeSpec("time", True, "the time of day a thing happens (the stand-up at 9:45)"),
        AttributeSpec("place", True, "where a thing or group meets or is held"),
        AttributeSpec("date", True, "the day a thing is set for (a release, a trip, a wedding)"),
        AttributeSpec("price", True, "what a thing costs (a price, a rent, a fee)"),
        AttributeSpec("held_by", True, "who holds a role (the subject is the role: team lead)"),
    )
}
# the families whose subject is a thing, a group or a role, not a person (``thing_subject``)
THING_FAMILIES = frozenset({"password", "address", "time", "place", "date", "price", "held_by"})


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


_THING_NOISE = lazy_compile(
    r"^(?:the|a|an|my|our|your|their|his|her|this|that|new|old|home|家里的?|我们的?|我家的?|"
    r"咱们的?|群里的?|公司的?|新的?|这个|那个|另外|对了|通知|顺便|还有|然后|所以|其实)\s*",
    re.IGNORECASE,
)
_THING_TAIL = lazy_compile(r"(?:'s|的|这块|这边|那边)$")


def thing_name(text: str) -> str:
    """A thing as shown: "the WiFi's" -> "WiFi", "我们的站会" -> "站会"."""
    name = text.strip(" ,，、:：")
    for _ in range(3):  # "our new" / "家里的新": each opening word off in turn
        name = _THING_NOISE.sub("", name).strip()
    return _THING_TAIL.sub("", name).strip()


# a word after a thing's name that only says what kind of name it is: "staging server",
# "staging 环境" and "staging" are one thing, as are "上线时间" and "上线", "武功山费用" and "武功山"
_KIND_TAIL = lazy_compile(
    r"(?<=\S)\s*(?:server|environment|env|box|服务器|环境|时间|日期|日子|费用|价格|价钱)$",
    re.IGNORECASE,
)


def thing_core(text: str) -> str:
    """A thing's name without the kind word after it: "staging server" -> "staging"."""
    return _KIND_TAIL.sub("", thing_name(text)).strip()


def thing_key(text: str) -> str:
    """What two names of a thing share when they name the same thing: "The WiFi" and
    "wifi", "staging 服务器" and "staging" (case, width, spaces and a kind word left out)."""
    folded = unicodedata.normalize("NFKC", thing_core(text)).casefold()
    return re.sub(r"\s+", "", folded)


def thing_subject(text: str) -> str:
    """The subject key of a thing, group or role, by its name (``thing_key``)."""
    return "thing:" + thing_key(text)


_ARTICLES = lazy_compile(r"^(?:the|a|an|my|our)\s+", re.IGNORECASE)
_PUNCT = lazy_compile(r"[\s\W_]+", re.UNICODE)


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
