"""Possessions that change (issue 48): an old one had before, one in use, a replacement that
closes the one it replaces, in English and Chinese (Simplified and Traditional)."""

from __future__ import annotations

import pytest

from unit.facts.reading import SAID, read


def owned(text: str) -> set[tuple[str | None, str, bool]]:
    """(value, polarity, closed when said) of every ``owns`` statement read."""
    return {
        (s.value, s.polarity, s.valid_to is not None) for s in read(text) if s.attribute == "owns"
    }


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("My old phone finally died", "phone"),
        ("My previous Golf had 200k miles on it", "Golf"),
        ("我以前那辆思域卖了", "思域"),
        ("我的旧手机坏了", "手机"),
        ("我以前那輛思域很省油", "思域"),
    ],
)
def test_an_old_one_was_had_before(text, value):
    assert (value, "assert", True) in owned(text)
    assert [s.valid_to for s in read(text) if s.attribute == "owns"] == [SAID]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Sure, if the old Civic starts. That Honda is 14 years old now", "Civic"),
        ("My Golf failed its MOT", "Golf"),
        ("I still have my old Golf, it won't start though", None),
    ],
)
def test_one_in_use_is_still_had(text, value):
    found = owned(text)
    if value is None:
        assert not any(closed for _, _, closed in found)
    else:
        assert (value, "assert", False) in found


@pytest.mark.parametrize(
    ("text", "old", "new"),
    [
        ("I replaced my Civic with a Tesla Model 3", "Civic", "Tesla Model 3"),
        ("Traded in my Civic for a used Golf last week", "Civic", "Golf"),
        ("我换了辆特斯拉", None, "特斯拉"),
        ("刚换了部新手机", None, "手机"),
        ("我換了輛特斯拉", None, "特斯拉"),
    ],
)
def test_a_replacement_gives_the_new_one_and_closes_the_old(text, old, new):
    found = owned(text)
    assert (new, "assert", False) in found
    if old is not None:
        assert (old, "negate", False) in found


@pytest.mark.parametrize(
    "text",
    [
        "my old Manchester flat was tiny",
        "My old boss is here",
        "我以前的公司在北京",
        "The old Town Hall is closed",
        "If my old phone still works I'll bring it",  # the speaker's own condition
    ],
)
def test_what_is_not_a_possession_gives_none(text):
    assert owned(text) == set()
