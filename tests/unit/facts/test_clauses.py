"""The statement check clause by clause (issue 48): a hedge or a condition in one clause of a
sentence does not silence a plain statement in another, and still silences the clause it
governs."""

from __future__ import annotations

import pytest

from unit.facts.reading import facts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "If he can't get in, my mobile is 07700 900 123",
            ("Ann", "contact.phone", "07700 900 123", "assert"),
        ),
        (
            "If you need me, my mobile is 07700 900 555",
            ("Ann", "contact.phone", "07700 900 555", "assert"),
        ),
        ("我可能晚点到，我已经搬到上海了", ("Ann", "lives_in", "上海", "assert")),
        (
            "如果你需要，我的手机是 138 0013 8000",
            ("Ann", "contact.phone", "138 0013 8000", "assert"),
        ),
        ("我可能晚點到，我已經搬到上海了", ("Ann", "lives_in", "上海", "assert")),
        ("I live in Paris, but I'm not sure for how long", ("Ann", "lives_in", "Paris", "assert")),
    ],
)
def test_a_hedge_or_condition_in_one_clause_leaves_the_others(text, expected):
    assert expected in facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "If I moved to Paris, I'd live in Montmartre",  # the condition is the speaker's own
        "If I get the job, my office is in Leeds",
        "如果我搬到成都，天天吃火锅",
        "要是你来上海，我就住在静安",  # the clause depends on the condition
        "If you visit, I'll live in Leeds by then",
        "I live in Paris, I think",  # a clause that is only a hedge governs the sentence
        "I live in Paris, at least I think so",
        "我住在北京，可能吧",
        "我住在北京，或者上海",  # an alternative
        "Maybe, my mobile is 07700 900 123",
        "I think my mobile is 07700 900 123",
    ],
)
def test_the_clause_a_hedge_or_condition_governs_states_nothing(text):
    assert facts(text) == set()
