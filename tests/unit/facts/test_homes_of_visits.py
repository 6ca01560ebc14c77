"""Where someone lives, read from a visit (issue 48): "Visited Gran today at her flat on Elm
Street" is Gran's home; the one visited is the subject, not the speaker."""

from __future__ import annotations

import pytest

from unit.facts.reading import facts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Visited Gran today at her flat on Elm Street, she's doing fine",
            ("Mum's grandmother", "lives_in", "Elm Street", "assert"),
        ),
        ("Saw Tom at his place in Leeds", ("Tom", "lives_in", "Leeds", "assert")),
        (
            "Gran's flat on Elm Street is freezing",
            ("Mum's grandmother", "lives_in", "Elm Street", "assert"),
        ),
        (
            "I visited my sister Kate at her new flat in Bristol",
            ("Kate", "lives_in", "Bristol", "assert"),
        ),
    ],
)
def test_a_visit_says_where_the_one_visited_lives(text, expected):
    found = facts(text, speaker="Mum")
    assert expected in found
    assert not any(f[0] == "Mum" and f[1] == "lives_in" for f in found)


@pytest.mark.parametrize(
    "text",
    [
        "Visited the museum at its home on Elm Street",
        "If I visit Tom at his place in Leeds, I'll call",
    ],
)
def test_no_visit_of_a_person_no_home(text):
    assert not {f for f in facts(text, speaker="Mum") if f[1] == "lives_in"}
