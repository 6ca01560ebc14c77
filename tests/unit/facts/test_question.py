"""Which fact a question asks for (remem.facts.question), in English and Chinese."""

from __future__ import annotations

import pytest

from remem.facts.question import (
    asked_attributes,
    asked_fact,
    asked_subjects,
    asks_ending,
    asks_first,
    attribute_of_value,
    plans_named,
)
from remem.types import Fact

SUBJECTS = [
    ("name:tom", "Tom"),
    ("name:ann", "Ann"),
    ("name:汤姆", "汤姆"),
    ("name:林曉", "林曉"),
    ("speaker:mia", "Mia"),
    ("name:sam", "Sam"),
    ("speaker:jo/family.grandmother", "Jo's grandmother"),
]


@pytest.mark.parametrize(
    ("question", "subject", "first"),
    [
        ("Where does Tom live now?", "name:tom", "lives_in"),
        ("Which city should I visit Tom in now?", "name:tom", "lives_in"),
        ("Which company does Ann work for?", "name:ann", "works_at"),
        ("What is Ann's job at the moment?", "name:ann", "role"),
        ("Who was Mia's boyfriend before Sam?", "speaker:mia", "partner"),
        ("Where does Gran live now?", "speaker:jo/family.grandmother", "lives_in"),
        ("汤姆现在在哪家公司", "name:汤姆", "works_at"),
        ("汤姆现在住在哪里？", "name:汤姆", "lives_in"),
        ("林晓现在住哪个城市？", "name:林曉", "lives_in"),  # Simplified asks for Traditional
        ("林曉現在是什麼職位？", "name:林曉", "role"),
        ("汤姆现在的手机号是多少？", "name:汤姆", "contact.phone"),
        ("What is Tom's Telegram handle now?", "name:tom", "contact.telegram"),
    ],
)
def test_a_question_names_whose_fact_and_which_attribute(
    question: str, subject: str, first: str
) -> None:
    asked = asked_fact(question, SUBJECTS)
    assert asked is not None
    assert (asked.subject, asked.attributes[0]) == (subject, first)


def test_a_question_naming_nobody_the_store_knows_asks_for_nothing() -> None:
    assert asked_fact("Where does Liam live now?", SUBJECTS) is None
    assert asked_fact("李明现在住在哪里？", SUBJECTS) is None
    # a name inside another word is no name ("Tommy", "Annual")
    assert asked_subjects("Annual report for Tommy?", SUBJECTS) == []


def test_words_that_name_no_family_ask_for_no_attribute() -> None:
    assert asked_attributes("What kind of music is Tom into?") == ()
    assert asked_attributes("汤姆怎么样了") == ()


@pytest.mark.parametrize(
    "question",
    [
        "What does Ann do at her company?",
        "What does Tom do at the startup?",
        "汤姆在公司负责什么？",
    ],
)
def test_what_one_does_at_a_company_asks_for_the_job_first(question: str) -> None:
    """The company named is where the job is, not what is asked (changed_facts nadia, xuqing:
    the employer's line came first, the job's was below it)."""
    assert asked_attributes(question)[:2] == ("role", "works_at")


def test_doing_at_another_time_or_who_holds_a_task_asks_for_no_job() -> None:
    assert "role" not in asked_attributes("What does Dad like to do at weekends?")
    assert "role" not in asked_attributes("What does Ann do in the evenings?")
    assert asked_attributes("后端现在谁负责？") == ("held_by",)


def test_the_first_person_named_is_the_one_asked_about() -> None:
    assert [k for k, _ in asked_subjects("Did Sam meet Mia?", SUBJECTS)] == [
        "name:sam",
        "speaker:mia",
    ]


def fact(attribute: str, value: str) -> Fact:
    return Fact(
        id=f"f_{value}",
        scope="default",
        subject="name:ann",
        subject_name="Ann",
        attribute=attribute,
        value=value,
        said_at=0.0,
        valid_from=0.0,
        source_ids=("r0",),
    )


def test_a_value_the_question_names_tells_the_attribute() -> None:
    facts = [fact("works_at", "Initech"), fact("lives_in", "Leeds"), fact("pet", "Biscuit")]
    assert attribute_of_value("Is Ann still at Initech?", facts) == "works_at"
    assert attribute_of_value("安还在Leeds吗？", facts) == "lives_in"
    assert attribute_of_value("Is Ann still happy?", facts) is None


def test_of_a_subjects_plans_only_those_the_question_names() -> None:
    plans = [fact("plan", "knee surgery (2026-03-18)"), fact("plan", "trip to Lisbon (2026-05-07)")]
    assert [p.value for p in plans_named("When is Dad's knee surgery now?", plans)] == [
        "knee surgery (2026-03-18)"
    ]
    chinese = [fact("plan", "婚礼 (2026-05-20)"), fact("plan", "搬去上海 (2026-12-01)")]
    assert [p.value for p in plans_named("建国的婚礼现在定在哪天？", chinese)] == [
        "婚礼 (2026-05-20)"
    ]


def test_names_with_an_apostrophe_and_possessives_are_found() -> None:
    subjects = [("name:o'brien", "O'Brien"), ("name:mia", "Mia")]
    assert [k for k, _ in asked_subjects("Where does O'Brien live now?", subjects)] == [
        "name:o'brien"
    ]
    assert [k for k, _ in asked_subjects("What is Mia's job?", subjects)] == ["name:mia"]


def test_a_latin_name_inside_a_chinese_question_is_found() -> None:
    subjects = [("name:kai", "Kai"), ("name:ann", "Ann")]
    asked = asked_fact("以前Kai打什么球", subjects)
    assert asked is not None and (asked.subject, asked.attributes[0]) == ("name:kai", "likes")
    assert asked_subjects("Ann现在住哪里？", subjects) == [("name:ann", "Ann")]
    assert asked_subjects("Kaiser现在住哪里？", subjects) == []  # whole words only


def test_loving_to_eat_asks_for_the_favourite_food_before_the_diet() -> None:
    assert asked_attributes("孙悦以前爱吃什么？")[0] == "favourite.food"
    assert asked_attributes("孫悅以前愛吃什麼？")[0] == "favourite.food"
    assert asked_attributes("孙悦现在不吃什么？")[0] == "diet"


@pytest.mark.parametrize(
    ("question", "start", "ending"),
    [
        ("What was Lucy's job when she joined?", True, False),
        ("What was Lucy's job at first?", True, False),
        ("林晓刚入职的时候是什么职位？", True, False),
        ("王芳一开始在哪家公司？", True, False),
        ("Who did Ben sell his old car to?", False, True),
        ("What happened to Kenji's hamster?", False, True),
        ("陈静的旧车卖了多少钱？", False, True),
        ("刘洋和小雅为什么分手？", False, True),
        ("What did Ben drive before he sold the Civic?", False, False),
        ("Where does Lucy work now?", False, False),
        ("郑凯以前打什么球？", False, False),
    ],
)
def test_a_question_about_the_start_or_the_ending_of_a_value(
    question: str, start: bool, ending: bool
) -> None:
    assert (asks_first(question), asks_ending(question)) == (start, ending)
