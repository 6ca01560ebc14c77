"""REST routes over facts: ``GET /v1/facts`` (what is known about whom, now, at a date, or
with history) and ``POST /v1/facts/corrections`` (a hand correction, stored as a curated
memory). Access is the records' access: a token's agent reads the facts of the scopes it may
read and corrects where it may write; the local operator everything."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from remem.facts.query import fact_view
from remem.server.rest_context import Caller, Requests, _Body


class FactOut(BaseModel):
    """One fact: a subject's attribute and value, while it held, and the records saying so."""

    id: str
    scope: str
    subject: str = Field(description="the subject key: speaker:<id> or name:<name>")
    subject_name: str
    attribute: str = Field(description="lives_in, works_at, family.sister, ...")
    value: str
    said_at: float
    valid_from: float
    valid_to: float | None = Field(description="None: it still holds")
    since: str | None = Field(description="valid_from as a date on calendar.timezone")
    until: str | None = Field(description="valid_to as a date (None: still holds)")
    current: bool
    source_ids: list[str] = Field(description="the records that state it, the first first")
    closed_by: str | None = Field(description="the record that ended it")
    confidence: float
    origin: str = Field(description="rules, llm or manual (a hand correction)")


class FactsOut(BaseModel):
    facts: list[FactOut]


class CorrectionBody(_Body):
    subject: str = Field(min_length=1, max_length=200, description="a name (Tom) or subject key")
    attribute: str = Field(min_length=1, max_length=60, description="lives_in, works_at, ...")
    value: str | None = Field(
        default=None, max_length=500, description="the value that holds from now on"
    )
    close: bool = Field(
        default=False, description="close the current value (value: which one; else every one)"
    )
    note: str | None = Field(default=None, max_length=1000, description="why, for the audit")
    scope: str | None = Field(default=None, description="where the correction goes")
    session: str | None = None
    user: str | None = None


class CorrectionOut(BaseModel):
    memory: dict[str, Any] | None = Field(description="the correction memory (undo its id)")
    duplicate_of: str | None = Field(description="the same correction, already current")
    facts: list[FactOut] = Field(description="the subject's facts of that attribute, history too")


def fact_routes(r: Requests, api: APIRouter) -> None:
    mem = r.mem

    def identity(c: Caller, session: str | None, user: str | None) -> dict[str, Any]:
        """A token's agent reads and writes as itself; the operator is not limited."""
        if c.acting_agent is None:
            return {}
        return {"agent": c.acting_agent, "session": session, "user": c.user(user)}

    @api.get("/v1/facts", tags=["read"], response_model=FactsOut)
    def facts(
        subject: str | None = None,
        at: str | None = None,
        attribute: str | None = None,
        history: bool = False,
        scope: str | None = None,
        session: str | None = None,
        user: str | None = None,
        c: Caller = r.who,
    ) -> dict[str, Any]:
        """What is known about ``subject`` (a name or subject key; all without one): the
        facts holding at ``at`` (Unix seconds or an ISO date; default now), or with
        ``history`` every fact, closed ones too. Only the scopes the caller may read."""
        when: float | str | None = float(at) if at and _number(at) else at
        found = mem.facts(
            subject,
            at=when,
            attribute=attribute,
            history=history,
            scope=scope,
            **identity(c, session, user),
        )
        zone = mem.config.calendar.zone()
        return {"facts": [fact_view(f, zone) for f in found]}

    @api.post(
        "/v1/facts/corrections", tags=["write"], status_code=201, response_model=CorrectionOut
    )
    def correct(body: CorrectionBody, c: Caller = r.who) -> dict[str, Any]:
        """Correct a fact by hand: ``value`` holds from now on (closing the value before
        it), or ``close`` ends the current value. Stored as a curated memory in the scope
        of the subject's newest fact of that attribute, so its history and undo
        (``memory.id``) work like any memory edit, and it wins over what was said before."""
        out = mem.correct_fact(
            body.subject,
            body.attribute,
            body.value,
            close=body.close,
            note=body.note,
            scope=body.scope,
            **identity(c, body.session, body.user),
        )
        return out.view(mem.config.calendar.zone())


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
