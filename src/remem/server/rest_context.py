"""What every REST route shares: request bodies, the caller of a request and its scope
guard, and the common checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from fastapi import Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from remem.access import Caller, ScopeGuard
from remem.errors import ValidationError
from remem.types import Record


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SearchBody(_Body):
    query: str = Field(min_length=1, max_length=10_000)
    k: int = Field(default=10, ge=1)
    filters: dict[str, Any] = Field(default_factory=dict)
    explain: bool = False
    now: float | str | None = None
    timezone: Any = None  # IANA: time words and offset-less times on its calendar (checked
    # by arguments.zone, which names the fix)


class TurnBody(_Body):
    session: str
    inputs: list[str]
    user_id: str | None = None
    platform: str | None = None
    current_ids: list[str] = Field(default_factory=list)
    now: float | None = None
    group_id: str | None = None
    platform_type: str | None = None
    settings: dict[str, str] = Field(default_factory=dict)
    requested_mode: str | None = None
    timezone: Any = None  # IANA: the turn's people's calendar and clock (arguments.zone)


class CaptureBody(_Body):
    messages: list[str | dict[str, Any]] = Field(min_length=1)
    session: str | None = None
    user: str | None = None
    now: float | None = None


class ResetBody(_Body):
    user: str | None = None
    now: float | None = None


class RecallBody(_Body):
    query: str = Field(min_length=1, max_length=10_000)
    session: str | None = None
    user: str | None = None
    timezone: Any = None  # IANA: the asker's calendar and clock (arguments.zone)


class ConversationRecallBody(_Body):
    """The conversation_recall tool's arguments plus the session it runs in."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    query: str = Field(min_length=1, max_length=10_000)
    session: str
    user_id: str | None = None
    platform: str | None = None  # else: the session's newest message's
    group_id: str | None = None
    platform_type: str | None = None
    settings: dict[str, str] = Field(default_factory=dict)
    current_ids: list[str] = Field(default_factory=list)
    scope: Literal["session", "user", "platform", "all"] | None = None
    context_window: int | None = Field(default=None, alias="contextWindow", ge=0, le=50)
    cross_session: bool | None = Field(default=None, alias="crossSession")
    limit: int = Field(default=5, ge=1, le=100)
    now: float | None = None
    timezone: Any = None


class ToolBody(_Body):
    arguments: dict[str, Any] = Field(default_factory=dict)
    session: str | None = None
    user: str | None = None


@dataclass
class Requests:
    """What every route needs: the memory, the caller of a request (a FastAPI dependency)
    and the shared checks."""

    mem: Any
    # the caller as a route's parameter default (``c: Caller = r.who``), made once for all routes
    who: Any = field(init=False)

    def __post_init__(self) -> None:
        self.who = Depends(self.caller)

    def caller(self, request: Request) -> Caller:
        return Caller.of_token(self.mem.config, request.headers.get("authorization"))

    def check_k(self, k: int) -> None:
        limit = self.mem.config.server.max_k
        if k > limit:
            raise ValidationError("k", k, f"use at most {limit} (server.max_k)")

    def writer(self, c: Caller, request: Request, session: str | None = None) -> ScopeGuard:
        """The guard of a write that names no user in its body (``/v1/memories``,
        ``/v1/ingest``): the user is the one ``X-Remem-User`` names, checked against the
        token's binding like a body's ``user`` (a token bound to one user: that user), so
        ``user:{user}`` and ``session:{session}`` in the access list mean on these routes
        what they mean on the tool and capture routes: one rule for every write path."""
        return c.guard(self.mem, session, c.user(request.headers.get("x-remem-user")))

    def visible(self, c: Caller, record_id: str) -> Record:
        return c.guard(self.mem).visible(self.mem.get(record_id), f"record {record_id!r}")

    def scoped(self, c: Caller, filters: dict[str, Any], requested: Any) -> dict[str, Any]:
        """The filters with the scopes this caller may read (a request can only narrow)."""
        scopes = c.scopes(self.mem, requested)
        return filters if scopes is None else {**filters, "scopes": scopes}
