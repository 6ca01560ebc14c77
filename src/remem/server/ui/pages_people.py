"""People: every subject facts are known about, and a page per person with the facts that
hold (now or as of a date), their history with the records that said and ended them, and a
hand correction (``Memory.correct_fact``: a curated memory, so it wins over derived facts,
has a history and an undo, and is written to the audit log like a memory edit).

A person is read through the caller's scopes like every record: a subject with no fact the
caller may read answers 404 exactly like one nobody knows."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse

from remem.access import ScopeError
from remem.errors import NotFoundError, ValidationError
from remem.facts.model import ATTRIBUTES
from remem.facts.query import day_of, moment, read_facts, subject_keys
from remem.server.rest_context import Caller
from remem.server.ui import queries
from remem.server.ui.context import PREFIX, UI, _when
from remem.types import Fact, Filters, Record

if TYPE_CHECKING:
    from remem.engine import Memory

PEOPLE_SHOWN = 500  # subjects listed (most facts first): a page, never a whole chat's crowd
HISTORY_SHOWN = 200  # ended values shown (the newest): one talkative speaker's can run long
# the attribute names a correction form offers (a family with kinds: "family.sister" ...)
ATTRIBUTE_CHOICES = tuple(
    f"{name}.<kind>" if spec.kinds else name for name, spec in ATTRIBUTES.items()
)


@dataclass
class PersonView:
    """What the page of one person shows."""

    key: str
    name: str
    at: str  # the "as of" date asked for ("" = now)
    current: list[Fact]  # the facts holding at ``at`` (default now)
    closed: list[Fact]  # the facts that have ended, oldest first (the newest HISTORY_SHOWN)
    closed_total: int  # how many have ended in all
    records: dict[str, Record] = field(default_factory=dict)  # sources and closers it may read
    attributes: list[str] = field(default_factory=list)  # the subject's attributes


def person_view(ui: UI, c: Caller, subject: str, at: str = "") -> PersonView:
    """The facts of ``subject`` (a key or a name) the caller may read; NotFoundError when
    there are none, as for a record the caller may not read."""
    mem = ui.mem
    mem.wait_facts()  # read after the write's acknowledgement: what was just said is shown
    scopes = c.scopes(mem)
    keys = subject_keys(mem.store, subject, scopes)
    history = read_facts(
        mem.store, subjects=keys, scopes=scopes, attribute=None, at=None, history=True, now=0
    )
    if not history:
        raise NotFoundError(f"no facts about {subject!r}")
    when = moment(at or None, mem.config.calendar.zone())
    current = [f for f in history if f.holds_at(time.time() if when is None else when)]
    closed = [f for f in history if f.valid_to is not None]
    shown = [*current, *closed[-HISTORY_SHOWN:]]
    wanted = {i for f in shown for i in (*f.source_ids, f.closed_by) if i}
    found = mem.list(Filters(ids=sorted(wanted)), limit=None) if wanted else []
    readable = {r.id: r for r in c.guard(mem).filter(found)}
    newest = max(history, key=lambda f: (f.said_at, f.valid_from))
    return PersonView(
        key=keys[0] if len(keys) == 1 else subject,
        name=newest.subject_name,
        at=at,
        current=current,
        closed=closed[-HISTORY_SHOWN:],
        closed_total=len(closed),
        records=readable,
        attributes=sorted({f.attribute for f in history}),
    )


def _people_read(mem: Memory, scopes: list[str] | None) -> list[queries.Person]:
    """The people list after the facts owed are read: when any were owed, the cached count
    is dropped and the subjects are counted afresh (the cache may predate them)."""
    if not mem.wait_facts(0):
        mem.wait_facts()
        queries.AGGREGATES.forget(mem, "people")
    return queries.people(mem, scopes)


def routes(ui: UI, router: APIRouter) -> None:
    mem = ui.mem
    zone = mem.config.calendar.zone()

    def day(ts: float | None) -> str:
        """A date alone when the fact starts or ends at midnight (a date was said), else
        the time as the other pages show it."""
        shown = day_of(ts, zone)
        if shown is None:
            return "—"
        return shown if "T" not in shown else _when(ts, zone)

    def show(request: Request, c: Caller, view: PersonView, status: int = 200, **extra: Any):
        return ui.page(
            request,
            "person.html",
            c,
            status=status,
            person=view,
            day=day,
            attribute_choices=ATTRIBUTE_CHOICES,
            **extra,
        )

    @router.get("/people", response_class=HTMLResponse)
    def people(request: Request, c: Caller = ui.who):
        everyone = _people_read(mem, c.scopes(mem))
        return ui.page(
            request, "people.html", c, people=everyone[:PEOPLE_SHOWN], total=len(everyone)
        )

    @router.get("/people/{subject:path}", response_class=HTMLResponse)
    def person(request: Request, subject: str, at: str = "", c: Caller = ui.who):
        return show(request, c, person_view(ui, c, subject, at.strip()))

    @router.post("/people/{subject:path}")
    def correct(
        request: Request,
        subject: str,
        attribute: str = Form(""),
        value: str = Form(""),
        close: str = Form(""),
        note: str = Form(""),
        c: Caller = ui.who,
    ):
        """A hand correction: set ``value`` for ``attribute``, or close it (``close=yes``:
        the value named, else every current one)."""
        ui.check_origin(request)
        view = person_view(ui, c, subject)  # a person the caller cannot read: 404
        closing = close == "yes"
        try:
            if not attribute.strip():
                raise ValidationError("attribute", attribute, "name the attribute to correct")
            if not closing and not value.strip():
                raise ValidationError(
                    "value", value, "give the value to set, or tick 'close it instead'"
                )
            out = mem.correct_fact(
                view.key,
                attribute.strip(),
                value.strip() or None,
                close=closing,
                note=note.strip() or None,
                **({"agent": c.acting_agent} if c.acting_agent else {}),
            )
        except (ValidationError, ScopeError) as exc:
            form = {"attribute": attribute, "value": value, "close": closing, "note": note}
            status = 400 if isinstance(exc, ValidationError) else 403
            return show(request, c, view, status=status, error=str(exc), form=form)
        here = f"{PREFIX}/people/{quote(view.key, safe='')}"
        if out.memory is None:  # the same correction is already current
            return ui.back(here, done="people.unchanged")
        ui.changed(
            c, "fact-correction", [out.memory.id], subject=view.key, attribute=attribute.strip()
        )
        return ui.back(here, done="people.corrected")
