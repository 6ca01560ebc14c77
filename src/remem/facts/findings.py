"""What the rules found in one sentence (``extract._found_in``): the findings, made distinct,
a city joined to its district, and the things, groups and roles of ``rules_things`` (whose
subject is the thing, and whose ``held_by`` value is a person)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from remem.facts.model import thing_key, thing_name, thing_subject, value_key
from remem.facts.rule import Rule


@dataclass(frozen=True, slots=True)
class Found:
    subject: str
    name: str
    attribute: str
    value: str | None
    rule: Rule
    confidence: float
    plan_object: str | None = None  # a plan's object when the value was joined ("台北")
    at: int = 0  # where in the sentence it was read: its clause's time is its time


def thing_of(match: re.Match[str], original: str) -> tuple[str, str, float] | None:
    """(subject key, shown name, confidence change) of a match's thing; None when it names
    nothing (only noise words: "the", "我们的")."""
    start, end = match.span("thing")
    raw = original[start:end] if len(original) == len(match.string) else match.group("thing")
    name = thing_name(raw)
    return (thing_subject(name), name, 0.0) if name else None


def holder(value: str, speaker: tuple[str, str]) -> str | None:
    """A role's holder as a name: "I" / "我" is the speaker ("刘洋和我" -> "刘洋和陈思远");
    None when the speaker is nobody known."""
    if value.casefold() in ("i", "me", "我"):
        return speaker[1] or None
    if "我" in value:
        return value.replace("我", speaker[1]) if speaker[1] else None
    return value


_ONE_HOLDER = re.compile(
    r"(?:\b(?:lead|leader|head|captain|organi[sz]er|ceo|cto|coo|cfo|chair)|负责人|组长|队长|主管|总监|"
    r"班长|主编|主理人)$",
    re.IGNORECASE,
)


def holders_of_roles(found: list[Found]) -> list[Found]:
    """ "I'm leading the mobile team" (Priya's role "mobile team lead") also says who holds
    the role: held_by(mobile team lead) = Priya; not for a relative with no name."""
    out = []
    for f in found:
        if f.attribute != "role" or f.rule.polarity != "assert" or not f.value:
            continue
        if not _ONE_HOLDER.search(f.value.strip()) or "'s " in f.name:
            continue
        name = thing_name(f.value)
        out.append(
            replace(
                f,
                subject=thing_subject(name),
                name=name,
                attribute="held_by",
                value=f.name,
                confidence=f.confidence - 0.05,
            )
        )
    return out


def joined_places(found: list[Found]) -> list[Found]:
    """ "我搬到台北了，住大安区": a city then its district, in one sentence, is one place."""
    places = [f for f in found if f.attribute == "lives_in" and f.rule.polarity == "assert"]
    if len(places) != 2 or places[0].subject != places[1].subject:
        return found
    first, second = places
    joined = replace(first, value=f"{first.value}{second.value}", plan_object=first.value)
    return [joined if f is first else f for f in found if f is not second]


def distinct(found: list[Found]) -> list[Found]:
    """One finding per (subject, attribute, value, polarity): the first rule's (rules are
    listed strongest first); a value inside a longer value of the same chain gives way
    ("台北" beside "台北大安区" is one fact)."""
    seen: dict[tuple[str, str, str, str], Found] = {}
    for f in found:
        key = (f.subject, f.attribute, value_key(f.value or ""), f.rule.polarity)
        seen.setdefault(key, f)
    named = {(f.subject, f.attribute) for f in seen.values() if f.rule.names}
    kept = [f for f in seen.values() if f.rule.names or (f.subject, f.attribute) not in named]
    kept = _jobs_not_held(kept)
    return [
        f
        for f in kept
        if not any(
            g is not f
            and g.subject == f.subject
            and g.attribute == f.attribute
            and g.rule.polarity == f.rule.polarity
            and f.value
            and g.value
            and value_key(f.value) != value_key(g.value)
            and value_key(g.value).startswith(value_key(f.value))
            for g in kept
        )
    ]


def _jobs_not_held(found: list[Found]) -> list[Found]:
    """ "我负责亚马逊店铺的运营" is read as the speaker's role (``rules_roles``) and as who holds
    运营 (``rules_things``, for "我负责这次小程序的后端"): the role is what it says, and
    ``held_by`` is for a role only one person holds (a lead, ``holders_of_roles``), so the
    second reading gives way unless the role is one of those."""
    jobs = {
        (f.name, thing_key(f.value))
        for f in found
        if f.attribute == "role"
        and f.rule.polarity == "assert"
        and f.value
        and not _ONE_HOLDER.search(f.value.strip())
    }
    return [
        f for f in found if not (f.attribute == "held_by" and (f.value, thing_key(f.name)) in jobs)
    ]
