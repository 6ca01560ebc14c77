"""When a statement became (or becomes) true, read from its sentence with remem's time
expressions (``remem.text.timeexpr``) relative to when it was said.

A told-of past ("last month", "上周", "on Friday") starts at its window's start. A plan looks
forward: "next week / month / year", "next Monday", "tomorrow", "下个月", "下周", "明年", "明天"
(which the query reader does not know, since questions look back), and a named day or month
that the query reader resolves to its most recent occurrence ("on December 1st" said on
November 20) is moved to its next one when the sentence is a plan.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from remem.text.calendar_words import MONTHS, WEEKDAYS, day_start, month_start
from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified
from remem.text.timeexpr import find_time_window

_EN_NEXT = lazy_compile(
    r"\b(?:next\s+(?P<unit>week|month|year|(?P<weekday>monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday))|(?P<tomorrow>tomorrow)|(?:from|this\s+coming|on|this)\s+"
    r"(?P<coming>monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
    re.I,
)
_ZH_NEXT = lazy_compile(
    r"(?P<unit>下(?:个)?月|下(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天])|明年)|(?P<tomorrow>明天|明早|明晚)"
)


def _next(text: str, said: datetime) -> datetime | None:
    """The start of a forward expression ("next month", "下个月"), None when there is none."""
    today = day_start(said)
    week = today - timedelta(days=today.weekday())
    m = _EN_NEXT.search(text)
    if m is not None:
        if m["tomorrow"]:
            return today + timedelta(days=1)
        day = m["weekday"] or m["coming"]
        if day:
            ahead = (WEEKDAYS[day.lower()] - today.weekday()) % 7 or 7
            return today + timedelta(days=ahead)
        unit = m["unit"].lower()
        if unit == "week":
            return week + timedelta(weeks=1)
        if unit == "month":
            return month_start(said.year, said.month + 1, said.tzinfo)
        return datetime(said.year + 1, 1, 1, tzinfo=said.tzinfo)
    z = _ZH_NEXT.search(to_simplified(text))
    if z is None:
        return None
    if z["tomorrow"]:
        return today + timedelta(days=1)
    unit = z["unit"]
    if "月" in unit:
        return month_start(said.year, said.month + 1, said.tzinfo)
    if unit == "明年":
        return datetime(said.year + 1, 1, 1, tzinfo=said.tzinfo)
    return week + timedelta(weeks=1)


_MONTH_DAY = lazy_compile(
    r"\b(?P<month>january|february|march|april|may|june|july|august|september|october|"
    r"november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?\s+(?P<day>\d{1,2})"
    r"(?:st|nd|rd|th)?\b|\b(?P<day2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month2>january|"
    r"february|march|april|may|june|july|august|september|october|november|december)\b",
    re.I,
)


def _month_day(text: str, said: datetime) -> datetime | None:
    """ "March 18", "7 May" with no year and no "on" (which the query reader needs to call it
    a day): that day of the year it was said in."""
    m = _MONTH_DAY.search(text)
    if m is None:
        return None
    month = MONTHS[(m["month"] or m["month2"]).lower()]
    try:
        return datetime(said.year, month, int(m["day"] or m["day2"]), tzinfo=said.tzinfo)
    except ValueError:  # "February 30"
        return None


def _forward(start: datetime, said: datetime) -> datetime:
    """A named day or month the query reader put in the past, moved to its next occurrence."""
    if start >= day_start(said):
        return start
    try:
        return start.replace(year=start.year + 1)
    except ValueError:  # 29 February
        return start + timedelta(days=365)


def moment_of(sentence: str, said_at: float, *, plan: bool) -> float | None:
    """When the sentence says its fact became true (a plan: will become true), as Unix
    seconds; None when it names no time."""
    said = datetime.fromtimestamp(said_at, UTC)
    if plan:
        ahead = _next(sentence, said)
        if ahead is not None:
            return ahead.timestamp()
    found = find_time_window(sentence, said_at)
    if found is None:
        named = _month_day(sentence, said) if plan else None
        return _forward(named, said).timestamp() if named is not None else None
    start = datetime.fromtimestamp(found.start, UTC)
    if plan:
        return _forward(start, said).timestamp()
    if start > said:  # a past statement cannot start later than it was said
        return said_at
    return found.start


__all__ = ["moment_of"]
