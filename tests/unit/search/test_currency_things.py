"""The currency stage on facts about things, groups and roles (issue 48): the question names a
thing and asks for one of its families; the current value leads, the earlier one for "before",
and a thing's changed value is no answer to a question about something else of it."""

from __future__ import annotations

from unit.search.test_currency_asked import first, said_by


def test_the_current_address_of_a_thing_leads_a_question_about_now() -> None:
    lines = (
        "staging 环境地址：10.0.3.15，账号找我开",
        "顺便说一下，staging 周末迁移到新的 VPC 了，新地址 10.0.5.20",
        "staging 今天有点慢",
    )
    store, rowids = said_by("黄志伟", *lines)
    assert (
        first(store, rowids, {0: 0.95, 2: 0.9, 1: 0.5}, "现在 staging 服务器的 IP 是多少？") == "r1"
    )
    assert first(store, rowids, {1: 0.95, 2: 0.9, 0: 0.5}, "staging 以前的 IP 是多少？") == "r0"


def test_who_holds_a_role_now_and_before() -> None:
    lines = (
        "Hi all, I'm leading the mobile team from this sprint on",
        "Personal news: I'm going on parental leave. Marco takes over as team lead while I'm away",
        "The mobile team ships on Friday",
    )
    store, rowids = said_by("Priya", *lines)
    scores = {0: 0.95, 2: 0.9, 1: 0.5}
    assert first(store, rowids, scores, "Who leads the mobile team now?") == "r1"
    scores = {1: 0.95, 2: 0.9, 0: 0.5}
    assert first(store, rowids, scores, "Who was the team lead before Marco?") == "r0"


def test_where_a_group_meets_now_reads_we_beside_the_group_named() -> None:
    lines = (
        "Reminder: book club meets at Blue Door Cafe on Thursday at 7",
        "Blue Door is closing, so from April we meet at Ritual Coffee on Division Street",
        "Book club was fun tonight",
    )
    store, rowids = said_by("Grace", *lines)
    scores = {0: 0.95, 2: 0.9, 1: 0.5}
    assert first(store, rowids, scores, "Where does the book club meet now?") == "r1"


def test_a_things_new_date_is_no_answer_to_a_question_about_its_hotel() -> None:
    lines = (
        "通知一下，建国的婚礼定在 5 月 20 号，在长沙华天酒店",
        "另外建国的婚礼改到 10 月 1 号了，酒店不变",
    )
    store, rowids = said_by("李秀兰", *lines)
    scores = {0: 0.9, 1: 0.8}
    assert first(store, rowids, scores, "建国的婚礼在哪个酒店？") == "r0"
    scores = {0: 0.9, 1: 0.8}
    assert first(store, rowids, scores, "建国的婚礼现在定在哪天？") == "r1"


def test_the_line_naming_who_held_a_role_before_answers_who_did() -> None:
    lines = (
        "Announcement: Lucy is our new design lead from September, taking over from Priya K",
        "Me, I lead the design team now. Let's do a walkthrough at 11",
    )
    store, rowids = said_by("Dan", *lines)
    assert first(store, rowids, {1: 0.95, 0: 0.5}, "Who was design lead before Lucy?") == "r0"
