"""Time expressions in any question: a window or none, never an exception out of a search."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fuzz.inputs import FUZZ, HOSTILE_CHARS
from remem.text.timeexpr import TimeWindow, find_time_window

# Pieces of the expressions find_time_window reads, numbers no calendar holds among them.
FRAGMENTS = [
    "on",
    "the",
    "last",
    "this",
    "in",
    "of",
    "by",
    "since",
    "before",
    "after",
    "as of",
    "day",
    "days",
    "week",
    "weeks",
    "weekend",
    "month",
    "year",
    "years",
    "ago",
    "sunday",
    "May",
    "February",
    "Oct",
    "31st",
    "2nd",
    "13th",
    ",",
    "2023",
    "1899",
    "2099",
    "0",
    "00",
    "13",
    "31",
    "99",
    "9999",
    "99999999",
    "999999999999999999999",
    "2023-02-30",
    "2023-13-01",
    "2023/8/3",
    "2023-10-13",
    "年",
    "月",
    "日",
    "号",
    "十三",
    "三十二",
    "八",
    "前",
    "上周",
    "去年",
    "夏天",
    "个月",
    "天前",
]
NUMBERS = st.integers(min_value=0, max_value=10**25).map(str)
UNITS = st.sampled_from(["day", "days", "week", "weeks", "month", "months", "year", "years"])
DATES = st.one_of(
    st.tuples(st.integers(0, 9999), st.integers(0, 99), st.integers(0, 99)).map(
        lambda ymd: "{}-{}-{}".format(*ymd)
    ),
    st.tuples(st.sampled_from(["May", "Feb", "october"]), NUMBERS, NUMBERS).map(" ".join),
    st.tuples(NUMBERS, NUMBERS, NUMBERS).map(lambda ymd: "{}年{}月{}日".format(*ymd)),
)
EXPRESSIONS = st.one_of(
    st.tuples(NUMBERS, UNITS).map(lambda nu: f"{nu[0]} {nu[1]} ago"),
    st.tuples(NUMBERS, st.sampled_from(["天", "周", "个月", "年"])).map(
        lambda nu: f"{nu[0]}{nu[1]}前"
    ),
    st.tuples(NUMBERS, UNITS, st.sampled_from(["before", "after"]), DATES).map(" ".join),
    DATES,
)
PIECES = st.one_of(st.sampled_from(FRAGMENTS + HOSTILE_CHARS), EXPRESSIONS)
QUESTIONS = st.lists(PIECES, max_size=8).map(" ".join)
NOWS = st.floats(min_value=0, max_value=4_102_444_800)  # 1970 to 2100


@FUZZ
@given(QUESTIONS, NOWS)
def test_a_question_names_a_window_or_none(query, now):
    window = find_time_window(query, now)
    assert window is None or (isinstance(window, TimeWindow) and window.start < window.end)
