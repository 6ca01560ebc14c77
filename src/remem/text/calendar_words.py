"""The calendar words time expressions are made of: the window type, month and weekday names,
numbers in English and Chinese, and the calendar arithmetic ``timeexpr`` and ``named_days``
share (in the time zone of the ``now`` they are given)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo

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


MONTHS = {
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
WEEKDAYS = {
    d: i
    for i, d in enumerate(
        ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    )
}
ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
SEASONS = {"spring": (3, 3), "summer": (6, 3), "autumn": (9, 3), "fall": (9, 3), "winter": (12, 3)}
ZH_SEASONS = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}
EN_NUMBERS = {
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
ZH_DIGITS = {
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
        t = ZH_DIGITS.get(tens, 1) if tens else 1
        o = ZH_DIGITS.get(ones, 0) if ones else 0
        return t * 10 + o
    if len(text) == 1 and text in ZH_DIGITS:
        return ZH_DIGITS[text]
    return None


def day_start(dt: datetime) -> datetime:
    """Midnight of ``dt``'s day; the first one where the clocks show it twice (fold 0)."""
    return dt.replace(hour=0, minute=0, second=0, microsecond=0, fold=0)


def month_start(year: int, month: int, zone: tzinfo | None) -> datetime:
    """Midnight of the month's first day in ``zone`` (a month past December is next year's)."""
    while month > 12:
        year, month = year + 1, month - 12
    while month < 1:
        year, month = year - 1, month + 12
    return datetime(year, month, 1, tzinfo=zone)


def window(start: datetime, end: datetime, expr: str) -> TimeWindow:
    return TimeWindow(start.timestamp(), end.timestamp(), expr)


NUM_EN = r"(\d+|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
ZH_NUM = r"([0-9]+|[零一二两三四五六七八九十几幾]+)"
