"""A stage context built from the fields a test sets, each put into the part that holds it
(``search/context.py``), so a test names what it sets and not where it lives."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from remem.search.context import (
    ChannelFinds,
    QueryUnderstanding,
    Readers,
    RelevanceVerdict,
    Report,
    Request,
    StageContext,
)

PARTS = {
    "understood": QueryUnderstanding,
    "found": ChannelFinds,
    "readers": Readers,
    "verdict": RelevanceVerdict,
    "report": Report,
}


def stage_context(**given: Any) -> StageContext:
    """``StageContext`` from flat fields: ``query``, ``now``, ``k`` and ``config`` make the
    request; any other field goes to the part that declares it (an unknown one is an error)."""
    request_fields = {f.name for f in fields(Request)}
    ctx = StageContext(Request(**{n: v for n, v in given.items() if n in request_fields}))
    for name, value in given.items():
        if name in request_fields:
            continue
        part = next((p for p, cls in PARTS.items() if name in {f.name for f in fields(cls)}), None)
        if part is None:
            raise TypeError(f"no part of StageContext has a field {name!r}")
        setattr(getattr(ctx, part), name, value)
    return ctx
