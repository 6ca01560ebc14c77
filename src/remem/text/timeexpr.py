"""Time expressions in queries, English and Chinese, resolved without an LLM.

``find_time_window("what did we do last week?", now)`` returns the half-open window
[start, end) in Unix seconds that the expression names, resolved against ``now`` on the
calendar of a time zone (``zone``, UTC unless given: "yesterday" asked at 07:00 in Shanghai is
the day before in Shanghai, which began at 16:00 UTC). Supported: yesterday / today / the day
before yesterday, N days / weeks / months / years ago, last / this week / month / year,
last / this <season>, last <weekday>, in <month> [<year>], <month> <year>, <year>; 昨天 / 今天 /
前天 / 大前天, N天前 / N周前 / N个月前 / N年前, 上周 / 本周 / 上个月 / 这个月 / 去年 / 今年 /
前年, 去年夏天 / 今年春天, 上周一, [YYYY年]M月, YYYY年. An ambiguous month without a year means its most recent occurrence up to ``now``.

Named days: "October 13, 2023", "on 1 February, 2023", "Oct 13th", "2023-10-13", "2023/8/3",
"2023年8月3日", "4 月 8 号", "八月三日" name that day and the next (a day is told of on it or
the day after: "last night we watched ..."); a span counted from one ("the week before August
3, 2023", "two weeks before 11 August", "the Sunday before October 25", "3 days after
2023-05-01") runs from its start through the named day; "between August 11 and August 15,
2023" and "from 1 May to 3 May" from the first day through the day after the second. A day
after "by", "before", "after", "since" or "until" (or before 之前, 以后) names a range the window
cannot hold, so none, and not its month either (``named_days``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo

from remem.text.calendar_words import (
    DAY,
    EN_NUMBERS,
    MONTHS,
    NUM_EN,
    SEASONS,
    WEEKDAYS,
    ZH_NUM,
    ZH_SEASONS,
    ZH_WEEKDAYS,
    TimeWindow,
    day_start,
    month_start,
    window,
    zh_number,
)
from remem.text.lazy_re import lazy_compile
from remem.text.named_days import DAY_PATTERNS, day_range, named_day

__all__ = ["DAY", "TimeWindow", "find_time_window", "zh_number"]


def _union(windows: list[TimeWindow]) -> TimeWindow:
    """Several windows as one: overlapping spans merged, expressions in query order."""
    spans = sorted(span for w in windows for span in w._spans())
    merged: list[tuple[float, float]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    expression = " / ".join(w.expression for w in windows)
    return TimeWindow(merged[0][0], merged[-1][1], expression, tuple(merged))


def _year(year: int, expr: str, zone: tzinfo | None) -> TimeWindow:
    return window(datetime(year, 1, 1, tzinfo=zone), datetime(year + 1, 1, 1, tzinfo=zone), expr)


def _week_start(dt: datetime) -> datetime:
    return day_start(dt) - timedelta(days=dt.weekday())


def _season(year: int, season: str, expr: str, zone: tzinfo | None) -> TimeWindow:
    month, length = SEASONS[season]
    return window(month_start(year, month, zone), month_start(year, month + length, zone), expr)


def _last_season(now: datetime, season: str, expr: str, *, this: bool = False) -> TimeWindow:
    month, _ = SEASONS[season]
    year = now.year
    # "last summer" = the most recent summer that has started before now's season began
    start = month_start(year, month, now.tzinfo)
    if this:
        if start > now:
            year -= 1
        return _season(year, season, expr, now.tzinfo)
    if start + timedelta(days=92) > now:
        year -= 1
    return _season(year, season, expr, now.tzinfo)


def _month_window(now: datetime, month: int, year: int | None, expr: str) -> TimeWindow:
    zone = now.tzinfo
    if year is None:
        year = now.year if month_start(now.year, month, zone) <= now else now.year - 1
    return window(month_start(year, month, zone), month_start(year, month + 1, zone), expr)


_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    *DAY_PATTERNS,
    (lazy_compile(r"\bday before yesterday\b"), "day_before_yesterday"),
    (lazy_compile(r"\byesterday\b"), "yesterday"),
    (lazy_compile(r"\btoday\b|\btonight\b|\bthis morning\b"), "today"),
    (lazy_compile(rf"\b{NUM_EN}\s+(day|week|month|year)s?\s+ago\b"), "ago"),
    (lazy_compile(r"\b(last|past|this|previous)\s+(week|month|year|weekend)\b"), "relative_unit"),
    (lazy_compile(r"\b(last|this|past)\s+(spring|summer|autumn|fall|winter)\b"), "relative_season"),
    (
        lazy_compile(
            r"\b(last|this|past|on)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
        ),
        "weekday",
    ),
    (
        lazy_compile(r"\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?((?:19|20)\d\d)\b"),
        "season_year",
    ),
    (
        lazy_compile(
            r"\b(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s*(?:of\s+)?,?\s*((?:19|20)\d\d)\b"
        ),
        "month_year",
    ),
    (
        lazy_compile(
            r"\bin\s+(january|february|march|april|may|june|july|august|september|october|november|december)\b"
        ),
        "month",
    ),
    (lazy_compile(r"\bin\s+((?:19|20)\d\d)\b"), "year"),
    # Chinese
    (lazy_compile(r"大前天"), "zh_3days"),
    (lazy_compile(r"前天"), "day_before_yesterday"),
    (lazy_compile(r"昨天|昨晚|昨日"), "yesterday"),
    (lazy_compile(r"今天|今晚|今早|今日"), "today"),
    (lazy_compile(rf"{ZH_NUM}\s*(天|日|周|星期|个?礼拜|个?月|年)(?:以)?前"), "zh_ago"),
    (lazy_compile(r"(上上|上|这|本|下)(?:个)?(周|星期|礼拜)([一二三四五六日天])"), "zh_weekday"),
    (lazy_compile(r"(上上|上|这|本)(?:个)?(周|星期|礼拜|月)"), "zh_relative"),
    (lazy_compile(r"(去年|今年|前年)(?:的)?([春夏秋冬])(?:天|季)"), "zh_year_season"),
    (lazy_compile(r"(去年|今年|前年)"), "zh_year"),
    (
        lazy_compile(r"((?:19|20)\d\d)\s*年\s*([0-9]{1,2}|[一二三四五六七八九十]{1,3})\s*月"),
        "zh_year_month",
    ),
    (lazy_compile(r"((?:19|20)\d\d)\s*年"), "year"),
    (
        lazy_compile(
            r"(?<![0-9年])([0-9]{1,2}|[一二三四五六七八九十]{1,3})\s*月(?!份?\s*[0-9]+\s*[日号])"
        ),
        "zh_month",
    ),
]


def find_time_window(query: str, now: float, zone: tzinfo = UTC) -> TimeWindow | None:
    """Every time expression in the query as one window (their union), or None; days,
    months and years are those of ``zone``'s calendar.

    Patterns are tried in priority order ("the day before yesterday" before "yesterday");
    a match that overlaps text an earlier pattern already claimed is skipped, so one phrase
    names one span."""
    text = query.lower()
    current = datetime.fromtimestamp(now, zone)
    today = day_start(current)
    found: list[tuple[int, TimeWindow]] = []
    claimed = bytearray(len(text))  # the characters a phrase already named
    for pattern, kind in _PATTERNS:
        for m in pattern.finditer(text):
            if any(claimed[m.start() : m.end()]):
                continue
            try:
                if kind == "range":
                    window = day_range(m, current, m.group(0))
                    claim = window is not None
                elif kind == "day":
                    # a day that names no window ("by 10 July, 2023") is not a month either
                    window, claim = named_day(m, current, m.group(0))
                else:
                    window = _resolve(kind, m, current, today, m.group(0))
                    claim = window is not None
            except (OverflowError, ValueError):
                window, claim = None, False  # "9999 years ago": before any calendar
            if claim:
                claimed[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
            if window is not None:
                found.append((m.start(), window))
    if not found:
        return None
    windows = [w for _pos, w in sorted(found, key=lambda item: item[0])]
    return windows[0] if len(windows) == 1 else _union(windows)


def _resolve(
    kind: str, m: re.Match[str], now: datetime, today: datetime, expr: str
) -> TimeWindow | None:
    if kind == "yesterday":
        return window(today - timedelta(days=1), today, expr)
    if kind == "day_before_yesterday":
        return window(today - timedelta(days=2), today - timedelta(days=1), expr)
    if kind == "zh_3days":
        return window(today - timedelta(days=3), today - timedelta(days=2), expr)
    if kind == "today":
        return window(today, today + timedelta(days=1), expr)
    if kind == "ago":
        word = m.group(1)
        count = EN_NUMBERS.get(word) or (int(word) if word.isdigit() else 1)
        return _ago(count, m.group(2), today, expr)
    if kind == "zh_ago":
        n = zh_number(m.group(1))
        if n is None:
            return None
        unit = {
            "天": "day",
            "日": "day",
            "周": "week",
            "星期": "week",
            "礼拜": "week",
            "个礼拜": "week",
            "月": "month",
            "个月": "month",
            "年": "year",
        }[m.group(2)]
        return _ago(n, unit, today, expr)
    if kind == "relative_unit":
        which, unit = m.group(1), m.group(2)
        offset = 0 if which == "this" else -1
        return _relative(unit, offset, now, today, expr)
    if kind == "zh_relative":
        which, unit = m.group(1), m.group(2)
        offset = {"上上": -2, "上": -1, "这": 0, "本": 0}[which]
        return _relative("month" if unit == "月" else "week", offset, now, today, expr)
    if kind == "relative_season":
        return _last_season(
            now, "autumn" if m.group(2) == "fall" else m.group(2), expr, this=m.group(1) == "this"
        )
    if kind == "weekday":
        target = WEEKDAYS[m.group(2)]
        days_back = (today.weekday() - target) % 7 or 7
        day = today - timedelta(days=days_back)
        return window(day, day + timedelta(days=1), expr)
    if kind == "zh_weekday":
        offset = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1}[m.group(1)]
        day = _week_start(today) + timedelta(weeks=offset, days=ZH_WEEKDAYS[m.group(3)])
        return window(day, day + timedelta(days=1), expr)
    if kind == "season_year":
        season = "autumn" if m.group(1) == "fall" else m.group(1)
        return _season(int(m.group(2)), season, expr, now.tzinfo)
    if kind == "month_year":
        return _month_window(now, MONTHS[m.group(1)], int(m.group(2)), expr)
    if kind == "month":
        return _month_window(now, MONTHS[m.group(1)], None, expr)
    if kind == "year":
        year = int(m.group(1))
        return _year(year, expr, now.tzinfo)
    if kind == "zh_year":
        year = now.year + {"去年": -1, "今年": 0, "前年": -2}[m.group(1)]
        return _year(year, expr, now.tzinfo)
    if kind == "zh_year_season":
        year = now.year + {"去年": -1, "今年": 0, "前年": -2}[m.group(1)]
        return _season(year, ZH_SEASONS[m.group(2)], expr, now.tzinfo)
    if kind == "zh_year_month":
        month = zh_number(m.group(2))
        if not month or not 1 <= month <= 12:
            return None
        return _month_window(now, month, int(m.group(1)), expr)
    if kind == "zh_month":
        month = zh_number(m.group(1))
        if not month or not 1 <= month <= 12:
            return None
        return _month_window(now, month, None, expr)
    return None


def _ago(n: int, unit: str, today: datetime, expr: str) -> TimeWindow:
    # "two weeks ago" is fuzzy: a window one unit wide centred on the point, at day resolution.
    span = {"day": 1, "week": 7, "month": 30, "year": 365}[unit]
    point = today - timedelta(days=n * span)
    if unit == "day":
        return window(point, point + timedelta(days=1), expr)
    half = timedelta(days=max(1, span // 2))
    return window(point - half, point + half + timedelta(days=1), expr)


def _relative(unit: str, offset: int, now: datetime, today: datetime, expr: str) -> TimeWindow:
    if unit == "week":
        start = _week_start(today) + timedelta(weeks=offset)
        return window(start, start + timedelta(weeks=1), expr)
    if unit == "weekend":
        this_saturday = _week_start(today) + timedelta(days=5)
        saturday = this_saturday if offset == 0 else this_saturday - timedelta(weeks=1)
        return window(saturday, saturday + timedelta(days=2), expr)
    if unit == "month":
        start = month_start(now.year, now.month + offset, now.tzinfo)
        return window(start, month_start(start.year, start.month + 1, now.tzinfo), expr)
    year = now.year + offset
    return _year(year, expr, now.tzinfo)
