"""The facts a caller may see: ``Memory.facts`` and the ``memory_facts`` tool read here.

Access is the records' access: a caller reads the facts of the scopes it may read
(``remem.access``); the local operator (no agent) reads every scope.
"""

from __future__ import annotations

import time
from datetime import datetime

from remem import arguments
from remem.access import ScopeGuard
from remem.config import Config
from remem.facts import corrections
from remem.facts.query import moment, read_facts, subject_keys
from remem.store.base import Store
from remem.types import Fact


def fact_guard(
    config: Config, agent: str | None, session: str | None, user: str | None
) -> ScopeGuard:
    """What ``agent`` may read and write (everything for the local operator, no agent)."""
    arguments.name("agent", agent, optional=True)
    if agent is None:
        return ScopeGuard.operator()
    return ScopeGuard.for_agent(config, agent, session=session, user=user)


def visible_facts(
    store: Store,
    config: Config,
    guard: ScopeGuard,
    subject: str | None = None,
    *,
    at: datetime | float | str | None = None,
    attribute: str | None = None,
    history: bool = False,
    scope: str | None = None,
) -> list[Fact]:
    """See ``Memory.facts``: the facts ``guard`` lets its caller read (``fact_guard`` for
    ``Memory.facts``' agent, session and user; the tools' own guard for ``memory_facts``)."""
    arguments.flag("history", history)
    if attribute is not None:
        corrections.check_attribute(attribute)
    scopes = guard.read_scopes(scope)
    when = moment(at, config.calendar.zone())
    subjects = None
    if subject is not None:  # by the facts' own subject names: no scan of the speakers
        subjects = subject_keys(store, subject, scopes)
        if not subjects:
            return []
    return read_facts(
        store,
        subjects=subjects,
        scopes=scopes,
        attribute=attribute,
        at=when,
        history=history,
        now=time.time(),
    )
