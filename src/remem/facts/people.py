"""Who is who, for the extractor: every name or alias a speaker of the store goes by, mapped
to that speaker's subject key (``ExtractionContext.people``).

INTEGRATOR: a stand-in until H1's ``remem.facts.subjects.people_of`` lands; when it does,
``remem.facts.service`` should call that one and this module can go.
"""

from __future__ import annotations

from collections.abc import Iterable

from remem.facts.model import name_subject, speaker_subject
from remem.text.names import aliases
from remem.types import Record


def subject_of(record: Record) -> tuple[str, str] | None:
    """(subject key, shown name) of a record's speaker, or None when it names nobody."""
    if record.speaker_id:
        return speaker_subject(record.speaker_id), record.speaker_label or record.speaker_id
    if record.speaker_label:
        return name_subject(record.speaker_label), record.speaker_label
    return None


def people_of(records: Iterable[Record], into: dict[str, str] | None = None) -> dict[str, str]:
    """Casefolded name or alias -> subject key, for every speaker of these records (added to
    ``into`` when given). An alias two speakers share names neither, so it is left out."""
    people = {} if into is None else into
    shared: set[str] = set()
    for record in records:
        who = subject_of(record)
        if who is None:
            continue
        key, label = who
        names = {label.casefold(), *(a.text for a in aliases(label))}
        if record.speaker_id:
            names.add(record.speaker_id.casefold())
        for name in names:
            if name in shared:
                continue
            if people.setdefault(name, key) != key:
                shared.add(name)
                del people[name]
    return people
