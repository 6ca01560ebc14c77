"""Currency: a question about now ranks the record that says what is true now first.

"Where does Tom live now?" matches "I live in Shenzhen now" better than "moving to Shanghai on
December 1st", and the first is no longer true. The fact layer (``remem.facts``, kept by the
store) knows it: the Shenzhen fact of Tom's ``lives_in`` chain was closed by the move. So, for
a question about the present or one that names no time (``text/question_time.py``), a record
carrying a chain's current value is scored just above the best candidate carrying one of its
closed values (and brought in when it is not a candidate); a question about the past ("where
did Tom live before he moved?", 以前) does the reverse: the latest closed value's record goes
just above the best record of the current one. A record carrying a closed value is marked
(``Candidate.earlier``: since when, and the value that replaced it), which the explain trace and
the injected block show ("earlier; since 2026-12-01: Shanghai").

Cheap: one ``facts_citing`` call for the candidates (nothing more when none of them carries a
fact: a store without facts costs that one call), then one ``facts`` call per chain that
changed, at most ``MAX_CHAINS``.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from datetime import datetime

from remem.facts.fold import PLACES, merged_chain
from remem.facts.model import THING_FAMILIES, spec_of, value_key
from remem.facts.places import place_level
from remem.facts.question import (
    GROUP_THINGS,
    asked_attributes,
    asked_fact,
    asks_ending,
    asks_first,
    attribute_of_value,
    fact_of_value,
    fold_question,
    plans_named,
    thing_named_at,
)
from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.store.base import FactStore
from remem.store.queries import FactQuery, RecordPage
from remem.text.question_time import question_time
from remem.types import Fact, Filters

MAX_CHAINS = 4  # the chains of one question's candidates that are read whole
STEP = 1e-4  # "just above": the smallest lift that changes the order and nothing else

ChainKey = tuple[str, str, str]


def currency(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    store = ctx.readers.store
    if not ctx.request.config.scoring.currency or store is None or not isinstance(store, FactStore):
        return cands
    by_id = {c.record.id: c for c in cands if c.record is not None}
    cited = store.facts_citing(list(by_id))
    chains = _changed_chains(cited, by_id)
    asked, bring = (
        _asked_chain(store, ctx) if ctx.request.config.scoring.currency_ask else ([], False)
    )
    if not chains and not asked:
        return cands
    past = question_time(ctx.request.query) == "past"
    asking = asked_attributes(ctx.request.query)
    ranked = sorted(cands, key=lambda c: -c.score)
    rank = {c.record.id: i for i, c in enumerate(ranked, start=1) if c.record is not None}
    brought: list[Candidate] = []
    for n, key in enumerate(chains[:MAX_CHAINS]):
        scope, subject, attribute = key
        chain = store.facts(FactQuery(scopes=[scope], subject=subject, attribute=attribute))
        _mark_earlier(chain, by_id, ctx)
        if attribute in THING_FAMILIES and attribute not in asking:
            continue  # "建国的婚礼在哪个酒店？" asks no date: the wedding's new date is no answer
        # the best chain, carried by one of the best few candidates, is what the question
        # asks about: its answer leads the list, not only the stale line it displaces
        carried = [rank[r] for f in chain for r in f.source_ids if r in rank]
        lead = n == 0 and min(carried, default=0) <= ctx.request.config.scoring.currency_lead
        top = ranked[0].score if lead else None
        if past:
            brought += _prefer_earlier(chain, by_id, ctx, top)
        else:
            brought += _prefer_current(chain, by_id, ctx, top)
    if asked:
        brought += _lead_asked(asked, cands + brought, by_id, ctx, past, bring=bring)
    if brought:
        ctx.report.notes.append(
            "currency: brought in " + ", ".join(c.record.id for c in brought if c.record)
        )
    return cands + brought


def _asked_chain(store: FactStore, ctx: StageContext) -> tuple[list[Fact], bool]:
    """The one chain the question asks about (``facts.question``: whose, which attribute, or
    a value it names), or nothing; and whether its answer may be brought in when it is not a
    candidate (not for the plans of a question naming nobody). The chain of the scope that
    said it last, when the subject has facts in several; of a subject's plans, those the
    question's words name."""
    scopes = ctx.request.filters.scopes if ctx.request.filters is not None else None
    subjects = [(key, shown) for key, shown, _n in store.fact_subjects(scopes)]
    asked = asked_fact(ctx.request.query, subjects)
    if asked is None or asked.subject.startswith("thing:"):
        things = _thing_chain(store, ctx, scopes, subjects)
        if things and question_time(ctx.request.query) == "past" and not _closed(things):
            things = []  # one value only: no answer to "before" (a plan may still have one)
        if things:
            named = things[-1]
            ctx.report.notes.append(
                f"currency: the question asks for the {named.attribute} of {named.subject_name}"
            )
        # a thing with no chain to answer from: as a question naming nobody (its plans)
        return (things, True) if things else (_named_plans(store, ctx, scopes), False)
    facts = store.facts(FactQuery(scopes=scopes, subject=asked.subject))
    held = {f.attribute for f in facts}
    attribute = attribute_of_value(ctx.request.query, facts) if not asked.attributes else None
    attribute = attribute or next((a for a in asked.attributes if a in held), None)
    chain = [f for f in facts if f.attribute == attribute]
    if attribute == "plan":
        chain = plans_named(ctx.request.query, chain)
    if not chain:
        return [], True
    scope = max(chain, key=lambda f: f.said_at).scope
    ctx.report.notes.append(f"currency: the question asks for {asked.name}'s {attribute}")
    return [f for f in chain if f.scope == scope], True


def _thing_chain(
    store: FactStore, ctx: StageContext, scopes: list[str] | None, subjects: list[tuple[str, str]]
) -> list[Fact]:
    """The chain of a thing, group or role the question asks about ("现在 staging 服务器的
    IP 是多少？", "Who leads the mobile team now?"): of the first family its words ask for
    that a thing it names holds, every named thing's facts read as one chain
    (``fold.merged_chain``: "team lead" and "mobile team lead" are one role to that
    question), with the chat's own group ("we meet at ...") beside a place or a time."""
    families = [a for a in asked_attributes(ctx.request.query) if a in THING_FAMILIES]
    if not families:
        return []
    lowered = fold_question(ctx.request.query).casefold()
    named = [key for key, shown in subjects if thing_named_at(lowered, key, shown) is not None]
    # a name that ends with a named one is that thing said more precisely ("mobile team lead"
    # is a "team lead"): read together, as one role
    named += [
        key
        for key, _shown in subjects
        if key.startswith("thing:")
        and key not in named
        and key not in GROUP_THINGS
        and any(key.endswith(n.removeprefix("thing:")) for n in named)
    ]
    groups = [key for key, _shown in subjects if key in GROUP_THINGS]
    for family in families:
        keys = named + (groups if named and family in ("place", "time") else [])
        facts = [
            f
            for key in keys
            for f in store.facts(FactQuery(scopes=scopes, subject=key, attribute=family))
        ]
        if facts:
            scope = max(facts, key=lambda f: f.said_at).scope
            chain = merged_chain(f for f in facts if f.scope == scope)
            ctx.report.notes.append(
                f"currency: the question asks for the {family} of {chain[-1].subject_name}"
            )
            return chain
    return []


def _named_plans(store: FactStore, ctx: StageContext, scopes: list[str] | None) -> list[Fact]:
    """A question naming nobody about a plan's date ("When is the book club's Lisbon trip
    now?"): the plans that share two of its words (``plans_named``), of the subject who said
    the latest of them. Only reordered among the candidates, never brought in: without a
    subject the question may be about another thing of the same words."""
    if "plan" not in asked_attributes(ctx.request.query):
        return []
    plans = plans_named(
        ctx.request.query, store.facts(FactQuery(scopes=scopes, attribute="plan")), least=2
    )
    if not plans:
        return []
    last = max(plans, key=lambda f: f.said_at)
    ctx.report.notes.append(f"currency: the question asks for the plan {last.value}")
    return [f for f in plans if (f.scope, f.subject) == (last.scope, last.subject)]


def _lead_asked(
    chain: list[Fact],
    cands: list[Candidate],
    by_id: dict[str, Candidate],
    ctx: StageContext,
    past: bool,
    *,
    bring: bool = True,
) -> list[Candidate]:
    """The asked chain's answer first, above every candidate: the record of its newest
    current value; for a question about the past, of the value closed last that another
    record than the current value's states (a move's own line also closes the old value), or
    when none was closed, of the value said first."""
    current = sorted(_current(chain), key=lambda f: (f.valid_from, f.said_at))
    ending = _ending_of(chain, ctx.request.query)
    if ending is not None:  # "Who did Ben sell his old car to?": the line that ended it
        return _lead_record(ending, cands, by_id, ctx, bring=bring)
    if past and asks_first(ctx.request.query):
        # "What was Lucy's job when she joined?": the value said first, not the one before now
        wanted = sorted(chain, key=lambda f: (f.said_at, f.valid_from))[:1]
    elif past:
        now_ids = {rid for f in current for rid in f.source_ids}
        now_keys = [value_key(f.value) for f in current]
        wanted = [
            f
            for f in _closed(chain)
            if not set(f.source_ids) <= now_ids and not _refines(value_key(f.value), now_keys)
        ][:1]
        if not wanted and chain[0].attribute in THING_FAMILIES:
            # "Lucy is our new design lead, taking over from Priya K": the line that says
            # who held it before is the answer, though it says who holds it now as well
            wanted = [f for f in _closed(chain) if not _refines(value_key(f.value), now_keys)][:1]
        if not _closed(chain):
            # nothing ended ("郑凯以前打什么球？" of two sports liked side by side, a plan said
            # twice, a school never left): the value said first is the earlier one
            wanted = sorted(current, key=lambda f: (f.said_at, f.valid_from))[:1]
    elif (
        spec_of(chain[0].attribute).single
        or len(current) == 1
        or len(current) < len(chain)
        or chain[0].attribute == "plan"  # the plans the question names: the last said holds
    ):
        wanted = _home_asked(current, ctx.request.query) if len(current) > 1 else current[-1:]
    else:
        # several values held side by side and none ended (likes, allergies): the newest is
        # no better an answer than the others, so the order stays the relevance order
        wanted = []
    named = fact_of_value(ctx.request.query, chain)
    replaced = spec_of(chain[0].attribute).single and bool(current)
    # a question with no time word about a value that ended ("Why did Liu Yang and Xiaoya
    # break up?") asks about its ending, not about what replaced it
    untimed = named is not None and named.closed_by and question_time(ctx.request.query) is None
    if not past and named is not None and named.closed_by and (not replaced or untimed):
        # "Does Kenji still have Peanut?": the line that ended Peanut ("Peanut died"), not
        # another pet; a one-value attribute answers with what replaced it ("Is Ann still
        # at Initech?" -> the new job), as above
        return _lead_record(named.closed_by, cands, by_id, ctx, bring=bring)
    if not wanted:
        return []
    top = max((c.score for c in cands), default=0.0) + STEP
    others = {rid for f in chain if f not in wanted for rid in f.source_ids}
    carriers = [c for c in _carriers(wanted, by_id) if c.record and c.record.id not in others]
    carriers = carriers or _carriers(wanted, by_id)
    if carriers:
        _above_all(carriers[0], cands)
        return []
    return _bring(wanted[0].source_ids[-1], top, ctx, by_id) if bring else []


def _home_asked(current: list[Fact], question: str) -> list[Fact]:
    """Of a home held with its district (Shanghai and Jing'an, both current: ``fold``), the
    one a question asks for: the district when it names the city ("Which neighbourhood of
    Shanghai ...?", 成都哪个区), else the widest place ("李明还在杭州吗？" -> 成都), the latest
    of equals. Another chain: its newest current value."""
    if current[0].attribute not in PLACES:
        return current[-1:]
    named = fact_of_value(question, current)
    parts = [f for f in current if named is not None and f is not named]
    if parts:
        return parts[-1:]
    return [max(current, key=lambda f: (place_level(f.value), f.valid_from, f.said_at))]


def _ending_of(chain: list[Fact], question: str) -> str | None:
    """The record that ended the value a question asks how it ended (sold, died, broke up:
    ``asks_ending``): the value it names, else the one closed last; None when it asks no
    such thing or nothing in the chain ended."""
    if not asks_ending(question):
        return None
    named = fact_of_value(question, chain)
    if named is not None and named.closed_by:
        return named.closed_by
    return next((f.closed_by for f in _closed(chain) if f.closed_by), None)


def _lead_record(
    record_id: str,
    cands: list[Candidate],
    by_id: dict[str, Candidate],
    ctx: StageContext,
    *,
    bring: bool = True,
) -> list[Candidate]:
    """One record above every candidate (brought in when it is not one and ``bring``)."""
    top = max((c.score for c in cands), default=0.0) + STEP
    if record_id in by_id:
        _above_all(by_id[record_id], cands)
        return []
    return _bring(record_id, top, ctx, by_id) if bring else []


def _above_all(cand: Candidate, cands: list[Candidate]) -> None:
    """Score a candidate just above every other (untouched when it already leads: the trace
    shows only what the stage changed)."""
    others = max((c.score for c in cands if c is not cand), default=0.0)
    cand.lead = True
    if cand.score <= others:
        cand.set("currency", others + STEP)


def _refines(key: str, others: list[str]) -> bool:
    """Whether a value is another said more or less precisely ("台北大安區" and "大安區"):
    the same place to a question about the past, not the value before it."""
    return any(key in other or other in key for other in others if key and other)


def _changed_chains(cited: list[Fact], by_id: dict[str, Candidate]) -> list[ChainKey]:
    """The chains a candidate carries a value of and that hold more than one value over time
    (a closed fact among those cited), best-scored candidate first."""
    best: dict[ChainKey, float] = defaultdict(float)
    changed: set[ChainKey] = set()
    for fact in cited:
        key = (fact.scope, fact.subject, fact.attribute)
        if fact.valid_to is not None:
            changed.add(key)
        for rid in fact.source_ids:
            if rid in by_id:
                best[key] = max(best[key], by_id[rid].score)
    return sorted((k for k in changed if k in best), key=lambda k: -best[k])


def _current(chain: list[Fact]) -> list[Fact]:
    return [f for f in chain if f.valid_to is None]


def _closed(chain: list[Fact]) -> list[Fact]:
    """Closed facts, the most recently closed first."""
    return sorted((f for f in chain if f.valid_to is not None), key=lambda f: -(f.valid_to or 0))


def _carriers(facts: list[Fact], by_id: dict[str, Candidate]) -> list[Candidate]:
    """The candidates that state any of these facts, best first."""
    found = {rid: by_id[rid] for f in facts for rid in f.source_ids if rid in by_id}
    return sorted(found.values(), key=lambda c: -c.score)


def _only_closed(chain: list[Fact], by_id: dict[str, Candidate]) -> list[Candidate]:
    """Candidates carrying a closed value of the chain and not its current one. The line that
    closed a value is not one of them even when it is the value's only source ("I moved out of
    Berlin" both names Berlin and ends it): what it says is true now."""
    current_ids = {rid for f in _current(chain) for rid in f.source_ids}
    stale = {
        rid: by_id[rid]
        for f in _closed(chain)
        for rid in f.source_ids
        if rid in by_id and rid != f.closed_by and rid not in current_ids
    }
    return sorted(stale.values(), key=lambda c: -c.score)


def _prefer_current(
    chain: list[Fact], by_id: dict[str, Candidate], ctx: StageContext, lead: float | None
) -> list[Candidate]:
    """The current value's record just above the best stale one (above ``lead``, the list's
    best score, when the chain leads)."""
    stale = _only_closed(chain, by_id)
    current = _current(chain)
    # a multi-valued chain's closed value (a pet given away) is only marked: its other values
    # are no answer to "which one now?"
    if not stale or not current or not spec_of(current[0].attribute).single:
        return []
    top = stale[0].score if lead is None else max(lead, stale[0].score)
    carriers = _carriers(current, by_id)
    if carriers:
        best = carriers[0]
        best.lead = True
        if best.score <= top:
            best.set("currency", top + STEP)
        return []
    source = current[-1].source_ids[0]
    return _bring(source, top + STEP, ctx, by_id)


def _prefer_earlier(
    chain: list[Fact], by_id: dict[str, Candidate], ctx: StageContext, lead: float | None
) -> list[Candidate]:
    """The record of the value just before the current one above the best record of the
    current value (above ``lead``, the list's best score, when the chain leads)."""
    closed = _closed(chain)
    current_carriers = _carriers(_current(chain), by_id)
    if not closed or (not current_carriers and lead is None):
        return []
    top = max([c.score for c in current_carriers[:1]] + ([lead] if lead is not None else []))
    earlier = _only_closed([*_current(chain), closed[0]], by_id)  # the value just before
    if earlier:
        earlier[0].lead = True
        if earlier[0].score <= top:
            earlier[0].set("currency", top + STEP)
        return []
    return _bring(closed[0].source_ids[0], top + STEP, ctx, by_id)


def _bring(
    record_id: str, score: float, ctx: StageContext, by_id: dict[str, Candidate]
) -> list[Candidate]:
    """The record stating a value the candidates lack, if the search's filters let it in."""
    assert ctx.readers.store is not None
    if record_id in by_id:
        return []
    base = ctx.request.filters if ctx.request.filters is not None else Filters()
    if base.ids is not None and record_id not in base.ids:
        return []  # a search of named records stays among them
    wanted = dataclasses.replace(
        base, ids=[record_id], include_superseded=ctx.request.include_superseded
    )
    found = ctx.readers.store.list_records(RecordPage(wanted, limit=1))
    if not found or found[0].rowid is None:
        return []
    cand = Candidate(rowid=found[0].rowid, record=found[0], lead=True)
    cand.set("currency", score, always=True)
    cand.notes.append("currency: brought in as the current value")
    by_id[record_id] = cand
    ctx.read_vectors([cand.rowid])
    return [cand]


def _mark_earlier(chain: list[Fact], by_id: dict[str, Candidate], ctx: StageContext) -> None:
    """Mark each candidate carrying only closed values with what replaced the latest."""
    for cand in _only_closed(chain, by_id):
        assert cand.record is not None
        rid = cand.record.id
        mine = [f for f in _closed(chain) if rid in f.source_ids and rid != f.closed_by]
        ended = mine[0]
        # the value that replaced it: the fact its closer states (none for a negation)
        closer = ended.closed_by
        after = [f for f in chain if f is not ended and closer and closer in f.source_ids]
        value = after[0].value if after else None
        cand.earlier = (ended.valid_to or ended.valid_from, value)
        cand.notes.append(earlier_note(cand.earlier, ctx))


def earlier_note(earlier: tuple[float, str | None], ctx: StageContext) -> str:
    """ "earlier; since 2026-12-01: Shanghai" (no longer true, and what is since)."""
    since, value = earlier
    day = datetime.fromtimestamp(since, ctx.request.config.calendar.zone()).strftime("%Y-%m-%d")
    return f"earlier; since {day}: {value}" if value else f"earlier; no longer true since {day}"
