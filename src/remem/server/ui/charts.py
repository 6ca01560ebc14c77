"""Geometry of the overview's "messages and memories over time" chart, drawn as server-side
SVG by the template (no chart library, no script), its days those of ``calendar.timezone``."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, tzinfo

from remem.store.dashboard import QUARTER

DAY = 86_400
EPOCH = date(1970, 1, 1).toordinal()
# Bucket widths tried in order until the data's span fits in at most MAX_BARS bars.
WIDTHS = ((DAY, "%m-%d"), (7 * DAY, "%m-%d"), (30 * DAY, "%Y-%m"), (365 * DAY, "%Y"))
MAX_BARS = 60


@dataclass
class Bar:
    x: float
    width: float
    label: str
    messages: int
    memories: int
    message_height: float
    memory_height: float


@dataclass
class Tick:
    """A date label under the bars: ``anchor`` is SVG's text-anchor, so the first label
    starts at the left edge and the last ends at the right one, never cut off by the
    chart's edge."""

    x: float
    anchor: str  # "start", "middle" or "end"
    label: str


# Room a label takes ("2026-12" at the tick font size), so labels never overlap.
TICK_ROOM = 48
TICKS = 6  # at most this many labels between the first and the last


@dataclass
class Chart:
    width: int
    height: int
    bars: list[Bar] = field(default_factory=list)
    peak: int = 0
    bucket_days: int = 1
    ticks: list[Tick] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.bars


def local_days(per_quarter: dict[tuple[int, str], int], zone: tzinfo) -> dict[int, tuple[int, int]]:
    """A store's ``per_quarter`` counts as {local day: (messages, memories)}, the day numbered
    from 1970-01-01 on ``zone``'s calendar (so that day x DAY, read as UTC, is the local date).
    A quarter of an hour lies within one local day in every zone, whatever its offset was then
    (Nepal's +05:30 before 1986, Lord Howe's half-hour daylight saving)."""
    days: dict[int, list[int]] = {}
    for (quarter, kind), n in per_quarter.items():
        day = datetime.fromtimestamp(quarter * QUARTER, zone).date().toordinal() - EPOCH
        days.setdefault(day, [0, 0])[0 if kind == "message" else 1] += n
    return {d: (m, n) for d, (m, n) in days.items()}


def rebucket(per_day: dict[int, tuple[int, int]]) -> tuple[int, str, list[tuple[int, int, int]]]:
    """Group {day number: (messages, memories)} into buckets wide enough for MAX_BARS bars;
    returns (bucket seconds, label format, [(bucket start, messages, memories)]), with empty
    buckets in between kept so time runs evenly along the axis."""
    if not per_day:
        return DAY, WIDTHS[0][1], []
    first, last = min(per_day) * DAY, max(per_day) * DAY
    width, fmt = WIDTHS[-1]
    for seconds, label in WIDTHS:
        if (last - first) // seconds + 1 <= MAX_BARS:
            width, fmt = seconds, label
            break
    start = first - first % width
    buckets: dict[int, list[int]] = {}
    for b in range(start, last + 1, width):
        buckets[b] = [0, 0]
    for day, (messages, memories) in per_day.items():
        at = day * DAY
        slot = buckets.setdefault(start + (at - start) // width * width, [0, 0])
        slot[0] += messages
        slot[1] += memories
    return width, fmt, [(b, m, n) for b, (m, n) in sorted(buckets.items())]


def timeline_chart(
    per_day: dict[int, tuple[int, int]], width: int = 720, height: int = 160
) -> Chart:
    """Two bars per bucket (messages, memories), scaled to the tallest bucket."""
    seconds, fmt, buckets = rebucket(per_day)
    chart = Chart(width=width, height=height, bucket_days=seconds // DAY)
    if not buckets:
        return chart
    chart.peak = max(max(m, n) for _, m, n in buckets) or 1
    slot = width / len(buckets)
    bar = max(slot / 2 - 1, 1.0)
    usable = height - 34  # room for the date labels below and the peak above
    for i, (start, messages, memories) in enumerate(buckets):
        chart.bars.append(
            Bar(
                x=round(i * slot, 2),
                width=round(bar, 2),
                label=datetime.fromtimestamp(start, UTC).strftime(fmt),
                messages=messages,
                memories=memories,
                message_height=round(usable * messages / chart.peak, 2),
                memory_height=round(usable * memories / chart.peak, 2),
            )
        )
    chart.ticks = ticks(chart.bars, width, slot)
    return chart


def ticks(bars: list[Bar], width: int, slot: float) -> list[Tick]:
    """The first bar's label from the left edge, the last's ending at the right edge, and
    about TICKS evenly spaced ones between them, centred on their bars and left out where they
    would touch another label."""
    if not bars:
        return []
    first = Tick(0.0, "start", bars[0].label)
    if len(bars) == 1:
        return [first]
    last = Tick(float(width), "end", bars[-1].label)
    step = max(len(bars) // TICKS, 1)
    between = [
        Tick(round(bar.x + slot / 2, 2), "middle", bar.label)
        for i, bar in enumerate(bars[1:-1], start=1)
        if i % step == 0
    ]
    kept = [t for t in between if TICK_ROOM * 1.5 <= t.x <= width - TICK_ROOM * 1.5]
    return [first, *kept, last]
