"""fold over what the extractor reads: the issue's Tom conversation and its capture list
(issue 48)."""

from __future__ import annotations

from remem.facts.extract import ExtractionContext, statements_of_conversation
from remem.facts.fold import fold
from remem.facts.subjects import people_of
from remem.types import Record
from unit.facts.reading import day
from unit.facts.test_not_statements import ISSUE_LIST


def _chat(*lines: tuple[str, str, str]) -> list[Record]:
    return [
        Record(
            id=f"r{i}",
            kind="message",
            text=text,
            speaker_id=who.lower(),
            speaker_label=who,
            created_at=day(when),
            scope="group:1",
        )
        for i, (when, who, text) in enumerate(lines)
    ]


def _facts(records: list[Record]):
    context = ExtractionContext(people=people_of(records))
    return fold(statements_of_conversation(records, context))


def test_tom_moves_from_shenzhen_to_shanghai_on_december_1st():
    records = _chat(
        ("2026-11-02", "Tom", "I live in Shenzhen now, moved down for the new team in September"),
        (
            "2026-11-20",
            "Tom",
            "Big news: I'm leaving Shenzhen. Transferring to the Shanghai "
            "office, moving to Shanghai on December 1st",
        ),
        ("2026-12-08", "Tom", "First week in Shanghai done. It's freezing compared to Shenzhen"),
    )
    lives = {f.value: f for f in _facts(records) if f.attribute == "lives_in"}
    assert set(lives) == {"Shenzhen", "Shanghai"}
    assert lives["Shanghai"].valid_from == day("2026-12-01") and lives["Shanghai"].valid_to is None
    assert lives["Shenzhen"].valid_to == day("2026-12-01")
    assert lives["Shenzhen"].closed_by == "r1"
    now = day("2026-12-10")
    assert [f.value for f in lives.values() if f.holds_at(now)] == ["Shanghai"]
    assert [f.value for f in lives.values() if f.holds_at(day("2026-11-25"))] == ["Shenzhen"]


def test_saying_the_current_city_again_before_the_move_keeps_the_move():
    """Restating a value that a planned change will close, before the change's day, adds a
    source; it does not cancel the move."""
    records = _chat(
        ("2026-11-02", "Tom", "I live in Shenzhen now"),
        ("2026-11-20", "Tom", "I'm moving to Shanghai on December 1st"),
        ("2026-11-25", "Tom", "I live in Shenzhen."),
    )
    lives = [f for f in _facts(records) if f.attribute == "lives_in"]
    assert [(f.value, f.valid_from, f.valid_to) for f in lives] == [
        ("Shenzhen", day("2026-11-02"), day("2026-12-01")),
        ("Shanghai", day("2026-12-01"), None),
    ]
    assert lives[0].source_ids == ("r0", "r2")
    # after the move, saying the old city again is moving back
    back = _chat(*records_lines(records), ("2026-12-05", "Tom", "I live in Shenzhen."))
    now = [f.value for f in _facts(back) if f.attribute == "lives_in" and f.valid_to is None]
    assert now == ["Shenzhen"]


def records_lines(records: list[Record]) -> list[tuple[str, str, str]]:
    from datetime import UTC, datetime

    return [
        (
            datetime.fromtimestamp(r.created_at, UTC).strftime("%Y-%m-%d"),
            r.speaker_label or "",
            r.text,
        )
        for r in records
    ]


def test_the_capture_list_neither_asserts_nor_closes():
    said = [
        ("2026-11-01", "Ann", "I moved to Lisbon last month."),
        ("2026-11-01", "Ann", "我在一家游戏公司上班。"),
    ]
    later = [("2026-11-02", "Ann", text) for text in ISSUE_LIST]
    before = _facts(_chat(*said))
    after = _facts(_chat(*said, *later))
    assert [(f.attribute, f.value, f.valid_to) for f in after] == [
        (f.attribute, f.value, f.valid_to) for f in before
    ]
    assert {(f.attribute, f.value) for f in after} == {
        ("lives_in", "Lisbon"),
        ("works_at", "一家游戏公司"),
    }


def test_a_negation_closes_without_a_new_value():
    records = _chat(
        ("2026-10-01", "Liam", "I live in Berlin."),
        ("2026-11-01", "Liam", "I don't live in Berlin any more."),
    )
    [berlin] = _facts(records)
    assert berlin.valid_to == day("2026-11-01") and berlin.closed_by == "r1"


def test_chinese_quitting_closes_the_job():
    records = _chat(
        ("2026-10-01", "吴昊", "我在奥美上班，做文案"),
        ("2026-11-01", "吴昊", "我不在那家公司上班了，上周辞职了"),
    )
    jobs = [f for f in _facts(records) if f.attribute == "works_at"]
    assert [(f.value, f.valid_to is not None) for f in jobs] == [("奥美", True)]


def test_leaving_then_the_new_city_a_message_later_is_one_move():
    """ "I'm leaving Shenzhen" and, a minute later, the new city from December 1st: Shenzhen
    holds until the move and the move is what closed it (the mark says where Tom lives since)."""
    records = _chat(
        ("2026-11-02", "Tom", "I live in Shenzhen now"),
        ("2026-11-15", "Tom", "Big news: I'm leaving Shenzhen"),
        ("2026-11-15", "Tom", "I'm moving to Shanghai on December 1st"),
    )
    lives = [f for f in _facts(records) if f.attribute == "lives_in"]
    assert [(f.value, f.valid_to, f.closed_by) for f in lives] == [
        ("Shenzhen", day("2026-12-01"), "r2"),
        ("Shanghai", None, None),
    ]


def test_a_district_said_after_its_city_is_the_same_home_not_a_move():
    """Nanshan is in Shenzhen, Jing'an in Shanghai: said within a day of the city, the part
    opens beside it and ends with it; the move to Shanghai still closes both."""
    records = _chat(
        ("2026-11-02", "Tom", "I live in Shenzhen now, moved down for the new team in September"),
        ("2026-11-02", "Tom", "Got a small flat in Nanshan, ten minutes' walk from the office"),
        ("2026-11-20", "Tom", "I'm leaving Shenzhen, moving to Shanghai on December 1st"),
        ("2026-11-20", "Tom", "I live in Jing'an"),
        ("2026-12-08", "Tom", "First week in Shanghai done"),
    )
    lives = {f.value: f for f in _facts(records) if f.attribute == "lives_in"}
    assert lives["Shenzhen"].valid_to == lives["Nanshan"].valid_to == day("2026-12-01")
    assert lives["Shenzhen"].closed_by == lives["Nanshan"].closed_by == "r2"
    now = day("2026-12-10")
    assert {v for v, f in lives.items() if f.holds_at(now)} == {"Shanghai", "Jing'an"}


def test_a_district_after_its_city_in_chinese_is_the_same_home():
    records = _chat(
        ("2026-07-01", "李明", "我搬到成都了"),
        ("2026-07-01", "李明", "我住在高新区"),
        ("2026-09-01", "李明", "我搬到重庆了"),
    )
    lives = {f.value: f for f in _facts(records) if f.attribute == "lives_in"}
    assert lives["成都"].closed_by == lives["高新区"].closed_by == "r2"  # one home, one move
    assert lives["重庆"].valid_to is None


def test_a_place_said_weeks_later_or_a_dated_one_is_a_move_not_a_part():
    records = _chat(
        ("2026-03-01", "Ann", "I live in London"),
        ("2026-03-01", "Ann", "I'm moving to Reading next month"),
        ("2026-06-01", "Ann", "I live in Camden district now"),
    )
    lives = {f.value: f for f in _facts(records) if f.attribute == "lives_in"}
    assert lives["London"].closed_by == "r1"
    assert lives["Reading"].closed_by == "r2"


def test_a_place_said_again_in_fewer_words_is_the_same_home():
    records = _chat(
        ("2026-05-01", "何家豪", "我喺香港，住沙田"),
        ("2026-07-01", "何家豪", "搞掂，下個月搬去多倫多，已經租咗屋喺 Markham"),
        ("2026-08-20", "何家豪", "而家住喺 Markham，已經好凍"),
    )
    lives = {f.value: f for f in _facts(records) if f.attribute == "lives_in"}
    assert lives["沙田"].closed_by == "r1"
    assert {v for v, f in lives.items() if f.valid_to is None} == {"多倫多Markham", "Markham"}


def test_a_value_given_up_that_was_never_said_was_held_until_then():
    records = _chat(
        ("2026-07-01", "Ben", "Sold the Civic to a guy from Leicester for 900 quid"),
        ("2026-07-01", "Ben", "And I bought a Tesla Model 3"),
    )
    owns = {f.value: f for f in _facts(records) if f.attribute == "owns"}
    assert owns["Civic"].closed_by == "r0" and owns["Civic"].valid_to is not None
    assert owns["Tesla Model 3"].valid_to is None
