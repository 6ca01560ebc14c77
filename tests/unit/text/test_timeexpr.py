from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from remem.text.timeexpr import find_time_window, zh_number

# Wednesday 2026-11-18 15:00 UTC
NOW = datetime(2026, 11, 18, 15, 0, tzinfo=UTC).timestamp()


def d(*args):
    return datetime(*args, tzinfo=UTC).timestamp()


NAMED_DAYS = [
    # a day, and the next one, when people tell of it ("last night we ...")
    ("What did Melanie paint on October 13, 2023?", d(2023, 10, 13), d(2023, 10, 15)),
    ("What did Gina find on 1 February, 2023?", d(2023, 2, 1), d(2023, 2, 3)),
    ("the 2nd of May", d(2026, 5, 2), d(2026, 5, 4)),
    ("notes from Oct 13th", d(2026, 10, 13), d(2026, 10, 15)),
    ("what did we decide on November 20?", d(2025, 11, 20), d(2025, 11, 22)),  # last one
    ("the 2023-10-13 standup", d(2023, 10, 13), d(2023, 10, 15)),
    ("2023/8/3 的会", d(2023, 8, 3), d(2023, 8, 5)),
    ("4 月 8 号线上故障的根本原因是什么？", d(2026, 4, 8), d(2026, 4, 10)),
    ("2023年8月3日开会说了什么", d(2023, 8, 3), d(2023, 8, 5)),
    ("八月三日", d(2026, 8, 3), d(2026, 8, 5)),
    ("What is John learning as of 27 March, 2022?", d(2022, 3, 27), d(2022, 3, 29)),
    # a span counted from a day runs through that day, when people tell of it
    ("the week before August 3, 2023", d(2023, 7, 27), d(2023, 8, 4)),
    ("her puppy, two weeks before August 11, 2023", d(2023, 7, 28), d(2023, 8, 12)),
    ("the Sunday before October 25, 2022", d(2022, 10, 23), d(2022, 10, 26)),
    ("3 days after 2023-05-01", d(2023, 5, 1), d(2023, 5, 5)),
    ("Sunday before October 25, 2022", d(2022, 10, 23), d(2022, 10, 26)),  # no "the"
    # a month that is also a word: the month, not a day, when no date is plainly meant
    ("In May 2 of us went hiking", d(2026, 5, 1), d(2026, 6, 1)),
    ("in June 3 people joined", d(2026, 6, 1), d(2026, 7, 1)),
    ("in December 3 people joined", d(2025, 12, 1), d(2026, 1, 1)),
    # a span between two days, the year said once
    ("Where was John between August 11 and August 15 2023?", d(2023, 8, 11), d(2023, 8, 17)),
    ("from the 3rd of June to the 10th of June", d(2026, 6, 3), d(2026, 6, 12)),
]


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("what did I say yesterday?", d(2026, 11, 17), d(2026, 11, 18)),
        ("anything from today", d(2026, 11, 18), d(2026, 11, 19)),
        ("the day before yesterday", d(2026, 11, 16), d(2026, 11, 17)),
        ("what happened last week", d(2026, 11, 9), d(2026, 11, 16)),
        ("this week", d(2026, 11, 16), d(2026, 11, 23)),
        ("last month's trip", d(2026, 10, 1), d(2026, 11, 1)),
        ("last year", d(2025, 1, 1), d(2026, 1, 1)),
        ("in May 2023", d(2023, 5, 1), d(2023, 6, 1)),
        ("what did we plan in May", d(2026, 5, 1), d(2026, 6, 1)),
        ("in December", d(2025, 12, 1), d(2026, 1, 1)),  # most recent December
        ("3 days ago", d(2026, 11, 15), d(2026, 11, 16)),
        ("last summer", d(2026, 6, 1), d(2026, 9, 1)),
        ("last Monday", d(2026, 11, 16), d(2026, 11, 17)),
        ("last Wednesday", d(2026, 11, 11), d(2026, 11, 12)),
        ("in 2024", d(2024, 1, 1), d(2025, 1, 1)),
        ("summer of 2023", d(2023, 6, 1), d(2023, 9, 1)),
        ("昨天说了什么", d(2026, 11, 17), d(2026, 11, 18)),
        ("前天", d(2026, 11, 16), d(2026, 11, 17)),
        ("上周我们聊了什么", d(2026, 11, 9), d(2026, 11, 16)),
        ("上个月", d(2026, 10, 1), d(2026, 11, 1)),
        ("去年", d(2025, 1, 1), d(2026, 1, 1)),
        ("去年夏天去了哪里", d(2025, 6, 1), d(2025, 9, 1)),
        ("5月的计划", d(2026, 5, 1), d(2026, 6, 1)),
        ("十二月", d(2025, 12, 1), d(2026, 1, 1)),
        ("2023年5月", d(2023, 5, 1), d(2023, 6, 1)),
        ("三天前", d(2026, 11, 15), d(2026, 11, 16)),
        ("上周一开会", d(2026, 11, 9), d(2026, 11, 10)),
        *NAMED_DAYS,
    ],
)
def test_windows(query, start, end):
    w = find_time_window(query, NOW)
    assert w is not None, query
    assert (w.start, w.end) == (start, end), (query, w)


def test_fuzzy_units_cover_the_point():
    w = find_time_window("two weeks ago", NOW)
    assert w.contains(d(2026, 11, 4, 12))
    w = find_time_window("两周前", NOW)
    assert w.contains(d(2026, 11, 4, 12))
    w = find_time_window("a month ago", NOW)
    assert w.contains(d(2026, 10, 19, 12))


def test_no_time_expression():
    for q in ("where does Alice live", "我喜欢吃苹果", "the May queen", "maybe later"):
        assert find_time_window(q, NOW) is None, q


def test_distance():
    w = find_time_window("yesterday", NOW)
    assert w.distance_days(d(2026, 11, 17, 12)) == 0
    assert w.distance_days(d(2026, 11, 15)) == 2
    assert w.distance_days(d(2026, 11, 20)) == 2


def test_zh_numbers():
    assert zh_number("十二") == 12
    assert zh_number("两") == 2
    assert zh_number("二十") == 20
    assert zh_number("15") == 15


def test_every_expression_counts_and_the_windows_unite():
    window = find_time_window("what did Eli say yesterday or 2 days ago", NOW)
    assert window is not None
    assert (window.start, window.end) == (d(2026, 11, 16), d(2026, 11, 18))
    assert window.expression == "yesterday / 2 days ago"
    assert window.contains(d(2026, 11, 16, 9)) and window.contains(d(2026, 11, 17, 9))
    assert not window.contains(d(2026, 11, 18, 9))


def test_spans_that_do_not_touch_stay_apart():
    window = find_time_window("in 2024 or last week", NOW)
    assert window is not None
    assert window.spans == ((d(2024, 1, 1), d(2025, 1, 1)), (d(2026, 11, 9), d(2026, 11, 16)))
    assert not window.contains(d(2025, 6, 1))  # between the two spans
    assert window.distance_days(d(2026, 11, 17)) == 1.0  # nearest edge: last week's end
    assert window.distance_days(d(2025, 1, 3)) == 2.0  # nearest edge: 2024's end


def test_one_phrase_names_one_span():
    # "the day before yesterday" also contains "yesterday"; "去年夏天" also contains "去年"
    window = find_time_window("the day before yesterday", NOW)
    assert window is not None and window.spans == ()
    assert (window.start, window.end) == (d(2026, 11, 16), d(2026, 11, 17))
    window = find_time_window("去年夏天去了哪里", NOW)
    assert window is not None and (window.start, window.end) == (d(2025, 6, 1), d(2025, 9, 1))


@pytest.mark.parametrize(
    "query",
    [
        "you may 2 go",  # the verb, not the month
        "How many tournaments had Nate won by July 10, 2022?",  # a range up to the day
        "since 3 March",
        "before 2023-01-05",
        "the 31st of February",  # no such day
        "2023年2月30日",
    ],
)
def test_no_day_window(query):
    assert find_time_window(query, NOW) is None, query


def test_a_day_that_names_no_window_is_not_read_as_its_month():
    # "July, 2022" alone would be a month; "by 10 July, 2022" is neither
    assert find_time_window("by 10 July, 2022", NOW) is None
    w = find_time_window("in July, 2022", NOW)
    assert w is not None and (w.start, w.end) == (d(2022, 7, 1), d(2022, 8, 1))


@pytest.mark.parametrize(
    "query", ["9999 years ago", "99999999 years ago", "999999999999999999999 days ago"]
)
def test_a_time_before_any_calendar_names_no_window(query):
    # it raised OverflowError out of every search that asked it
    assert find_time_window(query, NOW) is None


@pytest.mark.parametrize(
    "query",
    [
        "Jun 8 点到长沙了吗",  # eight o'clock
        "April 3 点的会议改了吗",
        "we march 10 miles every day",
        "round to 2 dec places",
        "her birthday before 2023-05-01",  # "day" inside "birthday" counts nothing
        "before the 10th of July",
        "8月3日之前交报告",
        "截至8月3日一共多少",
        "4月8号以后的安排",
    ],
)
def test_no_day_in_words_and_ranges(query):
    assert find_time_window(query, NOW) is None, query


def test_every_day_of_a_long_query_counts():
    text = " ".join(f"on May {1 + i % 28}, 2023 we met." for i in range(400))  # ~10,000 chars
    window = find_time_window(text, NOW)
    # 28 days, each with the next: they touch, so one span from May 1 to May 30
    assert window is not None and (window.start, window.end) == (d(2023, 5, 1), d(2023, 5, 30))


SHANGHAI = ZoneInfo("Asia/Shanghai")


def hull(window):
    return (window.start, window.end)


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        # asked at 07:30 on 4 December in Shanghai (23:30 UTC on the 3rd): its yesterday is
        # the 3rd there, which began at 16:00 UTC on the 2nd
        ("昨天说了什么？", "2026-12-02 16:00", "2026-12-03 16:00"),
        ("what did we say today?", "2026-12-03 16:00", "2026-12-04 16:00"),
        ("上个月", "2026-10-31 16:00", "2026-11-30 16:00"),
        ("the week before December 3, 2026", "2026-11-25 16:00", "2026-12-03 16:00"),
        ("2026年12月3日", "2026-12-02 16:00", "2026-12-04 16:00"),  # the day and the next
        ("in 2025", "2024-12-31 16:00", "2025-12-31 16:00"),
    ],
)
def test_days_are_those_of_the_time_zone_asked_in(query, start, end):
    now = datetime(2026, 12, 3, 23, 30, tzinfo=UTC).timestamp()
    window = find_time_window(query, now, SHANGHAI)
    assert window is not None
    as_utc = [datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M") for t in hull(window)]
    assert as_utc == [start, end]
    utc = find_time_window(query, now)
    assert utc is not None and utc.start != window.start  # UTC's calendar is another


def test_a_day_of_a_daylight_saving_change_is_as_long_as_it_is_there():
    # 8 March 2026: New York's clocks go forward, the day lasts 23 hours
    new_york = ZoneInfo("America/New_York")
    now = datetime(2026, 3, 9, 12, 0, tzinfo=new_york).timestamp()
    window = find_time_window("yesterday", now, new_york)
    assert window.end - window.start == 23 * 3600
    assert datetime.fromtimestamp(window.start, new_york).hour == 0


def test_today_starts_at_the_first_of_two_midnights():
    # 1 November 2026: Havana's clocks go back from 01:00 to 00:00, midnight comes twice
    havana = ZoneInfo("America/Havana")
    now = datetime(2026, 11, 1, 0, 30, fold=1, tzinfo=havana).timestamp()
    window = find_time_window("what did we say today?", now, havana)
    assert window.start == datetime(2026, 11, 1, 0, 0, fold=0, tzinfo=havana).timestamp()
    assert window.end - window.start == 25 * 3600
