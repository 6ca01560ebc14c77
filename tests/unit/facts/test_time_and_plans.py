"""When a statement's fact starts: a told-of time, a plan's date, the past (issue 48)."""

from __future__ import annotations

from unit.facts.reading import SAID, day, read


def _one(text: str, attribute: str, speaker: str = "Ann"):
    found = [s for s in read(text, speaker) if s.attribute == attribute]
    assert len(found) == 1, found
    return found[0]


def test_a_told_of_past_starts_the_fact_then():
    assert _one("I moved to Lisbon last month.", "lives_in").valid_from == day("2026-10-01")
    assert _one("我上周搬到成都了。", "lives_in", "李明").valid_from == day("2026-11-09")


def test_a_statement_with_no_time_starts_when_said():
    assert _one("I live in Porto now.", "lives_in").valid_from == SAID


def test_a_dated_plan_starts_its_value_on_its_date_and_adds_a_plan():
    found = read("I'm moving to Shanghai on December 1st.", "Tom")
    lives = [s for s in found if s.attribute == "lives_in"]
    plans = [s for s in found if s.attribute == "plan"]
    assert [s.value for s in lives] == ["Shanghai"]
    # said on November 20: December 1st is the coming one, not last year's
    assert lives[0].valid_from == day("2026-12-01")
    assert [s.value for s in plans] == ["move to Shanghai (2026-12-01)"]
    assert plans[0].valid_from == SAID


def test_chinese_forward_expressions_the_query_reader_does_not_know():
    assert _one("我下个月搬去上海", "lives_in", "汤姆").valid_from == day("2026-12-01")
    assert _one("我下周一去云帆网络报到。", "works_at", "王芳").valid_from == day("2026-11-23")
    assert _one("我 12月1号 搬去上海", "lives_in", "汤姆").valid_from == day("2026-12-01")


def test_next_monday_in_english():
    assert _one("I'm starting at the new studio next Monday.", "works_at").valid_from == day(
        "2026-11-23"
    )


def test_a_plan_without_a_date_is_only_a_plan():
    found = read("I'm moving to Madrid.")
    assert [(s.attribute, s.value) for s in found] == [("plan", "move to Madrid")]


def test_told_as_past_is_closed_when_said():
    for text, speaker, value in (
        ("I used to live in Berlin.", "Ann", "Berlin"),
        ("我以前在北京住", "李明", "北京"),
    ):
        statement = _one(text, "lives_in", speaker)
        assert statement.value == value and statement.valid_to == SAID


def test_leaving_beside_a_dated_move_leaves_the_closing_to_the_move():
    text = (
        "Big news: I'm leaving Shenzhen. Transferring to the Shanghai office, moving to "
        "Shanghai on December 1st"
    )
    found = {(s.attribute, s.value, s.polarity) for s in read(text, "Tom")}
    assert ("lives_in", "Shenzhen", "negate") not in found
    assert ("lives_in", "Shanghai", "assert") in found


def test_a_time_in_another_clause_is_not_the_facts_time():
    assert _one("I live in Leeds, my sister visited last week", "lives_in").valid_from == SAID
    assert _one("I live in Porto, see you tomorrow", "lives_in").valid_from == SAID


def test_an_ellipsis_ends_a_sentence_so_the_move_after_it_is_read():
    """The issue's own line joins its two sentences with "…" (and Chinese with "……"): read
    as one sentence, the leaving was read and the move was not."""
    for text, speaker, city in (
        ("I'm leaving Shenzhen… moving to Shanghai on December 1st", "Tom", "Shanghai"),
        ("我要离开深圳了……12月1号搬去上海", "汤姆", "上海"),
    ):
        lives = [s for s in read(text, speaker) if s.attribute == "lives_in"]
        assert [(s.value, s.polarity, s.valid_from) for s in lives] == [
            (city, "assert", day("2026-12-01"))
        ]


def test_a_rescheduled_event_after_a_discourse_opener_is_read() -> None:
    # "另外" / "对了" before the person: the sentence still moves the wedding
    for opener in ("另外", "对了", "通知一下，"):
        found = {
            (s.subject_name, s.attribute, s.value)
            for s in read(f"{opener}建国的婚礼改到 10 月 1 号了，酒店不变", "王芳")
        }
        assert ("建国", "plan", "婚礼 (2027-10-01)") in found or (
            "建国",
            "plan",
            "婚礼 (2026-10-01)",
        ) in found, found
