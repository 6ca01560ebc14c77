"""Time intent: "what did we say last week?" favours (or keeps only) records from that week.

A named window narrower than a month also brings its own candidates: each channel's best
records from inside it join the channel's top-N over the whole store. "What was Sam doing on
December 4, 2023?" is answered by a line that shares one word with it ("I attended a Weight
Watchers meeting yesterday"); across a long conversation that line is not among the best 50,
but it is among the best of its day.
"""

from __future__ import annotations

import dataclasses
from datetime import tzinfo

from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.text.timeexpr import DAY, TimeWindow, find_time_window
from remem.types import Filters

WINDOW_CANDIDATES_MAX_DAYS = 31  # a year's best 10 would only be the store's best 10


def read_time_words(
    ctx: StageContext, zone: tzinfo | None, disable: tuple[str, ...] | frozenset[str]
) -> Filters | None:
    """Read the query's time words into ``ctx.understood.time_window`` (on the calendar of
    ``zone``, else the config's), and return the filters of the channels' search inside that
    window when ``time_intent.candidates`` asks for one (see the module docstring)."""
    asked = ctx.request
    cfg = asked.config
    if cfg.time_intent.enabled and "time_intent" not in disable:
        window = find_time_window(asked.query, asked.now, zone or cfg.calendar.zone())
        ctx.understood.time_window = window
        if window is not None:
            ctx.report.notes.append(f"time intent: '{window.expression}'")
    if not cfg.time_intent.candidates:
        return None
    return window_filters(asked.filters, ctx.understood.time_window)


def time_intent(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    cfg = ctx.request.config.time_intent
    window = ctx.understood.time_window
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
                ctx.report.drop(c, "time_intent", f"outside '{window.expression}'")
            continue
        if inside:
            c.set("time_intent", c.score + cfg.boost)
        kept.append(c)
    return kept


def window_filters(filters: Filters | None, window: TimeWindow | None) -> Filters | None:
    """The search's filters narrowed to a named window of at most a month (its hull when it
    names several spans), or None when there is none or it is wider."""
    # an hour of slack each side: a month with a daylight-saving change is 31 local days and
    # an hour long
    longest = WINDOW_CANDIDATES_MAX_DAYS * DAY + 2 * 3600
    if window is None or window.end - window.start > longest:
        return None
    base = filters if filters is not None else Filters()
    since = window.start if base.since is None else max(base.since, window.start)
    # Filters.until is inclusive, the window's end is not: the last second inside it
    end = window.end - 1
    until = end if base.until is None else min(base.until, end)
    if since > until:
        return None  # the window lies outside what the caller's filters allow
    return dataclasses.replace(base, since=since, until=until)


def with_window(
    hits: list[tuple[int, float]], inside: list[tuple[int, float]]
) -> list[tuple[int, float]]:
    """A channel's hits over the whole store and its best inside the window, best first."""
    seen = {rowid for rowid, _ in hits}
    extra = [(rowid, score) for rowid, score in inside if rowid not in seen]
    if not extra:
        return hits
    return sorted(hits + extra, key=lambda h: -h[1])
