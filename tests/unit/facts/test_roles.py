"""A job said without the words the other rules read a role in (``rules_roles``): a title at a
place with "I'm" left out ("Still an auditor at Harwood Pike"), the side of a business one runs
or works in ("I run the finance side"), what one does or is in charge of in Chinese ("我做海外渠道",
"我负责亚马逊店铺的运营"). Every positive line read nothing of it before (changed_facts nadia,
maxiao, xuqing: the old job stayed current, or 运营 was read as a role only one person holds);
every negative line must read no role and no employer."""

from __future__ import annotations

import pytest

from remem.facts.extract import ExtractionContext, statements_of_conversation
from remem.facts.fold import fold
from remem.facts.subjects import people_of
from remem.types import Record
from unit.facts.reading import day, facts

POSITIVES = [
    # (text, speaker, what is read: (subject shown, attribute, value) each)
    (
        "Same, at my desk. Still an auditor at Harwood Pike, year-end season in Manchester is "
        "brutal",
        "Nadia",
        {("Nadia", "role", "auditor"), ("Nadia", "works_at", "Harwood Pike")},
    ),
    (
        "Yeah, still a nurse at St Mary's",
        "Ann",
        {("Ann", "role", "nurse"), ("Ann", "works_at", "St Mary's")},
    ),
    (
        "Now a senior engineer at Google!",
        "Ann",
        {("Ann", "role", "senior engineer"), ("Ann", "works_at", "Google")},
    ),
    ("Now working for Globex.", "Ann", {("Ann", "works_at", "Globex")}),
    # a student's place is a school: the role only, no employer
    ("Still a PhD student at UCL", "Ann", {("Ann", "role", "PhD student")}),
    (
        "I run the finance side, it's just me and a spreadsheet for now, fourteen people in total",
        "Nadia",
        {("Nadia", "role", "finance")},
    ),
    ("Kate heads the legal department.", "Ann", {("Kate", "role", "legal")}),
    ("I work in marketing.", "Ann", {("Ann", "role", "marketing")}),
    ("I'm in sales now.", "Ann", {("Ann", "role", "sales")}),
    ("My sister works in HR.", "Ann", {("Ann's sister", "role", "HR")}),
    (
        "不是大疆，是苏州的一家小公司，才三十个人，我做海外渠道",
        "马骁",
        {("马骁", "role", "海外渠道")},
    ),
    ("我现在做HR", "王芳", {("王芳", "role", "HR")}),
    ("我老公做财务", "王芳", {("王芳's husband", "role", "财务")}),
    # read as who holds 运营 before (held_by), a role only one person holds
    (
        "卖户外用品到欧洲，我负责亚马逊店铺的运营，公司一共二十来个人",
        "许晴",
        {("许晴", "role", "运营")},
    ),
    ("我主要负责华东区的销售", "王芳", {("王芳", "role", "销售")}),
]

NEGATIVES = [
    "I forgot where I work.",
    "Still an auditor at Harwood Pike?",
    "Still an auditor at Harwood Pike, right?",
    "Tom got promoted, still a nurse at St Mary's though",  # Tom's, after a comma
    "If I were still an auditor at Harwood Pike I'd be rich",
    "Maybe still an auditor at Harwood Pike next year, who knows",
    "Still waiting at the gate",
    "Still waiting at Heathrow",
    "Still at Acme?",
    "Still at Heathrow, flight delayed",
    "Now at Google",  # where one is as often as where one works: left unread
    "Still working at Starbucks",  # a café one sits in, or a job
    "Still working on it",
    "Still a fan of Arsenal",
    "Working at Google is a dream",
    "We run the finance side",  # the company
    "Do you run the finance side?",
    "If I ran the finance side I'd quit",
    "I ran the finance side at my old job",
    "I don't run the finance side any more",
    "I run the kids' side of things",
    "I run the numbers every week",
    "I work in London",
    "I'm in sales mode today",
    "I'm in it now",
    "He's in legal trouble",
    "I'm in admin hell",
    "I'm in HR's bad books",
    "We work in finance",
    "I worked in sales for years",
    "I wish I worked in marketing",
    "Would you work in sales?",
    "I used to work in finance",
    "我们做海外渠道",  # the company
    "我做饭",
    "我做了个梦",
    "我做了三年财务",
    "我做完财务报表了",
    "我做好财务",
    "我做一下财务",
    "我以前做财务",
    "我做过客服",
    "我不做渠道了",
    "我想做市场",
    "我可能做市场",
    "我做市场调研",
    "你做海外渠道吗？",
    "如果我做海外渠道就好了",
    "我做市场的时候认识了他",
    "他做财务",  # nobody named before: "he" is nobody
]


@pytest.mark.parametrize(("text", "speaker", "expected"), POSITIVES)
def test_a_job_said_without_a_title_verb_is_read(text, speaker, expected):
    found = facts(text, speaker=speaker)
    assert {(who, attribute, value) for who, attribute, value, _ in found} == expected
    assert {polarity for *_, polarity in found} == {"assert"}


@pytest.mark.parametrize("text", NEGATIVES)
def test_no_job_is_read_where_none_is_said(text):
    assert not [f for f in facts(text) if f[1] in ("role", "works_at")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a name before 负责 says who holds a task, as the group chats ask ("谁负责运营？")
        ("李娜负责运营", {("运营", "held_by", "李娜", "assert")}),
        # a task of this project, not a job: who holds it, as before
        ("我负责这次小程序的后端", {("后端", "held_by", "王芳", "assert")}),
        ("我负责这次团建", {("团建", "held_by", "王芳", "assert")}),
    ],
)
def test_who_holds_a_task_is_still_read_as_held_by(text, expected):
    assert facts(text, speaker="王芳") == expected


def _chain(chat: list[tuple[str, str]], speaker: str, attribute: str) -> tuple[list, list]:
    records = [
        Record(id=f"r{i}", kind="message", text=text, speaker_label=speaker, created_at=day(when))
        for i, (when, text) in enumerate(chat)
    ]
    found = statements_of_conversation(records, ExtractionContext(people=people_of(records)))
    facts_ = [f for f in fold(found) if f.attribute == attribute]
    now = day("2026-10-20")
    return [f.value for f in facts_ if f.holds_at(now)], [
        f.value for f in facts_ if not f.holds_at(now)
    ]


def test_the_job_said_with_i_left_out_is_closed_by_the_next():
    """changed_facts nadia: Harwood Pike (never read) stayed unclosed by the startup, and the
    question "Is Nadia still at Harwood Pike?" had no value to find its chain by."""
    chat = [
        ("2026-02-14", "Same, at my desk. Still an auditor at Harwood Pike, year-end season"),
        ("2026-06-08", "Done it! I started a new job at a small solar-energy startup in Lisbon"),
        ("2026-06-08", "I run the finance side, it's just me and a spreadsheet for now"),
    ]
    assert _chain(chat, "Nadia", "works_at") == (
        ["small solar-energy startup in Lisbon"],
        ["Harwood Pike"],
    )
    assert _chain(chat, "Nadia", "role") == (["finance"], ["auditor"])


def test_what_one_does_closes_the_role_before():
    """changed_facts maxiao: 华东区销售 stayed his current role, so "马骁现在做什么工作？" put
    the old job's line first."""
    chat = [
        ("2026-02-02", "我报名。我在一家做医疗器械的外企上班，做华东区销售，那周正好不出差"),
        ("2026-07-01", "不是大疆，是苏州的一家小公司，才三十个人，我做海外渠道"),
    ]
    assert _chain(chat, "马骁", "role") == (["海外渠道"], ["华东区销售"])
