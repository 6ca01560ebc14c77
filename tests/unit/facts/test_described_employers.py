"""An employer described, not named ("a new job at a robotics startup in Munich",
"我在一家慕尼黑的机器人创业公司上班了"): ``rules_employers``. Every positive line read nothing, or
a wrong value, before those rules (the demo's "Where does Alice work now?" had no current
employer to put first); every negative line must read no employer at all."""

from __future__ import annotations

import pytest

from remem.facts import rules_employers
from remem.facts.extract import ExtractionContext, statements_of_conversation
from remem.facts.fold import fold
from remem.facts.literals import required
from remem.facts.model import name_subject
from remem.facts.subjects import people_of
from remem.types import Record
from unit.facts.reading import day, facts, read

POSITIVES = [
    # (text, speaker, subject shown, value)
    (
        "By the way, I started a new job at a robotics startup in Munich last Monday.",
        "Alice",
        "Alice",
        "robotics startup in Munich",
    ),
    ("I joined a small fintech company.", "Ann", "Ann", "small fintech company"),
    ("I just joined a design agency in Leeds!", "Ann", "Ann", "design agency in Leeds"),
    ("I got a new job at a hospital in Lyon.", "Ann", "Ann", "hospital in Lyon"),
    ("Started a new job at a bakery this week.", "Ann", "Ann", "bakery"),
    ("I've joined a nonprofit.", "Ann", "Ann", "nonprofit"),
    ("I took a job with a consultancy in Dublin.", "Ann", "Ann", "consultancy in Dublin"),
    ("Kate started a new job at a law firm.", "Ann", "Kate", "law firm"),
    ("I got hired by a small games studio.", "Ann", "Ann", "small games studio"),
    ("We joined a startup called Nimbus.", "Ann", "Ann", "Nimbus"),  # described, then named
    ("I landed a job at a biotech company in Basel.", "Ann", "Ann", "biotech company in Basel"),
    ("My sister started working at a bank.", "Ann", "Ann's sister", "bank"),
    ("我在一家慕尼黑的机器人创业公司上班了", "王芳", "王芳", "一家慕尼黑的机器人创业公司"),
    # read "一家" alone before (a value cut at the first 做)
    ("我换工作了，现在在一家做机器人的初创公司", "王芳", "王芳", "一家做机器人的初创公司"),
    ("我上个月入职了一家做跨境电商的小型外贸公司", "王芳", "王芳", "一家做跨境电商的小型外贸公司"),
    ("我跳槽到了一家做自动驾驶的新能源汽车公司", "王芳", "王芳", "一家做自动驾驶的新能源汽车公司"),
    (
        "我妈现在在一家专门做康复治疗的社区医院上班",
        "王芳",
        "王芳's mother",
        "一家专门做康复治疗的社区医院",
    ),
    ("Kate 最近在一家慕尼黑的机器人创业公司工作", "王芳", "Kate", "一家慕尼黑的机器人创业公司"),
    ("現在在一間做機器人嘅初創公司返工", "何家豪", "何家豪", "一間做機器人嘅初創公司"),
]

NEGATIVES = [
    "I forgot where I work.",
    "I wish I worked at a startup in Munich.",
    "If I started a job at a bank, I'd move to Zurich.",
    "Did you start a new job at a startup?",
    "I didn't get the job at the hospital.",
    "I almost joined a startup in Berlin.",
    "She started a new job at a hospital in Lyon.",  # nobody named before: "she" is nobody
    "I joined a gym near the office.",
    "I joined a startup accelerator call this morning.",
    "I haven't joined a company yet.",
    "I started a new hobby at a pottery studio.",
    "Maybe I'll start a new job at a bank.",
    "我忘了我在哪上班",
    "我真希望我在一家外企上班",
    "如果我在一家创业公司上班就好了",
    "你是不是在一家创业公司上班了？",
    "我没去那家创业公司上班",
    "我在一家咖啡店等你",
    "我加入了一个读书会",
    "我差点加入了一家创业公司",
    "她在一家医院上班",
    "我面试了一家做机器人的创业公司",
    "我在一家公司上班的时候认识了他",  # a time ("when I worked at"), read as an employer before
]


# named after the verbs the described rules take and rules_en's named joining rule does not:
# each read no employer before (changed_facts theo: Corran Software never closed the charity)
NAMED = [
    (
        "Big one: I got hired by Corran Software, start on June 15th as a junior developer",
        "Corran Software",
    ),
    ("I took a job with Halden Foods.", "Halden Foods"),
    ("Landed a job at Brightwell last week!", "Brightwell"),
    ("I was hired by Globex in March.", "Globex"),
    ("I've accepted a position at Initech.", "Initech"),
    ("I started a job with Umbrella Health on Monday.", "Umbrella Health"),
]

NAMED_NEGATIVES = [
    "If I got hired by Globex, I'd move to London.",
    "Did you get hired by Globex?",
    "I almost took a job with Globex.",
    "I didn't get the job at Globex.",
    "I started working with Priya on the redesign.",  # a person, not an employer
]


@pytest.mark.parametrize(("text", "speaker", "who", "value"), POSITIVES)
def test_a_described_employer_is_read(text, speaker, who, value):
    found = facts(text, speaker=speaker)
    assert (who, "works_at", value, "assert") in found
    assert len([f for f in found if f[1] == "works_at"]) == 1  # one employer, not two readings


@pytest.mark.parametrize("text", NEGATIVES)
def test_no_employer_is_read_where_none_is_taken(text):
    assert not [f for f in facts(text) if f[1] == "works_at"]


@pytest.mark.parametrize(("text", "value"), NAMED)
def test_a_named_employer_after_the_same_verbs_is_read(text, value):
    found = facts(text, speaker="Theo")
    assert [f for f in found if f[1] == "works_at"] == [("Theo", "works_at", value, "assert")]


@pytest.mark.parametrize("text", NAMED_NEGATIVES)
def test_no_named_employer_is_read_where_none_is_taken(text):
    assert not [f for f in facts(text, speaker="Theo") if f[1] == "works_at"]


def test_a_named_employer_closes_the_described_one_before_it():
    """changed_facts theo: the charity he joined, then Corran Software; the current employer
    was the charity, the only one read."""
    chat = [
        ("2026-01-22", "In. I joined a housing charity in Govan last spring, so I finish at five"),
        ("2026-05-27", "Big one: I got hired by Corran Software, start on June 15th"),
    ]
    records = [
        Record(id=f"r{i}", kind="message", text=text, speaker_label="Theo", created_at=day(when))
        for i, (when, text) in enumerate(chat)
    ]
    found = statements_of_conversation(records, ExtractionContext(people=people_of(records)))
    jobs = [f for f in fold(found) if f.attribute == "works_at"]
    now = day("2026-09-02")
    assert [f.value for f in jobs if f.holds_at(now)] == ["Corran Software"]
    assert [f.value for f in jobs if not f.holds_at(now)] == ["housing charity in Govan"]


@pytest.mark.parametrize(
    "text", ["I got hired by Sarah, she needed help at the market", "I joined Sarah in Leeds"]
)
def test_a_person_the_store_knows_is_no_employer(text):
    """Hired by, or joined, someone who speaks in the chat: a person, not a workplace, and
    an employer read there would close the real one."""
    chat = [("Sarah", "Hi all, Sarah here"), ("Theo", text)]
    records = [
        Record(
            id=f"r{i}", kind="message", text=said, speaker_label=who, created_at=day("2026-05-27")
        )
        for i, (who, said) in enumerate(chat)
    ]
    found = statements_of_conversation(records, ExtractionContext(people=people_of(records)))
    assert not [f for f in found if f.attribute == "works_at"]


def test_he_or_she_is_the_person_just_named():
    kate = (name_subject("Kate"), "Kate")
    found = read(
        "She started a new job at a hospital in Lyon.", context=ExtractionContext(antecedent=kate)
    )
    assert [(s.subject, s.value) for s in found] == [(kate[0], "hospital in Lyon")]


def test_the_time_said_starts_the_new_job():
    """Said on Friday 2026-11-20: "last Monday" is the 16th, when the new employer began."""
    (found,) = read("I started a new job at a robotics startup in Munich last Monday.")
    assert found.valid_from == day("2026-11-16")


@pytest.mark.parametrize("rule", rules_employers.RULES_EN + rules_employers.RULES_ZH)
def test_every_rule_needs_a_word_of_its_own(rule):
    """A rule with no word it provably needs would run on every sentence (issue 47): each
    needs a verb of taking a job (or 在 / 换工作) and, unless it reads a name, a word for a
    workplace."""
    clauses = required(rule.source, rule.flags)
    # the verb (or 在) and the workplace, at least; a name has no word of its own
    assert len(clauses) >= (1 if rule is rules_employers.NAMED_EN else 2)
    assert any(min(map(len, clause)) >= 2 for clause in clauses)  # one not a single letter
