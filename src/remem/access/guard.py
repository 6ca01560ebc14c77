"""The one scope check: ``ScopeGuard`` answers, for one caller, which scopes a read may use,
whether a record is visible and whether a write may go somewhere. Every membership test of a
record's scope against what a caller may read is here (``in_scopes`` for a scope list a
caller's guard handed down earlier, e.g. ``Turn.scopes``); the store backends only apply the
scope filter they are given."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from remem.access.rules import Access, ScopeError, resolve
from remem.config import Config
from remem.errors import NotFoundError
from remem.types import Record


@dataclass(frozen=True)
class ScopeGuard:
    """The one scope check. ``access`` None is the local operator (unrestricted); ``within``
    limits a guard to a list of scopes another guard handed down (``Turn.scopes``)."""

    access: Access | None = None
    within: tuple[str, ...] | None = None

    @classmethod
    def operator(cls) -> ScopeGuard:
        """The local operator's guard (loopback without tokens, the CLI without an agent,
        the library): not limited."""
        return cls()

    @classmethod
    def limited_to(cls, scopes: Sequence[str] | None) -> ScopeGuard:
        """The guard of a scope list a caller's guard already worked out and handed down
        (``Turn.scopes``: a server puts its caller's readable scopes there); None: the local
        operator. It reads those scopes only and writes nowhere else."""
        return cls() if scopes is None else cls(within=tuple(scopes))

    @classmethod
    def for_agent(
        cls,
        config: Config,
        agent: str | None,
        *,
        session: str | None = None,
        user: str | None = None,
    ) -> ScopeGuard:
        return cls(resolve(config, agent, session=session, user=user))

    @property
    def restricted(self) -> bool:
        return self.access is not None or self.within is not None

    def read_scopes(self, requested: str | Sequence[str] | None = None) -> list[str] | None:
        """The scopes a read may use (None: any). A request can only narrow: asking for a
        scope the caller may not read is refused."""
        wanted = [requested] if isinstance(requested, str) else requested
        if self.within is not None:
            if wanted is None:
                return list(self.within)
            outside = [w for w in wanted if w not in self.within]
            if outside:
                raise ScopeError(
                    f"scope {outside[0]!r} is not one this call may read "
                    f"(allowed: {', '.join(self.within)})"
                )
        if self.access is None:
            return None if wanted is None else list(wanted)
        if wanted is None:
            return self.access.narrow(None)
        return [scope for w in wanted for scope in self.access.narrow(w)]

    def can_see(self, record: Record | None) -> bool:
        if record is None or (self.within is not None and record.scope not in self.within):
            return False
        return self.access is None or self.access.can_read(record.scope)

    def filter(self, records: Iterable[Record | None]) -> list[Record]:
        """The records the caller may read, in their order (missing ones left out)."""
        return [r for r in records if r is not None and self.can_see(r)]

    def visible(self, record: Record | None, what: str) -> Record:
        """The record if the caller may read it; a record it may not read answers exactly like
        a missing one, so a caller never learns that an id it cannot read exists."""
        if record is None or not self.can_see(record):
            raise NotFoundError(f"no {what}")
        return record

    def check_write(self, scope: str) -> None:
        if self.within is not None and scope not in self.within:
            raise ScopeError(f"this call may not write to scope {scope!r}")
        if self.access is not None and not self.access.can_write(scope):
            raise ScopeError(f"agent {self.access.agent!r} may not write to scope {scope!r}")

    def check_new_record(self, record_id: object, scope: str) -> None:
        """Whether a new record may go to ``scope`` under ``record_id`` (None: remem makes
        the id).

        Ids are global, so an agent that picks one could learn from "this id is taken" that
        a record it cannot read exists. An agent therefore picks ids only in the namespace of
        the scope it writes to, ``<scope>/<name>``: the scope is everything before the id's
        last ``/`` (scope names may hold ``/`` themselves), so each id has one owning scope,
        whether it is free or taken says nothing about scopes the agent cannot write, and
        any other id is refused with the same answer whether or not it exists. The local
        operator picks any id."""
        self.check_write(scope)
        if self.access is None or record_id is None:
            return
        prefix = f"{scope}/"
        owner, _, name = record_id.rpartition("/") if isinstance(record_id, str) else ("", "", "")
        if owner != scope or not name:
            raise ScopeError(
                f"agent {self.access.agent!r} may choose ids only under the scope it writes "
                f"to: give '{prefix}<name>' (a name without '/', e.g. '{prefix}msg-42'), or leave "
                "the id out and remem makes one"
            )

    def write_target(self, requested: str | None = None) -> str | None:
        """Where a write goes: the requested scope (checked), else the caller's default
        (None for the operator: the record's own or the store's default)."""
        if requested is not None:
            self.read_scopes(requested)  # a scope it may not even read: "may not use"
            self.check_write(requested)
            return requested
        return None if self.access is None else self.access.write_scope


def in_scopes(record: Record, scopes: Sequence[str] | None) -> bool:
    """Whether ``record`` lies in ``scopes``, a list a guard handed down (None: every scope)."""
    return ScopeGuard.limited_to(scopes).can_see(record)


def check_write(access: Access | None, scope: str) -> None:
    """Refuse a write to ``scope`` that ``access`` does not allow (None: the local operator)."""
    ScopeGuard(access).check_write(scope)
