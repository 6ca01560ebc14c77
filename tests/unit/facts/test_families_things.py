"""Facts about things, groups and roles (issue 48): the WiFi's password, a server's address, a
stand-up's time, where a group meets, the day a release is set for, a price, who holds a role.
English and Chinese; the subject is the thing, and a later value closes the earlier one."""

from __future__ import annotations

import pytest

from remem.facts.fold import fold, merged_chain
from remem.facts.model import thing_subject
from remem.facts.question import asked_attributes, asked_fact, fold_question, thing_named_at
from unit.facts.reading import SAID, facts, read, record

DAY = 86_400.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The wifi password is now hunter22.", {("wifi", "password", "hunter22", "assert")}),
        (
            "I changed the router password to Blue-Fox-9.",
            {("router", "password", "Blue-Fox-9", "assert")},
        ),
        (
            "The staging server's IP is 10.0.3.15.",
            {("staging server", "address", "10.0.3.15", "assert")},
        ),
        ("Stand-up moves to 9:45 from Monday.", {("Stand-up", "time", "9:45", "assert")}),
        (
            "Our book club meets at Ritual Coffee now.",
            {("book club", "place", "Ritual Coffee", "assert")},
        ),
        (
            "From April we meet at Ritual Coffee on Division Street.",
            {("we", "place", "Ritual Coffee on Division Street", "assert")},
        ),
        ("Target for v3 is June 10.", {("v3", "date", "June 10", "assert")}),
        ("The v3 release moves to June 24.", {("v3 release", "date", "June 24", "assert")}),
        ("Our rent is going up to $2,400.", {("rent", "price", "$2,400", "assert")}),
        (
            "Marco takes over as team lead while I'm away.",
            {("team lead", "held_by", "Marco", "assert")},
        ),
    ],
)
def test_english_things_groups_and_roles(text, expected):
    assert {f for f in facts(text) if f[1] != "plan" and f[1] != "role"} == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "宽带师傅来修了路由器，顺便把 WiFi 密码改复杂了：ZH-home-2026，大家回来记得",
            {("WiFi", "password", "ZH-home-2026", "assert")},
        ),
        (
            "WiFi 名字还是 ZhangHome，密码改成 zhang888888 了",
            {("WiFi", "password", "zhang888888", "assert")},
        ),
        ("staging 环境地址：10.0.3.15", {("staging 环境", "address", "10.0.3.15", "assert")}),
        (
            "顺便说一下，staging 周末迁移到新的 VPC 了，新地址 10.0.5.20",
            {("staging", "address", "10.0.5.20", "assert")},
        ),
        ("通知：从下周一开始站会提前到 9:45", {("站会", "time", "9:45", "assert")}),
        (
            "集合改成 7 点半，地点改到深圳湾公园地铁站 D 口",
            {
                ("集合", "time", "7 点半", "assert"),
                ("集合", "place", "深圳湾公园地铁站 D 口", "assert"),
            },
        ),
        ("v2.4 推到 5 月 22 号发布", {("v2.4", "date", "5 月 22 号", "assert")}),
        (
            "另外建國的婚禮改到 10 月 1 號了",
            {
                ("建國的婚禮", "date", "10 月 1 號", "assert"),
                ("建國", "plan", "婚禮 (2027-10-01)", "assert"),
            },
        ),
        ("武功山费用要调整到每人 720", {("武功山费用", "price", "720", "assert")}),
        ("房租涨到 5000 了", {("房租", "price", "5000", "assert")}),
        ("后端交给阿凯负责", {("后端", "held_by", "阿凯", "assert")}),
        ("我负责这次小程序的后端", {("后端", "held_by", "王芳", "assert")}),
        (
            "群里的活动以后由刘洋和我一起组织",
            {("活动", "held_by", "刘洋和王芳", "assert")},
        ),
    ],
)
def test_chinese_things_groups_and_roles(text, expected):
    assert facts(text, speaker="王芳") == expected


@pytest.mark.parametrize(
    "text",
    [
        "What's the wifi password?",
        "I think the wifi password is hunter22?",
        "If the rent goes up to $3,000 I'm moving out.",
        "WiFi 密码是多少？",
        "如果房租涨到 6000 我就搬走",
        "站会是不是改到 9:45 了？",
        "他说站会改到 9:45 了",
    ],
)
def test_questions_hypotheticals_and_reports_state_no_thing(text):
    assert read(text, "王芳") == []


def test_a_role_held_says_who_holds_it():
    assert ("design lead", "held_by", "Lucy", "assert") in facts("Lucy is our new design lead.")
    assert ("产品总监", "held_by", "赵磊", "assert") in facts("赵磊升任产品总监了。")
    # a role many hold at once says nobody holds it alone
    assert all(f[1] != "held_by" for f in facts("I'm a data analyst at Initech now."))


def test_taking_over_from_someone_says_they_held_the_role_before():
    said = read("Lucy is our new design lead from September, taking over from Priya K", "Dan")
    before = [s for s in said if s.attribute == "held_by" and s.value == "Priya K"]
    assert before and before[0].valid_to is not None  # a fact of the past


def test_a_new_value_of_a_thing_closes_the_old_one():
    old = read("staging 环境地址：10.0.3.15", "黄志伟", id="r1")
    new = read(
        "顺便说一下，staging 周末迁移到新的 VPC 了，新地址 10.0.5.20",
        "黄志伟",
        id="r2",
        at=SAID + DAY,
    )
    chain = fold(old + new)
    assert {(f.value, f.valid_to is None) for f in chain} == {
        ("10.0.3.15", False),
        ("10.0.5.20", True),
    }
    assert all(f.subject == thing_subject("staging") for f in chain)


def test_the_same_thing_by_other_names_is_one_subject():
    assert thing_subject("staging 服务器") == thing_subject("The staging server")
    assert thing_subject("上线时间") == thing_subject("上线")
    assert thing_subject("另外建国的婚礼") == thing_subject("建国的婚礼")


def test_chains_a_question_names_are_read_as_one():
    priya = read("Hi all, I'm leading the mobile team from this sprint on", "Priya", id="r1")
    marco = read("Marco takes over as team lead while I'm away", "Priya", id="r2", at=SAID + DAY)
    held = [f for f in fold(priya + marco) if f.attribute == "held_by"]
    assert all(f.valid_to is None for f in held)  # two chains: neither closes the other
    merged = merged_chain(held)
    assert [(f.value, f.valid_to is None) for f in merged] == [("Priya", False), ("Marco", True)]
    assert merged[0].closed_by == "r2"
    again = read("Ask me, I'm the lead until she's back", "Marco", id="r3", at=SAID + 2 * DAY)
    held = [f for f in fold(priya + marco + again) if f.attribute == "held_by"]
    merged = merged_chain(held)  # Marco said twice, in two chains: one value, both records
    assert [(f.value, f.source_ids) for f in merged] == [
        ("Priya", ("r1",)),
        ("Marco", ("r2", "r3")),
    ]


@pytest.mark.parametrize(
    ("question", "key", "shown", "named"),
    [
        ("Who leads the mobile team now?", "thing:mobileteamlead", "mobile team lead", True),
        ("Who leads the mobile team now?", "thing:designlead", "design lead", False),
        ("现在 staging 服务器的 IP 是多少？", "thing:staging", "staging 环境", True),
        ("v2.3 最终的发布日期是哪天？", "thing:v2.4", "v2.4", False),
        ("武功山每人总共要交多少钱？", "thing:武功山", "武功山费用", True),
        ("Where can we visit Gran?", "thing:we", "we", False),
    ],
)
def test_a_question_names_a_thing_by_its_words(question, key, shown, named):
    lowered = fold_question(question).casefold()
    assert (thing_named_at(lowered, key, shown) is not None) is named


@pytest.mark.parametrize(
    ("question", "family"),
    [
        ("家里现在的 WiFi 密码是什么？", "password"),
        ("现在 staging 服务器的 IP 是多少？", "address"),
        ("每天站会现在几点开？", "time"),
        ("Where does the book club meet now?", "place"),
        ("v2.4 最后定在哪天发布？", "date"),
        ("How much is the rent now?", "price"),
        ("现在是谁负责 SSO 后端？", "held_by"),
    ],
)
def test_the_question_reader_asks_for_the_thing_families(question, family):
    assert family in asked_attributes(question)


def test_a_thing_is_the_subject_a_question_asks_about():
    subjects = [(thing_subject("WiFi"), "WiFi"), ("name:张建国", "张建国")]
    asked = asked_fact("家里现在的 WiFi 密码是什么？", subjects)
    assert asked is not None and asked.subject == thing_subject("wifi")
    assert "password" in asked.attributes


def test_record_helper_keeps_its_defaults():  # the helper the tests above rely on
    assert record("x").created_at == SAID
