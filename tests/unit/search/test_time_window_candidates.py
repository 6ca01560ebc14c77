"""A named window of at most a month narrows the filters its own candidates are fetched with."""

from remem.search.time_intent import window_filters, with_window
from remem.text.timeexpr import DAY, TimeWindow
from remem.types import Filters

START = 1_700_000_000.0


def window(days: float) -> TimeWindow:
    return TimeWindow(START, START + days * DAY, "test")


def test_a_day_narrows_the_filters_and_keeps_the_rest():
    got = window_filters(Filters(sessions=["s1"]), window(2))
    assert got is not None
    assert (got.since, got.until, got.sessions) == (START, START + 2 * DAY - 1, ["s1"])
    assert window_filters(None, window(31)) is not None


def test_a_month_with_a_daylight_saving_change_is_still_a_month():
    # October in Berlin: 31 local days and the hour the clocks go back
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from remem.text.timeexpr import find_time_window

    berlin = ZoneInfo("Europe/Berlin")
    now = datetime(2026, 11, 20, 12, tzinfo=berlin).timestamp()
    october = find_time_window("last month", now, berlin)
    assert october is not None and october.end - october.start == 31 * DAY + 3600
    assert window_filters(None, october) is not None


def test_a_window_wider_than_a_month_brings_no_candidates_of_its_own():
    assert window_filters(None, window(32)) is None
    assert window_filters(None, None) is None


def test_the_callers_bounds_are_kept_and_a_window_outside_them_gives_none():
    got = window_filters(Filters(since=START + DAY), window(7))
    assert got is not None and got.since == START + DAY
    got = window_filters(Filters(until=START + DAY), window(7))
    assert got is not None and got.until == START + DAY
    assert window_filters(Filters(until=START - 1), window(7)) is None


def test_the_windows_best_join_the_channel_once_best_first():
    hits = [(1, 0.9), (2, 0.8)]
    assert with_window(hits, [(2, 0.8), (7, 0.5), (8, 0.85)]) == [
        (1, 0.9),
        (8, 0.85),
        (2, 0.8),
        (7, 0.5),
    ]
    assert with_window(hits, [(1, 0.9)]) is hits
