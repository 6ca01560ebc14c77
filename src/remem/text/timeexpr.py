"""Time expressions in queries, English and Chinese, resolved without an LLM.

``find_time_window("what did we do last week?", now)`` returns the half-open window
[start, end) in Unix seconds that the expression names, resolved against ``now`` (UTC
calendar). Supported: yesterday / today / the day before yesterday, N days / weeks / months /
years ago, last / this week / month / year, last / this <season>, last <weekday>, in <month>
[<year>], <month> <year>, <year>; 昨天 / 今天 / 前天 / 大前天, N天前 / N周前 / N个月前 / N年前,
上周 / 本周 / 上个月 / 这个月 / 去年 / 今年 / 前年, 去年夏天 / 今年春天, 上周一, [YYYY年]M月,
YYYY年. An ambiguous month without a year means its most recent occurrence up to ``now``.

Named days: "October 13, 2023", "on 1 February, 2023", "Oct 13th", "2023-10-13", "2023/8/3",
"2023年8月3日", "4 月 8 号", "八月三日" name that day and the next (a day is told of on it or
the day after: "last night we watched ..."); a span counted from one ("the week before August
3, 2023", "two weeks before 11 August", "the Sunday before October 25", "3 days after
2023-05-01") runs from its start through the named day. A day after "by", "before", "after",
"since" or "until" names a range the window cannot hold, so none (and not its month either).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

DAY = 86400


@dataclass(frozen=True, slots=True)
class TimeWindow:
    """One or more half-open [start, end) spans that a query names ("yesterday or 2 days ago"
    names two); ``start`` / ``end`` are the hull of all spans."""

    start: float
    end: float
    expression: str
    spans: tuple[tuple[float, float], ...] = ()

    def _spans(self) -> tuple[tuple[float, float], ...]:
        return self.spans or ((self.start, self.end),)

    def contains(self, ts: float) -> bool:
        return any(start <= ts < end for start, end in self._spans())

    def distance_days(self, ts: float) -> float:
        """0 inside a span, else days to the nearest edge of the nearest span."""
        return min(_distance(ts, start, end) for start, end in self._spans()) / DAY


def _distance(ts: float, start: float, end: float) -> float:
    if ts < start:
        return start - ts
    if ts >= end:
        return ts - end
    return 0.0


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


_MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_WEEKDAYS = {
    d: i
    for i, d in enumerate(
        ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    )
}
_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_SEASONS = {"spring": (3, 3), "summer": (6, 3), "autumn": (9, 3), "fall": (9, 3), "winter": (12, 3)}
_ZH_SEASONS = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}
_EN_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
}
_ZH_DIGITS = {
    "零": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}


def zh_number(text: str) -> int | None:
    """Chinese or Arabic numeral up to 99 ("十二", "两", "3") -> int."""
    if text.isdigit():
        return int(text)
    if text in ("几", "幾"):
        return 3
    if "十" in text:
        tens, _, ones = text.partition("十")
        t = _ZH_DIGITS.get(tens, 1) if tens else 1
        o = _ZH_DIGITS.get(ones, 0) if ones else 0
        return t * 10 + o
    if len(text) == 1 and text in _ZH_DIGITS:
        return _ZH_DIGITS[text]
    return None


def _day_start(dt: datetime) -> datetime:
    return dt.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_start(year: int, month: int) -> datetime:
    while month > 12:
        year, month = year + 1, month - 12
    while month < 1:
        year, month = year - 1, month + 12
    return datetime(year, month, 1, tzinfo=UTC)


def _window(start: datetime, end: datetime, expr: str) -> TimeWindow:
    return TimeWindow(start.timestamp(), end.timestamp(), expr)


def _year(year: int, expr: str) -> TimeWindow:
    return _window(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC), expr)


def _week_start(dt: datetime) -> datetime:
    return _day_start(dt) - timedelta(days=dt.weekday())


def _season(year: int, season: str, expr: str) -> TimeWindow:
    month, length = _SEASONS[season]
    return _window(_month_start(year, month), _month_start(year, month + length), expr)


def _last_season(now: datetime, season: str, expr: str, *, this: bool = False) -> TimeWindow:
    month, _ = _SEASONS[season]
    year = now.year
    # "last summer" = the most recent summer that has started before now's season began
    start = _month_start(year, month)
    if this:
        if start > now:
            year -= 1
        return _season(year, season, expr)
    if start + timedelta(days=92) > now:
        year -= 1
    return _season(year, season, expr)


def _month_window(now: datetime, month: int, year: int | None, expr: str) -> TimeWindow:
    if year is None:
        year = now.year if _month_start(now.year, month) <= now else now.year - 1
    return _window(_month_start(year, month), _month_start(year, month + 1), expr)


_NUM_EN = r"(\d+|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_ZH_NUM = r"([0-9]+|[零一二两三四五六七八九十几幾]+)"

_MONTH_NAMES = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec"
)
_WEEKDAY_NAMES = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
# A span counted back or on from a named day: "the week before August 3, 2023", "two weeks
# before 11 August", "the Sunday before October 25", "three days after 2023-05-01"
_FROM_DAY = (
    rf"(?:(?:(?:the|last)\s+)?(?:(?P<n>{_NUM_EN})\s+)?(?P<unit>day|week|month|year|weekend)s?"
    rf"|(?:the|last)\s+(?P<weekday>{_WEEKDAY_NAMES}))\s+(?P<rel>before|after|prior to)\s+"
)
_ORDINAL = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d\d"

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # one named day, before any month or year pattern claims part of it: "October 13, 2023",
    # "on 1 February, 2023", "Oct 13th", "2023-10-13", "2023年8月3日", "4 月 8 号"
    (
        re.compile(
            rf"(?:{_FROM_DAY})?\b(?P<month>{_MONTH_NAMES})\.?\s+(?P<day>\d{{1,2}}){_ORDINAL}\b"
            rf"(?:,?\s*(?P<year>{_YEAR})\b)?"
        ),
        "day",
    ),
    (
        re.compile(
            rf"(?:{_FROM_DAY})?\b(?P<day>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?"
            rf"(?P<month>{_MONTH_NAMES})\b\.?(?:,?\s*(?P<year>{_YEAR})\b)?"
        ),
        "day",
    ),
    (
        re.compile(
            rf"(?:{_FROM_DAY})?\b(?P<year>{_YEAR})[-/](?P<month>\d{{1,2}})[-/](?P<day>\d{{1,2}})\b"
        ),
        "day",
    ),
    (
        re.compile(
            rf"(?:(?P<year>{_YEAR})\s*年\s*)?(?<![0-9])(?P<month>[0-9]{{1,2}}|[一二三四五六七八九十]{{1,3}})"
            r"\s*月\s*(?P<day>[0-9]{1,2}|[一二三四五六七八九十]{1,3})\s*[日号號]"
        ),
        "day",
    ),
    (re.compile(r"\bday before yesterday\b"), "day_before_yesterday"),
    (re.compile(r"\byesterday\b"), "yesterday"),
    (re.compile(r"\btoday\b|\btonight\b|\bthis morning\b"), "today"),
    (re.compile(rf"\b{_NUM_EN}\s+(day|week|month|year)s?\s+ago\b"), "ago"),
    (re.compile(r"\b(last|past|this|previous)\s+(week|month|year|weekend)\b"), "relative_unit"),
    (re.compile(r"\b(last|this|past)\s+(spring|summer|autumn|fall|winter)\b"), "relative_season"),
    (
        re.compile(
            r"\b(last|this|past|on)\s+(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
        ),
        "weekday",
    ),
    (
        re.compile(r"\b(spring|summer|autumn|fall|winter)\s+(?:of\s+)?((?:19|20)\d\d)\b"),
        "season_year",
    ),
    (
        re.compile(
            r"\b(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s*(?:of\s+)?,?\s*((?:19|20)\d\d)\b"
        ),
        "month_year",
    ),
    (
        re.compile(
            r"\bin\s+(january|february|march|april|may|june|july|august|september|october|november|december)\b"
        ),
        "month",
    ),
    (re.compile(r"\bin\s+((?:19|20)\d\d)\b"), "year"),
    # Chinese
    (re.compile(r"大前天"), "zh_3days"),
    (re.compile(r"前天"), "day_before_yesterday"),
    (re.compile(r"昨天|昨晚|昨日"), "yesterday"),
    (re.compile(r"今天|今晚|今早|今日"), "today"),
    (re.compile(rf"{_ZH_NUM}\s*(天|日|周|星期|个?礼拜|个?月|年)(?:以)?前"), "zh_ago"),
    (re.compile(r"(上上|上|这|本|下)(?:个)?(周|星期|礼拜)([一二三四五六日天])"), "zh_weekday"),
    (re.compile(r"(上上|上|这|本)(?:个)?(周|星期|礼拜|月)"), "zh_relative"),
    (re.compile(r"(去年|今年|前年)(?:的)?([春夏秋冬])(?:天|季)"), "zh_year_season"),
    (re.compile(r"(去年|今年|前年)"), "zh_year"),
    (
        re.compile(r"((?:19|20)\d\d)\s*年\s*([0-9]{1,2}|[一二三四五六七八九十]{1,3})\s*月"),
        "zh_year_month",
    ),
    (re.compile(r"((?:19|20)\d\d)\s*年"), "year"),
    (
        re.compile(
            r"(?<![0-9年])([0-9]{1,2}|[一二三四五六七八九十]{1,3})\s*月(?!份?\s*[0-9]+\s*[日号])"
        ),
        "zh_month",
    ),
]


def find_time_window(query: str, now: float) -> TimeWindow | None:
    """Every time expression in the query as one window (their union), or None.

    Patterns are tried in priority order ("the day before yesterday" before "yesterday");
    a match that overlaps text an earlier pattern already claimed is skipped, so one phrase
    names one span."""
    text = query.lower()
    current = datetime.fromtimestamp(now, UTC)
    today = _day_start(current)
    found: list[tuple[int, TimeWindow]] = []
    claimed: list[tuple[int, int]] = []
    for pattern, kind in _PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in claimed):
                continue
            try:
                window = _resolve(kind, m, current, today, m.group(0))
            except (OverflowError, ValueError):
                window = None  # "9999 years ago", "1e30 days ago": before any calendar
            if window is not None or kind == "day":
                # a day that names no window ("by 10 July, 2023") is not a month either
                claimed.append(m.span())
            if window is not None:
                found.append((m.start(), window))
    if not found:
        return None
    windows = [w for _pos, w in sorted(found, key=lambda item: item[0])]
    return windows[0] if len(windows) == 1 else _union(windows)


def _resolve(
    kind: str, m: re.Match[str], now: datetime, today: datetime, expr: str
) -> TimeWindow | None:
    if kind == "day":
        return _named_day(m, now, expr)
    if kind == "yesterday":
        return _window(today - timedelta(days=1), today, expr)
    if kind == "day_before_yesterday":
        return _window(today - timedelta(days=2), today - timedelta(days=1), expr)
    if kind == "zh_3days":
        return _window(today - timedelta(days=3), today - timedelta(days=2), expr)
    if kind == "today":
        return _window(today, today + timedelta(days=1), expr)
    if kind == "ago":
        word = m.group(1)
        count = _EN_NUMBERS.get(word) or (int(word) if word.isdigit() else 1)
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
        target = _WEEKDAYS[m.group(2)]
        days_back = (today.weekday() - target) % 7 or 7
        day = today - timedelta(days=days_back)
        return _window(day, day + timedelta(days=1), expr)
    if kind == "zh_weekday":
        offset = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1}[m.group(1)]
        day = _week_start(today) + timedelta(weeks=offset, days=_ZH_WEEKDAYS[m.group(3)])
        return _window(day, day + timedelta(days=1), expr)
    if kind == "season_year":
        season = "autumn" if m.group(1) == "fall" else m.group(1)
        return _season(int(m.group(2)), season, expr)
    if kind == "month_year":
        return _month_window(now, _MONTHS[m.group(1)], int(m.group(2)), expr)
    if kind == "month":
        return _month_window(now, _MONTHS[m.group(1)], None, expr)
    if kind == "year":
        year = int(m.group(1))
        return _year(year, expr)
    if kind == "zh_year":
        year = now.year + {"去年": -1, "今年": 0, "前年": -2}[m.group(1)]
        return _year(year, expr)
    if kind == "zh_year_season":
        year = now.year + {"去年": -1, "今年": 0, "前年": -2}[m.group(1)]
        return _season(year, _ZH_SEASONS[m.group(2)], expr)
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


_UNIT_DAYS = {"day": 1, "week": 7, "weekend": 7, "month": 30, "year": 365}


def _named_day(m: re.Match[str], now: datetime, expr: str) -> TimeWindow | None:
    """The day a query names, or the span counted from it: "the week before August 3" runs
    from July 27 through August 3 itself, the day people tell of it ("last week we went to
    the memorial" is said on August 3); "two days after May 1" from May 1 through May 3."""
    groups = m.groupdict()
    day = _calendar_day(groups["year"], groups["month"], groups["day"], now)
    if day is None:
        return None
    before = m.string[: m.start()]
    if groups["month"] == "may" and not groups["year"] and not _dated(m, before):
        return None  # "you may 2 ..." is no date; "on May 2" is
    rel = groups.get("rel")
    if not rel and _OPEN_ENDED.search(before):
        # "by July 10", "since March 3": a range up to or from the day, not the day itself
        return None
    if not rel:
        # a day is told of on it or on the next ("last night we watched ...", said on May 2
        # of May 1: 13 of LoCoMo's 128 questions on a named day have their answer there)
        return _window(day, day + timedelta(days=2), expr)
    if groups.get("weekday"):  # "the Sunday before October 25"
        offset = (day.weekday() - _WEEKDAYS[groups["weekday"]]) % 7 or 7
        if rel != "before":
            offset = -((_WEEKDAYS[groups["weekday"]] - day.weekday()) % 7 or 7)
        point = day - timedelta(days=offset)
    else:
        word = groups.get("n")
        count = (_EN_NUMBERS.get(word) or (int(word) if word.isdigit() else 1)) if word else 1
        span = timedelta(days=count * _UNIT_DAYS[groups["unit"]])
        point = day - span if rel != "after" else day + span
    start, end = (point, day) if rel != "after" else (day, point)
    return _window(start, end + timedelta(days=1), expr)


def _calendar_day(year: str | None, month: str, day: str, now: datetime) -> datetime | None:
    """A day from a query's numbers and month name (Chinese numerals too); without a year its
    most recent occurrence up to ``now``; None for a day no calendar has (February 30)."""
    month_number = _MONTHS.get(month) or zh_number(month)
    day_number = zh_number(day)
    if not month_number or not day_number:
        return None
    years = [int(year)] if year else [now.year, now.year - 1]
    for y in years:
        try:
            found = datetime(y, month_number, day_number, tzinfo=UTC)
        except ValueError:
            return None
        if year or found <= now:
            return found
    return found


_OPEN_ENDED = re.compile(r"\b(?:before|after|by|until|till|since|prior to)\s*$")


def _dated(m: re.Match[str], before: str) -> bool:
    """Whether a "may" with a number is the month: "on May 2", "the 2nd of May", "May 2nd"."""
    text = m.group(0)
    return bool(
        re.search(r"\b(?:on|of|the)\s*$", before)
        or re.search(r"\d(?:st|nd|rd|th)|\bof\b", text)
        or m.group("rel")
    )


def _ago(n: int, unit: str, today: datetime, expr: str) -> TimeWindow:
    # "two weeks ago" is fuzzy: a window one unit wide centred on the point, at day resolution.
    span = {"day": 1, "week": 7, "month": 30, "year": 365}[unit]
    point = today - timedelta(days=n * span)
    if unit == "day":
        return _window(point, point + timedelta(days=1), expr)
    half = timedelta(days=max(1, span // 2))
    return _window(point - half, point + half + timedelta(days=1), expr)


def _relative(unit: str, offset: int, now: datetime, today: datetime, expr: str) -> TimeWindow:
    if unit == "week":
        start = _week_start(today) + timedelta(weeks=offset)
        return _window(start, start + timedelta(weeks=1), expr)
    if unit == "weekend":
        this_saturday = _week_start(today) + timedelta(days=5)
        saturday = this_saturday if offset == 0 else this_saturday - timedelta(weeks=1)
        return _window(saturday, saturday + timedelta(days=2), expr)
    if unit == "month":
        start = _month_start(now.year, now.month + offset)
        return _window(start, _month_start(start.year, start.month + 1), expr)
    year = now.year + offset
    return _year(year, expr)
