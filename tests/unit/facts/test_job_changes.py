"""A job offer taken up and an intern taken on (issue 48, zh_groupchat "update" misses), and
an announcement opener that is the speaker's own words, not someone else's."""

from __future__ import annotations

import pytest

from remem.text.assertion import not_a_statement
from unit.facts.reading import facts


@pytest.mark.parametrize(
    ("text", "speaker", "expected"),
    [
        ("I got an offer from Globex.", "Ann", ("Ann", "works_at", "Globex", "assert")),
        (
            "跟你说个大事，我拿到理想汽车的 offer 了，做战略规划",
            "苏晴",
            ("苏晴", "works_at", "理想汽车", "assert"),
        ),
        (
            "拿到了深圳一家做自动驾驶的公司的 offer，9 月回国入职",
            "张晓东",
            ("张晓东", "works_at", "深圳一家做自动驾驶的公司", "assert"),
        ),
        ("宣布一个好消息：Alex 实习转正了", "孙浩", ("Alex", "role", "实习生", "negate")),
    ],
)
def test_offers_and_interns_taken_on(text, speaker, expected):
    assert expected in facts(text, speaker=speaker)


@pytest.mark.parametrize(
    "text", ["跟大家说个事，我搬到杭州了", "顺便说一下，我搬到杭州了", "跟你说个大事，我搬到杭州了"]
)
def test_an_announcement_opener_is_the_speakers_own_words(text):
    assert not_a_statement(text) is None
    assert ("王芳", "lives_in", "杭州", "assert") in facts(text, speaker="王芳")


def test_someone_elses_words_are_still_a_report():
    assert not_a_statement("他说他搬到杭州了") is not None
    assert facts("我妈说我应该搬到杭州") == set()
