"""From statements to facts with validity: the rules of "what is true now".

Statements are taken in the order they were said. For an attribute with one value at a time
(``AttributeSpec.single``) a statement of another value closes the open fact at the moment the
new one became true (``Statement.valid_from``: "last week", a plan's date) and opens a fact of
its own; the same value said again only adds its record to the open fact's sources (also while a
planned change that will close it has not yet taken effect). For an
attribute whose values coexist, a new value opens a fact beside the others. A negation closes
the open fact of its value (or, naming none, every open fact of the attribute) and opens
nothing; a negation of a value never said ("Sold the Civic", "Peanut died") is a fact of its own,
held until then. A place said within a day of the home it lies in ("I live in Shenzhen now" / "Got a
small flat in Nanshan"; 成都 / 高新区: ``places.refines``) is that home said more precisely:
it opens beside the home, closes nothing, and ends when the home ends. A statement that puts itself in the past ("I used to live in Berlin") becomes a
closed fact and closes nothing. A manual statement (a hand correction) follows the same rules
at the time it was made, so it wins over everything said before it.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable

from remem.facts.model import Statement, fact_id, spec_of, value_key
from remem.facts.places import refines
from remem.types import Fact

ChainKey = tuple[str, str, str]  # (scope, subject, attribute)


def chain_of(statement: Statement) -> ChainKey:
    return (statement.scope, statement.subject, statement.attribute)


def fold(statements: Iterable[Statement]) -> list[Fact]:
    """Every chain's facts, each chain folded on its own, ordered as the store orders them."""
    chains: dict[ChainKey, list[Statement]] = defaultdict(list)
    for statement in statements:
        chains[chain_of(statement)].append(statement)
    facts = [fact for chain in chains.values() for fact in fold_chain(chain)]
    return sorted(facts, key=lambda f: (f.valid_from, f.said_at, f.id))


def fold_chain(statements: Iterable[Statement]) -> list[Fact]:
    """The facts of one (scope, subject, attribute) chain."""
    ordered = _moves_as_one(sorted(statements, key=lambda s: (s.said_at, s.record_id)))
    done: list[Fact] = []
    open_facts: dict[str, Fact] = {}  # value key -> the open fact of that value
    last_said: dict[str, float] = {}  # value key -> when its open fact was last said
    for s in ordered:
        single = spec_of(s.attribute).single
        if s.polarity == "negate":
            for key in _negated(open_facts, s):
                done.append(_closed(open_facts.pop(key), s))
            if _never_held(s, done, open_facts):
                # "Sold the Civic" with the Civic never said: it was held until then
                done.append(_closed(_opened(s), s))
            continue
        assert s.value is not None, "an asserting statement carries a value"
        if s.valid_to is not None:  # told as past: a closed fact of its own
            done.append(dataclasses.replace(_opened(s), valid_to=max(s.valid_to, s.valid_from)))
            continue
        key = value_key(s.value)
        if key in open_facts:
            open_facts[key] = _restated(open_facts[key], s)
            last_said[key] = s.said_at
            continue
        still = _still_true(done, key, s)
        if still is not None:  # said again before a planned change takes it over
            done[still] = _restated(done[still], s)
            continue
        if single and not _same_place(s, open_facts, last_said):
            for other in list(open_facts):
                done.append(_closed(open_facts.pop(other), s))
        open_facts[key] = _opened(s)
        last_said[key] = s.said_at
    return done + list(open_facts.values())


PLACES = frozenset({"lives_in", "located_in"})


def _same_place(s: Statement, open_facts: dict[str, Fact], last_said: dict[str, float]) -> bool:
    """Whether ``s`` names an open place in other words ("多倫多Markham", then "Markham"), or
    a part of one, or the place an open one is part of, said within a day of it and becoming
    true no later ("Jing'an" after "moving to Shanghai on December 1st"): the same home said
    more precisely, not a move. A dated change ("moving to Reading tomorrow") is a move."""
    if s.attribute not in PLACES or s.value is None:
        return False
    mine = value_key(s.value)
    for key, fact in open_facts.items():
        if min(len(key), len(mine)) >= 3 and (key in mine or mine in key):
            return True  # "多倫多Markham" then "Markham": the same place, said another way
        near = 0 <= s.said_at - last_said.get(key, fact.said_at) <= MOVE_GAP_S
        not_later = s.valid_from <= max(fact.valid_from, s.said_at)
        if near and not_later and (refines(s.value, fact.value) or refines(fact.value, s.value)):
            return True
    return False


MOVE_GAP_S = 86_400.0  # "I'm leaving Shenzhen" and the new city said within a day: one move


def _moves_as_one(ordered: list[Statement]) -> list[Statement]:
    """Drop a negation that the chain's next statement, said within a day, follows with a
    new value from a later moment ("I'm leaving Shenzhen" / "moving to Shanghai on December
    1st"): the new value closes the old one when it takes effect, not when the leaving was
    announced (the extractor does the same within one message)."""
    out = []
    for i, s in enumerate(ordered):
        nxt = ordered[i + 1] if i + 1 < len(ordered) else None
        if (
            s.polarity == "negate"
            and nxt is not None
            and nxt.polarity == "assert"
            and nxt.valid_to is None
            and nxt.said_at - s.said_at <= MOVE_GAP_S
            and nxt.valid_from > s.valid_from
            and spec_of(s.attribute).single
        ):
            continue
        out.append(s)
    return out


def _restated(fact: Fact, s: Statement) -> Fact:
    if s.record_id in fact.source_ids:
        return fact
    return dataclasses.replace(fact, source_ids=(*fact.source_ids, s.record_id))


def _still_true(done: list[Fact], key: str, s: Statement) -> int | None:
    """The index of a fact of this value that is closed only from a later moment than this
    statement's: "I live in Shenzhen" said on November 25 after "moving to Shanghai on
    December 1st" restates what holds until then; it must not cancel the move."""
    for i in range(len(done) - 1, -1, -1):
        fact = done[i]
        closes_later = fact.valid_to is not None and fact.valid_to > s.valid_from
        if value_key(fact.value) == key and closes_later and fact.closed_by is not None:
            return i
    return None


def _never_held(s: Statement, done: list[Fact], open_facts: dict[str, Fact]) -> bool:
    """Whether a negation names a value the chain never held (nothing said of it before)."""
    if not s.value:
        return False
    key = value_key(s.value)
    return key not in open_facts and all(value_key(f.value) != key for f in done)


def _negated(open_facts: dict[str, Fact], s: Statement) -> list[str]:
    if s.value is None:
        return list(open_facts)
    key = value_key(s.value)
    return [key] if key in open_facts else []


def _opened(s: Statement) -> Fact:
    assert s.value is not None
    return Fact(
        id=fact_id(s.scope, s.subject, s.attribute, s.value, s.record_id),
        scope=s.scope,
        subject=s.subject,
        subject_name=s.subject_name,
        attribute=s.attribute,
        value=s.value,
        said_at=s.said_at,
        valid_from=s.valid_from,
        source_ids=(s.record_id,),
        confidence=s.confidence,
        origin=s.origin,
    )


def _closed(fact: Fact, by: Statement) -> Fact:
    # a fact that only becomes true later than its closing (a cancelled plan) ends as it starts
    end = max(by.valid_from, fact.valid_from)
    return dataclasses.replace(fact, valid_to=end, closed_by=by.record_id)


def merged_chain(facts: Iterable[Fact]) -> list[Fact]:
    """Facts of several one-value chains read as one chain, for a question that names them
    all ("Who leads the mobile team now?" names "mobile team lead" and "team lead"): in the
    order they became true, a value said again in another chain is the same fact (its
    records joined), and each value open at the end is closed by the next other value (from
    when that became true); the latest stays open. Stored facts are not changed."""
    ordered = sorted(facts, key=lambda f: (f.valid_from, f.said_at, f.id))
    runs: list[Fact] = []
    for fact in ordered:
        last = runs[-1] if runs else None
        if last is not None and value_key(last.value) == value_key(fact.value):
            sources = (*last.source_ids, *(i for i in fact.source_ids if i not in last.source_ids))
            runs[-1] = dataclasses.replace(last, source_ids=sources, valid_to=fact.valid_to)
        else:
            runs.append(fact)
    out: list[Fact] = []
    for fact, after in zip(runs, [*runs[1:], None], strict=True):
        if fact.valid_to is None and after is not None:
            end = max(after.valid_from, fact.valid_from)
            fact = dataclasses.replace(fact, valid_to=end, closed_by=after.source_ids[0])
        out.append(fact)
    return out
