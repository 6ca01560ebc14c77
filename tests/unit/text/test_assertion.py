"""The assertion judge (``remem.text.assertion``): what asserts something and what does not,
per family and language. The cases are written here, not taken from the capture set (which
``tests/integration/test_capture_assertions.py`` measures), so the rules are not tuned to it."""

from __future__ import annotations

import pytest

from remem.text.assertion import asserts, not_a_statement
from remem.text.triggers import admit, subject_key

STATEMENTS = [
    "I moved to Valencia in August.",
    "I live in Leeds with my partner.",
    "I'm based in Taipei for work.",
    "I now work at Hooli.",
    "I'm a nurse at St Mary's.",
    "My partner Alex is a pilot.",
    "Priya works at the council these days.",
    "Jonas moved to Vienna.",
    "We adopted a greyhound called Pip.",
    "I no longer work at Hooli.",
    "I don't eat fish any more.",
    "I sold my old Golf.",
    "My email is kim@example.org.",
    "Moved to Bergen in the spring!",
    "I passed my driving test.",
    "ok so I work at Stripe now",
    "我搬到武汉了。",
    "我现在在字节跳动上班。",
    "我在浙大读博。",
    "我是律师。",
    "小王是我男朋友。",
    "我养了一只橘猫。",
    "我不住南京了。",
    "我已經搬到高雄了。",
    "我而家喺銀行返工。",
    "老陈上个月搬去厦门了。",
]


@pytest.mark.parametrize("text", STATEMENTS)
def test_plain_statements_assert_and_are_admitted(text):
    assert not_a_statement(text) is None, text
    assert admit(text) is not None, text


NOT_ASSERTED = {
    "a question": [
        "Which town do I live in now?",
        "I work where again",
        "my partner is who again",
        "I'm vegan, aren't I",
        "remind me what my locker number is",
        "guess what I do for a living",
        "我在哪个城市来着",
        "我是做什么工作的",
        "我女朋友叫啥来着",
        "你知道我在哪上班吗",
        "我是不是搬过家",
    ],
    "uncertain (a guess, a hedge or not knowing)": [
        "I can't remember where I parked my bike",
        "I'm not sure I still work at Hooli",
        "I live in Leeds or York, can't decide which to say",
        "Maybe I'll move to Bergen",
        "I might be allergic to kiwi",
        "I'll probably join Stripe",
        "I may sell the Golf",
        "I don't know if I'm staying in Leeds",
        "我也许会搬到武汉",
        "我好像对猫过敏",
        "我不确定还在不在那家公司",
        "我记不清我的车牌号了",
        "我应该是住在南京吧",
        "我可能去浙大读博",
    ],
    "a hypothetical": [
        "If I lived in Bergen I'd buy a raincoat.",
        "What if I moved to Vienna?",
        "Suppose I quit Hooli tomorrow",
        "I'd sell the Golf if someone offered enough.",
        "要是我搬到武汉，就能天天吃热干面",
        "假如我是律师，我会怎么做",
        "万一我丢了工作怎么办",
    ],
    "a quote or someone else's words": [
        'My boss said "you live too far away".',
        "The landlord asked if I work from home.",
        "My dad keeps saying I should move back.",
        "我爸说我应该考公务员。",
        "同事跟我说他要去深圳。",
        "房东讲不能养猫。",
    ],
    "sarcasm": [
        "Yeah right, I'm the queen of England.",
        "I live in a castle, obviously.",
        "I'm a billionaire now /s",
        "我是首富，呵呵",
        "对对对，我是外星人",
    ],
    "an example": [
        'For instance, "I live in Rome" would be stored.',
        "Pretend I work at NASA and answer again.",
        'Just type "I am vegan" and see.',
        "比如说我住在上海这种话",
        "假装我是老师，给我出题",
        "举例：我在银行上班",
    ],
}


@pytest.mark.parametrize(
    ("reason", "text"), [(reason, t) for reason, texts in NOT_ASSERTED.items() for t in texts]
)
def test_non_statements_assert_nothing_and_have_no_subject(reason, text):
    assert not_a_statement(text) is not None, text
    assert not asserts(text)
    assert subject_key(text) is None, text  # so supersession never closes a memory on it


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("I forgot where I live", "uncertain (a guess, a hedge or not knowing)"),
        ("I live in Madrid or Lisbon", "uncertain (a guess, a hedge or not knowing)"),
        ("我住在北京吧", "uncertain (a guess, a hedge or not knowing)"),
        ("I live where again?", "a question"),
        ("Oh sure, and I'm an astronaut.", "sarcasm"),
    ],
)
def test_the_reason_names_the_family(text, reason):
    assert not_a_statement(text) == reason


@pytest.mark.parametrize(
    "text",
    [
        "I'd rather have tea if possible",  # a preference, not a conditional
        "I moved here in May.",  # the month, not the hedge "may"
        "我喜欢看小说。",  # 小说 is a novel, not someone saying something
        "我跟他说我搬到北京了。",  # the speaker's own words
        "Lisbon is where I live now.",  # a wh-word that opens a clause, not one in place
        "This is what I do for a living: I'm a nurse.",
        "My email is kim@example.org.",  # example.org is a domain, not an example
    ],
)
def test_look_alikes_still_assert(text):
    assert asserts(text), text
