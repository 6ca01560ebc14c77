"""``Memory``'s fact methods: what is known about whom, and since when (issue 48).

Kept beside the facade (a mixin ``Memory`` inherits) so the facade stays one screenful per
concern. The facts themselves are derived by ``remem.facts.service.FactService`` from the
records; a hand correction is a curated memory (``remem.facts.corrections``), so it has the
history, undo and audit of any memory edit. Access is the records' access: a caller reads the
facts of the scopes it may read (``remem.access``) and corrects where it may write.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any

from remem import arguments
from remem.errors import ValidationError
from remem.facts import corrections
from remem.facts.model import name_subject
from remem.facts.query import fact_view, fold_name, subject_keys
from remem.facts.service import FactService, Progress, RebuildSummary
from remem.facts.visible import fact_guard, visible_facts
from remem.store.queries import FactQuery
from remem.types import Fact, Record

if TYPE_CHECKING:
    from remem.config import Config
    from remem.ingest.indexing import Indexer
    from remem.memories import CuratedMemories
    from remem.store.base import Store


@dataclass
class FactCorrection:
    """A hand correction: the curated memory that records it (its id undoes it) and the
    facts of the corrected subject and attribute afterwards, history included."""

    memory: Record | None
    facts: list[Fact] = field(default_factory=list)
    duplicate_of: Record | None = None  # the same correction was already current

    def to_dict(self) -> dict[str, object]:
        return self._with_facts([f.to_dict() for f in self.facts])

    def view(self, zone: tzinfo) -> dict[str, Any]:
        """As every surface shows it (the CLI's --json, REST): each fact as ``fact_view``
        gives it, with its dates on the calendar ``zone``."""
        return self._with_facts([fact_view(f, zone) for f in self.facts])

    def _with_facts(self, facts: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "memory": None if self.memory is None else self.memory.to_dict(),
            "duplicate_of": None if self.duplicate_of is None else self.duplicate_of.id,
            "facts": facts,
        }


class FactMethods:
    """The fact methods of ``Memory`` (see the module docstring)."""

    config: Config
    store: Store
    memories: CuratedMemories
    fact_service: FactService
    indexer: Indexer

    def facts(
        self,
        subject: str | None = None,
        *,
        at: datetime | float | str | None = None,
        attribute: str | None = None,
        history: bool = False,
        scope: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        user: str | None = None,
    ) -> list[Fact]:
        """What is known: the facts holding at ``at`` (a datetime, Unix seconds or an
        ISO date; default now), or with ``history`` every fact, closed ones too.

        ``subject`` is a name ("Tom", "汤姆", an alias such as "Xiaoming") or a subject key
        ("speaker:tom"); None: everyone. ``attribute`` narrows to one ("lives_in"). With
        ``agent`` (and ``session``, ``user``) only the scopes that agent may read, like a
        search; ``scope`` narrows further. The facts of records written a moment ago (or
        left unread by a killed process) are read first."""
        self.wait_facts()
        guard = fact_guard(self.config, agent, session, user)
        return visible_facts(
            self.store,
            self.config,
            guard,
            subject,
            at=at,
            attribute=attribute,
            history=history,
            scope=scope,
        )

    def wait_facts(self, timeout: float | None = None) -> bool:
        """Block until the facts of every record written so far are read: those this process
        wrote (facts are read after the write's acknowledgement, ``ingest/facts_fill.py``)
        and those a killed process left unread. Every surface that shows facts waits on it
        (``facts``, ``correct_fact``, the agent tool ``memory_facts``, the web UI's people
        pages); call it before reading the store's facts yourself. False when ``timeout``
        (seconds) ran out first; True at once when facts are not kept."""
        fill = self.indexer.facts
        seconds = arguments.seconds("timeout", timeout, optional=True)
        return True if fill is None else fill.read_owed(seconds)

    def rebuild_facts(
        self, scopes: Sequence[str] | None = None, *, progress: Progress | None = None
    ) -> RebuildSummary:
        """Derive every fact again from the records (after an extractor or model change),
        one transaction per scope: a failure leaves that scope's facts as they were."""
        if scopes is not None and (
            isinstance(scopes, str) or not all(isinstance(s, str) for s in scopes)
        ):
            raise ValidationError("scopes", scopes, "give a list of scope names")
        return self.fact_service.rebuild(scopes, progress=progress)

    def correct_fact(
        self,
        subject: str,
        attribute: str,
        value: str | None = None,
        *,
        close: bool = False,
        note: str | None = None,
        scope: str | None = None,
        agent: str | None = None,
        session: str | None = None,
        user: str | None = None,
    ) -> FactCorrection:
        """Correct a fact by hand: set ``value`` (it holds from now and closes the value
        before it), or ``close`` the current value (``value`` names which one, else every
        one). Stored as a curated memory, so ``history`` and ``undo`` of
        ``result.memory.id`` work on it; it wins over everything said before it.

        The correction goes to the scope of the subject's newest visible fact of that
        attribute (so it closes that fact), else ``scope``, else the caller's write scope
        (the local operator: "global")."""
        arguments.flag("close", close)
        corrections.check_attribute(attribute)
        guard = fact_guard(self.config, agent, session, user)
        readable = guard.read_scopes(scope)
        self.wait_facts()  # the correction closes the newest value, read first
        key, shown, where = self._correction_target(subject, attribute, readable)
        target = scope or where or guard.write_target(None) or "global"
        guard.check_write(target)
        meta = corrections.correction_metadata(key, shown, attribute, value, close=close, note=note)
        text = corrections.correction_text(shown, attribute, value, close)
        access = guard.access
        outcome = self.memories.remember(
            access,
            text,
            scope=target,
            category="fact",
            importance=0.9,
            role="user",
            speaker_id=access.user if access is not None else None,
            subject=f"fact:{key}:{attribute}",  # a newer correction of the chain replaces it
            metadata={**meta, "captured_by": "correction", "agent": agent},
            similar=False,  # two corrections of one chain differ only in their value
        )
        facts = self.store.facts(FactQuery(scopes=[target], subject=key, attribute=attribute))
        return FactCorrection(outcome.record, facts, outcome.duplicate_of)

    def _correction_target(
        self, subject: str, attribute: str, readable: list[str] | None
    ) -> tuple[str, str, str | None]:
        """(subject key, shown name, the scope of its newest visible fact of the attribute)."""
        keys = subject_keys(self.store, subject, readable)
        if len(keys) > 1:
            raise ValidationError(
                "subject", subject, f"it names several subjects ({', '.join(keys)}): give one key"
            )
        if not keys:
            text = subject.strip()
            return name_subject(text) if ":" not in text else text, text, None
        found = self.store.facts(FactQuery(scopes=readable, subject=keys[0], attribute=attribute))
        if not found:
            return keys[0], subject.strip(), None
        newest = max(found, key=lambda f: (f.said_at, f.valid_from))
        shown = newest.subject_name or fold_name(subject)
        return keys[0], shown, newest.scope
