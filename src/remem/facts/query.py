"""Reading facts: which subject keys a name means, and the facts that held at a moment.

A subject is asked for by key ("speaker:tom"), by the name it is shown with ("Tom",
case-folded), by an alias of that name (``remem.text.names``: "Xiaoming" or "小明" for
王小明) or by any name the store's speakers go by (the extractor's people context). A name
may mean several subjects (two scopes' Toms); every one is returned.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from datetime import datetime, tzinfo
from typing import Any

from remem import arguments
from remem.errors import ValidationError
from remem.facts.model import name_subject, speaker_subject
from remem.store.base import Store
from remem.store.queries import FactQuery
from remem.text.names import aliases
from remem.types import Fact

SUBJECT_PREFIXES = ("speaker:", "name:", "thing:")


def fold_name(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def names_of(shown: str) -> set[str]:
    """Every folded form a shown subject name is asked for by."""
    return {fold_name(shown), *(fold_name(a.text) for a in aliases(shown))}


def subject_keys(
    store: Store,
    name: str,
    scopes: Sequence[str] | None,
    people: Mapping[str, str] | None = None,
) -> list[str]:
    """The subject keys ``name`` means among the facts of these scopes (maybe none)."""
    if not isinstance(name, str) or not name.strip():
        raise ValidationError("subject", name, "give a name (Tom, 汤姆) or a subject key")
    name = name.strip()
    if name.startswith(SUBJECT_PREFIXES):
        return [name]
    folded = fold_name(name)
    wanted = {name_subject(name), speaker_subject(name)}
    if people and folded in people:
        wanted.add(people[folded])
    found = []
    for key, shown, _count in store.fact_subjects(scopes):
        if key in wanted or folded in names_of(shown):
            found.append(key)
    return found


def moment(at: datetime | float | str | None, zone: tzinfo) -> float | None:
    """``at`` as Unix seconds: a datetime (naive: on ``zone``'s clock), Unix seconds or an
    ISO-8601 date; None stays None (now)."""
    if at is None:
        return None
    if isinstance(at, datetime):
        return (at if at.tzinfo is not None else at.replace(tzinfo=zone)).timestamp()
    return arguments.moment("at", at, zone)


def read_facts(
    store: Store,
    *,
    subjects: Sequence[str] | None,
    scopes: Sequence[str] | None,
    attribute: str | None,
    at: float | None,
    history: bool,
    now: float,
) -> list[Fact]:
    """The facts of these subjects (None: all) in these scopes (None: all): with
    ``history`` every fact, else those holding at ``at`` (default ``now``)."""
    when = None if history else (now if at is None else at)
    if subjects is None:
        return store.facts(FactQuery(scopes=scopes, attribute=attribute, at=when))
    found: dict[str, Fact] = {}
    for subject in subjects:
        for fact in store.facts(FactQuery(scopes, subject, attribute, at=when)):
            found[fact.id] = fact
    return sorted(found.values(), key=lambda f: (f.valid_from, f.said_at, f.id))


def day_of(ts: float | None, zone: tzinfo) -> str | None:
    """A moment as the ISO date (with time, when not midnight) on ``zone``'s clock."""
    if ts is None:
        return None
    moment = datetime.fromtimestamp(ts, zone)
    if (moment.hour, moment.minute, moment.second) == (0, 0, 0):
        return moment.date().isoformat()
    return moment.isoformat(timespec="minutes")


def fact_view(fact: Fact, zone: tzinfo) -> dict[str, Any]:
    """One fact as every surface shows it (the CLI's --json, REST, the agent tool): the
    stored fields plus ``since`` / ``until`` on the configured calendar and ``current``."""
    return {
        **fact.to_dict(),
        "since": day_of(fact.valid_from, zone),
        "until": day_of(fact.valid_to, zone),
        "current": fact.valid_to is None,
    }
