"""Which time a question asks about (remem.text.question_time)."""

from __future__ import annotations

import pytest

from remem.text.question_time import question_time

PRESENT = [
    "Where does Tom live now?",
    "Where does Tom live right now",
    "Which city is Tom in currently?",
    "What is Ann's current address?",
    "Is Tom still in Shenzhen?",
    "What does she do these days?",
    "Where is he working at the moment?",
    "Where does Ann work nowadays?",
    "Does Tom live in Shenzhen any more?",
    "Who is Ann dating at present?",
    "Where has Tom been living lately?",
    "Which city should I visit Tom in now?",
    "汤姆现在住在哪里？",
    "汤姆目前在哪个城市？",
    "如今他在哪家公司上班？",
    "他还住在深圳吗？",
    "她还在那家公司上班吗",
    "小明最近在哪工作？",
    "湯姆現在住在哪裡？",
    "他還住在深圳嗎？",
    "她目前養了什麼寵物？",
    "眼下他住哪？",
]
PAST = [
    "Where did Tom live before he moved?",
    # before the thing that replaced the old value
    "Where did Ann work before Globex?",
    "Who was Mia's boyfriend before Sam?",
    "Where did Gran live before the care home?",
    "What was Nora's old Telegram handle?",
    "What was the original v3 release date?",
    "When was Dad's surgery first booked?",
    "What was Lucy's job when she joined?",
    "陈静的旧车卖了多少钱？",
    "小程序原定哪天上线？",
    "赵磊刚来的时候是什么职位？",
    "Where did Tom use to live?",
    "Where did Ann used to work?",
    "Where did Tom live previously?",
    "What was his old address?",
    "Which company did she work for formerly?",
    "Who was her previous boss?",
    "Where did Tom live before the move?",
    "Where was Ann living before moving to Paris?",
    "Where did Tom live before?",
    "Where did he live back then?",
    "Where did Tom live before he moved to where he lives now?",
    "汤姆以前住在哪里？",
    "他之前在哪家公司上班？",
    "她原来住哪？",
    "过去几年他住在哪个城市？",
    "汤姆搬家之前住在哪？",
    "湯姆以前住在哪裡？",
    "他從前養過什麼狗？",
    "她曾经在哪里读书？",
]
NONE = [
    "Where does Tom live?",
    # before a time is no question about the past
    "What should Tom finish before Friday?",
    "Where does Ann want to live before the end of the year?",
    "Does Tom have to move before December?",
    "How old is Nora's dog?",
    "When is the first show booked?",
    "How old is Tom?",
    "What is Ann's favourite film?",
    "I know where he lives, do you?",
    "Who is Ann's sister?",
    "汤姆住在哪里？",
    "他住在北京还是上海？",
    "我过去找他，他住哪？",
    "我过去找他可以吗？",
    "她在哪家公司上班？",
    "湯姆住在哪裡？",
    "What did we talk about last week?",
]


@pytest.mark.parametrize("question", PRESENT)
def test_present(question: str) -> None:
    assert question_time(question) == "present"


@pytest.mark.parametrize("question", PAST)
def test_past(question: str) -> None:
    assert question_time(question) == "past"


@pytest.mark.parametrize("question", NONE)
def test_none(question: str) -> None:
    assert question_time(question) is None


def test_enough_cases() -> None:
    assert len(PRESENT) + len(PAST) + len(NONE) >= 40


@pytest.mark.parametrize(
    "question",
    [
        "小明之前住哪里，现在住哪里？",  # two questions in one: both values are asked
        "Where did Ann work before, and where does she work now?",
        "What company is Rachel, an old colleague from my previous company, currently working at?",
    ],
)
def test_a_past_clause_and_a_present_clause_ask_both(question: str) -> None:
    assert question_time(question) is None
