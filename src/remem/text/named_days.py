"""Days a question names ("October 13, 2023", "2023-10-13", "4 月 8 号"), spans counted from
one ("the week before August 3"), and spans between two ("between August 11 and August 15,
2023"): their patterns, which ``timeexpr`` tries before any month or year, and their windows.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from remem.text.calendar_words import (
    EN_NUMBERS,
    MONTHS,
    NUM_EN,
    WEEKDAYS,
    TimeWindow,
    window,
    zh_number,
)
from remem.text.lazy_re import lazy_compile

_MONTH_NAMES = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec"
)
_WEEKDAY_NAMES = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# A span counted back or on from a named day: "the week before August 3, 2023", "two weeks
# before 11 August", "the Sunday before October 25", "three days after 2023-05-01"
_FROM_DAY = (
    rf"(?:(?:\b(?:the|last)\s+)?(?:\b(?P<n>{NUM_EN})\s+)?\b(?P<unit>day|week|month|year|weekend)s?"
    rf"|(?:\b(?:the|last)\s+)?\b(?P<weekday>{_WEEKDAY_NAMES}))\s+(?P<rel>before|after|prior to)\s+"
)
_ORDINAL = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d\d"

_MDY = rf"(?P<{{p}}month>{_MONTH_NAMES})\.?\s+(?P<{{p}}day>\d{{{{1,2}}}}){_ORDINAL}\b(?:,?\s*(?P<{{p}}year>{_YEAR})\b)?"
_DMY = rf"(?P<{{p}}day>\d{{{{1,2}}}}){_ORDINAL}\s+(?:of\s+)?(?P<{{p}}month>{_MONTH_NAMES})\b\.?(?:,?\s*(?P<{{p}}year>{_YEAR})\b)?"


def _range_pattern(form: str) -> re.Pattern[str]:
    a, b = form.format(p="a"), form.format(p="b")
    return re.compile(
        rf"\b(?:between|from)\s+(?:the\s+)?{a}\s+(?:and|to|until|till|-)\s+(?:the\s+)?{b}"
    )


DAY_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # "between August 11 and August 15, 2023", "from 1 May to 3 May": one span, the year
    # said once for both
    (_range_pattern(_MDY), "range"),
    (_range_pattern(_DMY), "range"),
    # one named day, before any month or year pattern claims part of it: "October 13, 2023",
    # "on 1 February, 2023", "Oct 13th", "2023-10-13", "2023年8月3日", "4 月 8 号"
    (
        lazy_compile(
            rf"(?:{_FROM_DAY})?\b(?P<month>{_MONTH_NAMES})\.?\s+(?P<day>\d{{1,2}}){_ORDINAL}\b"
            rf"(?:,?\s*(?P<year>{_YEAR})\b)?"
        ),
        "day",
    ),
    (
        lazy_compile(
            rf"(?:{_FROM_DAY})?\b(?P<day>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?"
            rf"(?P<month>{_MONTH_NAMES})\b\.?(?:,?\s*(?P<year>{_YEAR})\b)?"
        ),
        "day",
    ),
    (
        lazy_compile(
            rf"(?:{_FROM_DAY})?\b(?P<year>{_YEAR})[-/](?P<month>\d{{1,2}})[-/](?P<day>\d{{1,2}})\b"
        ),
        "day",
    ),
    (
        lazy_compile(
            rf"(?:(?P<year>{_YEAR})\s*年\s*)?(?<![0-9])(?P<month>[0-9]{{1,2}}|[一二三四五六七八九十]{{1,3}})"
            r"\s*月\s*(?P<day>[0-9]{1,2}|[一二三四五六七八九十]{1,3})\s*[日号號]"
        ),
        "day",
    ),
]

_UNIT_DAYS = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}


def named_day(m: re.Match[str], now: datetime, expr: str) -> tuple[TimeWindow | None, bool]:
    """(the window, whether the text is a day): the day a query names, or the span counted
    from it. "the week before August 3" runs from July 27 through August 3 itself, the day
    people tell of it ("last week we went to the memorial" is said on August 3); "two days
    after May 1" from May 1 through May 3. A day after "by" or before 之前 is a day with no
    window (a range up to it); "may 2", "march 10", "Jun 8 点" are no day at all."""
    groups = m.groupdict()
    before, after = m.string[: m.start()], m.string[m.end() :]
    if not _is_a_day(m, before, after):
        return None, False
    day = _calendar_day(groups["year"], groups["month"], groups["day"], now)
    if day is None:
        return None, True  # "2023年2月30日" is a date no calendar has, not February
    rel = groups.get("rel")
    if not rel and (
        _OPEN_ENDED.search(before) or _ZH_OPEN_BEFORE.search(before) or _ZH_OPEN_AFTER.match(after)
    ):
        # "by July 10", "since March 3", "8月3日之前": a range up to or from the day
        return None, True
    if not rel:
        # a day is told of on it or on the next ("last night we watched ...", said on May 2
        # of May 1: 13 of LoCoMo's 128 questions on a named day have their answer there)
        return window(day, day + timedelta(days=2), expr), True
    if groups.get("weekday"):  # "the Sunday before October 25"
        offset = (day.weekday() - WEEKDAYS[groups["weekday"]]) % 7 or 7
        if rel != "before":
            offset = -((WEEKDAYS[groups["weekday"]] - day.weekday()) % 7 or 7)
        point = day - timedelta(days=offset)
    else:
        word = groups.get("n")
        count = (EN_NUMBERS.get(word) or (int(word) if word.isdigit() else 1)) if word else 1
        span = timedelta(days=count * _UNIT_DAYS[groups["unit"]])
        point = day - span if rel != "after" else day + span
    start, end = (point, day) if rel != "after" else (day, point)
    return window(start, end + timedelta(days=1), expr), True


def day_range(m: re.Match[str], now: datetime, expr: str) -> TimeWindow | None:
    """The span from one named day through another (and the day after, when it is told)."""
    g = m.groupdict()
    year = g["byear"] or g["ayear"]
    start = _calendar_day(g["ayear"] or year, g["amonth"], g["aday"], now)
    end = _calendar_day(g["byear"] or year, g["bmonth"], g["bday"], now)
    if start is None or end is None or end < start:
        return None
    return window(start, end + timedelta(days=2), expr)


def _calendar_day(year: str | None, month: str, day: str, now: datetime) -> datetime | None:
    """A day from a query's numbers and month name (Chinese numerals too); without a year its
    most recent occurrence up to ``now``; None for a day no calendar has (February 30)."""
    month_number = MONTHS.get(month) or zh_number(month)
    day_number = zh_number(day)
    if not month_number or not day_number:
        return None
    years = [int(year)] if year else [now.year, now.year - 1]
    for y in years:
        try:
            found = datetime(y, month_number, day_number, tzinfo=now.tzinfo)
        except ValueError:
            return None
        if year or found <= now:
            return found
    return found


_OPEN_ENDED = lazy_compile(r"\b(?:before|after|by|until|till|since|prior to)\s*(?:the\s+)?$")
_ZH_OPEN_BEFORE = lazy_compile(r"(?:截至|截止|直到|自从|从)\s*$")
_ZH_OPEN_AFTER = lazy_compile(r"\s*(?:之前|以前|之后|以后|以来|前|后|起)")
# Month names that are also words or names ("you may", "we march", "April" the person) and
# the abbreviations ("dec places", "Jun 8 点"): without a year they name a day only where a
# date is plainly meant ("on May 2", "the 2nd of May", "May 2nd")
_AMBIGUOUS_MONTHS = frozenset(
    ["may", "march", "april", "june", "august"]
    + [name for name in _MONTH_NAMES.split("|") if len(name) <= 4 and name != "june"]
)
_DATE_CONTEXT = lazy_compile(
    r"\b(?:on|of|the|by|since|until|till|before|after|between|and|from)\s*$"
)
_HAN_NEXT = lazy_compile(r"\s*[\u3400-\u9fff]")


def _is_a_day(m: re.Match[str], before: str, after: str) -> bool:
    """Whether an English month name with a number is a date: "in December 3 people joined"
    is December, "April 3 点的会议" is three o'clock; a month that is also a word needs a
    year, an ordinal, "of", a span ("the week before") or "on" / "the" before it."""
    month = m.group("month")
    if not month.isalpha() or not month.isascii():
        return True  # 2023-10-13, 8月3日
    if m.group("year"):
        return True
    if _HAN_NEXT.match(after) or re.search(r"\bin\s*$", before):
        return False
    if month not in _AMBIGUOUS_MONTHS:
        return True
    text = m.group(0)
    return bool(
        _DATE_CONTEXT.search(before)
        or re.search(r"\d(?:st|nd|rd|th)|\bof\b", text)
        or m.group("rel")
    )
