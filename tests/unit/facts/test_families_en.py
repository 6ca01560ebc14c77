"""English: every attribute family, first and third person, negation (issue 48)."""

from __future__ import annotations

import pytest

from unit.facts.reading import facts

A = "Ann"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live in Porto now.", {(A, "lives_in", "Porto", "assert")}),
        ("We just moved into a flat in Bristol.", {(A, "lives_in", "Bristol", "assert")}),
        ("Moved to Cork last weekend!", {(A, "lives_in", "Cork", "assert")}),
        ("I'm in Berlin this week for a conference", {(A, "located_in", "Berlin", "assert")}),
        ("I now work at Globex.", {(A, "works_at", "Globex", "assert")}),
        (
            "I joined Monzo as a backend engineer in March.",
            {(A, "works_at", "Monzo", "assert"), (A, "role", "backend engineer", "assert")},
        ),
        ("I study biology at UCL.", {(A, "studies_at", "UCL", "assert")}),
        (
            "I got promoted to design lead.",
            {(A, "role", "design lead", "assert"), ("design lead", "held_by", A, "assert")},
        ),
        ("Sam is my boyfriend.", {(A, "partner", "Sam", "assert")}),
        ("I got married to Ella in June.", {(A, "partner", "Ella", "assert")}),
        ("I have a beagle called Biscuit.", {(A, "pet", "Biscuit", "assert")}),
        ("I love trail running.", {(A, "likes", "trail running", "assert")}),
        ("I hate coriander.", {(A, "dislikes", "coriander", "assert")}),
        ("Ramen is my favourite food.", {(A, "favourite.food", "Ramen", "assert")}),
        ("My favourite author is Pessoa.", {(A, "favourite.author", "Pessoa", "assert")}),
        ("I bought a Tesla Model 3.", {(A, "owns", "Tesla Model 3", "assert")}),
        ("I'm allergic to shellfish.", {(A, "allergic_to", "shellfish", "assert")}),
        ("I have asthma.", {(A, "health", "asthma", "assert")}),
        ("I'm vegan.", {(A, "diet", "vegan", "assert")}),
        ("My new number is 07700 900 456.", {(A, "contact.phone", "07700 900 456", "assert")}),
        ("My Telegram is @nora_writes.", {(A, "contact.telegram", "@nora_writes", "assert")}),
        (
            "You can email me at raj@fastmail.com.",
            {(A, "contact.email", "raj@fastmail.com", "assert")},
        ),
    ],
)
def test_first_person_families(text, expected):
    assert facts(text) == expected


def test_a_sister_named_is_her_own_subject_and_a_family_fact():
    assert facts("My sister Kate lives in Galway.") == {
        ("Kate", "lives_in", "Galway", "assert"),
        (A, "family.sister", "Kate", "assert"),
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tom lives in Shanghai now.", {("Tom", "lives_in", "Shanghai", "assert")}),
        ("Ann works at Globex these days.", {("Ann", "works_at", "Globex", "assert")}),
        ("Kenji has a tabby called Miso.", {("Kenji", "pet", "Miso", "assert")}),
        (
            "Lucy is our new design lead.",
            {
                ("Lucy", "role", "design lead", "assert"),
                ("design lead", "held_by", "Lucy", "assert"),
            },
        ),
        ("Mia's boyfriend is called Sam.", {("Mia", "partner", "Sam", "assert")}),
        ("My brother is allergic to cats.", {("Jo's brother", "allergic_to", "cats", "assert")}),
    ],
)
def test_third_person(text, expected):
    assert facts(text, speaker="Jo") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I don't live in Berlin any more.", {(A, "lives_in", "Berlin", "negate")}),
        ("I no longer work at Initech.", {(A, "works_at", "Initech", "negate")}),
        ("I quit Initech.", {(A, "works_at", "Initech", "negate")}),
        ("Leo and I broke up.", {(A, "partner", "Leo", "negate")}),
        ("I sold the Civic.", {(A, "owns", "Civic", "negate")}),
        ("I'm not a junior designer any more.", {(A, "role", "junior designer", "negate")}),
        ("I'm not at UCL anymore, I graduated.", {(A, "studies_at", "UCL", "negate")}),
        ("My old number doesn't work any more.", {(A, "contact.phone", None, "negate")}),
    ],
)
def test_negations_close_without_a_new_value(text, expected):
    assert facts(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Got a small flat in Nanshan, ten minutes' walk from the office",
            {(A, "lives_in", "Nanshan", "assert")},
        ),
        (
            "Hi all, I'm leading the mobile team from this sprint on",
            {
                (A, "role", "mobile team lead", "assert"),
                ("mobile team lead", "held_by", A, "assert"),
            },
        ),
        (
            "Can't, I'm on call for the payments team at Tencent all weekend",
            {(A, "works_at", "Tencent", "assert")},
        ),
        (
            "My knee surgery is booked for March 18 at St Mary's",
            {
                (A, "plan", "knee surgery (2027-03-18)", "assert"),
                ("knee surgery", "date", "March 18", "assert"),
            },
        ),
        ("I moved to Lisbon last month.", {(A, "lives_in", "Lisbon", "assert")}),
    ],
)
def test_chat_phrasings(text, expected):
    assert facts(text) == expected


def test_english_around_a_chinese_value():
    assert facts("I moved to 上海 last month") == {(A, "lives_in", "上海", "assert")}


def test_my_wife_carla_is_a_partner_named():
    assert facts("My wife Carla is a nurse and works night shifts.", speaker="Diego") == {
        ("Diego", "partner", "Carla", "assert"),
        ("Carla", "role", "nurse", "assert"),
    }


@pytest.mark.parametrize(
    "text",
    [
        "Looks like you had a great day!",  # "Looks" is no one
        "Moments like these remind me to appreciate the ones I love",
        "Saturday works for me!",
        "I love your turtles so much!",  # a remark, not a preference
        "I love the color and texture.",
        "I love how video games can really spark your imagination.",
        "I love their work.",
        "Last weekend I joined a mentorship program for LGBTQ youth",  # not an employer
    ],
)
def test_look_alikes_that_are_not_facts(text):
    assert facts(text) == set()


def test_a_two_word_title_is_read_whole():
    assert facts("I'm an assistant manager- it's like a stepping stone") == {
        (A, "role", "assistant manager", "assert")
    }


def test_likes_are_cut_at_a_dash():
    assert facts("We love being outdoors - going for hikes") == {
        (A, "likes", "being outdoors", "assert")
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I adopted a cat from the shelter! Her name is Miso, she's a two-year-old tabby",
            {("Ann", "pet", "Miso", "assert")},
        ),
        ("We got a puppy. His name is Rex.", {("Ann", "pet", "Rex", "assert")}),
        ("We rescued a rabbit. It's called Bun", {("Ann", "pet", "Bun", "assert")}),
        # not got by the speaker, or not asserted: no pet
        ("I saw a cat yesterday! Her name is Miso", set()),
        ("Did you adopt a cat? Her name is Miso?", set()),
        ("If I adopted a cat. Her name is Miso", set()),
    ],
)
def test_an_animal_named_in_the_next_sentence_is_a_pet(text: str, expected: set) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I work at a startup, Acme Labs.", {(A, "works_at", "Acme Labs", "assert")}),
        (
            "I work for a small design agency, Brightside.",
            {(A, "works_at", "Brightside", "assert")},
        ),
        ("I work at a startup.", {(A, "works_at", "startup", "assert")}),  # no name: as before
        ("I work at a startup, Yeah.", {(A, "works_at", "startup", "assert")}),
        (
            "Excited to be here as the new junior designer",
            {(A, "role", "junior designer", "assert")},
        ),
        (
            "Thanks! So happy to start as your new pharmacist.",
            {(A, "role", "pharmacist", "assert")},
        ),
        ("I'm thrilled to join as a data analyst", {(A, "role", "data analyst", "assert")}),
        ("Excited to be here, see you all at lunch", set()),
    ],
)
def test_an_employer_named_after_its_description_and_a_role_joined_as(text, expected):
    assert facts(text) == expected
