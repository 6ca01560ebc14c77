"""The asked attribute (issue 45): which attribute a question asks for, and whether a line
states it, not only carries a value of the asked type."""

from __future__ import annotations

import pytest

from remem.text.answer_types import asked_attribute, attribute_evidence

ASKED = [
    ("What's the wifi password at Lin Wei's place?", "code"),
    ("家里现在的 WiFi 密码是什么？", "code"),
    ("张敏养了什么宠物？", "pet"),
    ("Does Maria have any pets?", "pet"),
    ("What is Lin Wei's new phone number?", "contact"),
    ("张伟的微信号是多少？", "contact"),
    ("What is Priya's favourite movie?", "favourite"),
    ("李志强最喜欢的电影是哪部？", "favourite"),
    ("How much does Lucy earn as design lead?", "pay"),
    ("林曉在台北的房租多少？", "pay"),  # Traditional, read as Simplified
    ("陈静是哪所大学毕业的？", "study"),
    ("Where does Ann work now?", "work"),
    ("汤姆现在住在哪里？", "home"),
    ("孙浩的儿子叫什么名字？", "name"),
    ("When did Caroline go to the LGBTQ support group?", None),
    ("大家去哪座山爬山了？", None),
]


@pytest.mark.parametrize(("question", "attribute"), ASKED)
def test_the_asked_attribute_is_read_from_the_question(question, attribute):
    assert asked_attribute(question) == attribute


def test_a_line_about_the_subjects_place_does_not_state_a_password():
    question = "What's the wifi password at Lin Wei's place?"
    place = "Lin Wei: Yes, same apartment. You can all crash there on Saturday night."
    assert attribute_evidence(question, [place]) == 0.0
    assert attribute_evidence(question, ["Lin Wei: the wifi password is sunflower88"]) == 1.0


def test_a_cat_allergy_does_not_state_a_pet():
    # 猫 is a pet kind (its answer-type span), but the line says nothing of keeping one
    question = "张敏养了什么宠物？"
    assert attribute_evidence(question, ["张敏: 我对猫毛过敏，别穿沾了猫毛的衣服"]) == 0.0
    assert attribute_evidence(question, ["张敏: 我家养了一只橘猫"]) == 1.0
    assert attribute_evidence("Does Maria have any pets?", ["Maria: My dog Max loves it"]) == 1.0


def test_a_neighbour_stating_it_counts_less_and_an_unknown_attribute_is_no_evidence():
    question = "What is Lin Wei's new phone number?"
    texts = ["Lin Wei: the new one is 138-0013-8000.", "Lin Wei: my phone number changed"]
    assert attribute_evidence(question, texts) == pytest.approx(0.7)
    assert attribute_evidence("大家去哪座山爬山了？", ["张敏: 香山怎么样？"]) is None
