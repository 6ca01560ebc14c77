"""Time intent: "what did we say last week?" favours (or keeps only) records from that week."""

from __future__ import annotations

from remem.retrieve.candidates import Candidate
from remem.retrieve.context import StageContext


def time_intent(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    cfg = ctx.config.time_intent
    window = ctx.time_window
    if not cfg.enabled or window is None:
        return cands
    kept = []
    for c in cands:
        assert c.record is not None
        when = c.record.event_time or c.record.created_at
        inside = window.contains(when)
        if cfg.mode == "filter":
            if inside:
                # marked, so the relevance stage counts being in the window as the match
                c.set("time_intent", c.score, always=True)
                kept.append(c)
            else:
                ctx.drop(c, "time_intent", f"outside '{window.expression}'")
            continue
        if inside:
            c.set("time_intent", c.score + cfg.boost)
        kept.append(c)
    return kept
