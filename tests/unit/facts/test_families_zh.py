"""Chinese: every attribute family, Simplified, Traditional and Cantonese, first and third
person, negation (issue 48). Values keep the script they were written in."""

from __future__ import annotations

import pytest

from unit.facts.reading import facts

W = "王芳"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我搬到成都了。", {(W, "lives_in", "成都", "assert")}),
        ("我现在住在成都高新区。", {(W, "lives_in", "成都高新区", "assert")}),
        ("我上个月搬去深圳了。", {(W, "lives_in", "深圳", "assert")}),
        ("刚在深圳南山租了房子。", {(W, "lives_in", "深圳南山", "assert")}),
        ("我搬到台北了，住大安區。", {(W, "lives_in", "台北大安區", "assert")}),
        ("我而家住喺多倫多。", {(W, "lives_in", "多倫多", "assert")}),
        ("我在一家游戏公司上班。", {(W, "works_at", "一家游戏公司", "assert")}),
        (
            "我在大疆做遥感算法工程师。",
            {(W, "works_at", "大疆", "assert"), (W, "role", "遥感算法工程师", "assert")},
        ),
        ("我在复旦读研。", {(W, "studies_at", "复旦", "assert")}),
        ("我係物理治療師。", {(W, "role", "物理治療師", "assert")}),
        ("林琳是我女朋友。", {(W, "partner", "林琳", "assert")}),
        ("我养了一只柯基，叫豆豆。", {(W, "pet", "豆豆", "assert")}),
        ("我養了一隻柴犬叫麻糬。", {(W, "pet", "麻糬", "assert")}),
        ("我喜欢打网球。", {(W, "likes", "网球", "assert")}),
        ("我讨厌香菜。", {(W, "dislikes", "香菜", "assert")}),
        ("我最爱吃火锅。", {(W, "favourite.food", "火锅", "assert")}),
        (
            "我最喜欢的书是《额尔古纳河右岸》。",
            {(W, "favourite.book", "《额尔古纳河右岸》", "assert")},
        ),
        ("我买了比亚迪海豹。", {(W, "owns", "比亚迪海豹", "assert")}),
        ("我對花生過敏。", {(W, "allergic_to", "花生", "assert")}),
        (
            "我有慢性胃炎，不能吃辣。",
            {(W, "health", "慢性胃炎", "assert"), (W, "diet", "不吃辣", "assert")},
        ),
        ("我的新号码是 186 5566 7788。", {(W, "contact.phone", "186 5566 7788", "assert")}),
        ("我的微信号是 zhangwei_502。", {(W, "contact.wechat", "zhangwei_502", "assert")}),
        ("我的邮箱是 hl.reads@qq.com。", {(W, "contact.email", "hl.reads@qq.com", "assert")}),
    ],
)
def test_first_person_families(text, expected):
    assert facts(text, speaker=W) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("李明现在住在成都。", {("李明", "lives_in", "成都", "assert")}),
        ("汤姆在腾讯上班。", {("汤姆", "works_at", "腾讯", "assert")}),
        (
            "赵磊升任产品总监了。",
            {("赵磊", "role", "产品总监", "assert"), ("产品总监", "held_by", "赵磊", "assert")},
        ),
        ("刘洋的女朋友叫林琳。", {("刘洋", "partner", "林琳", "assert")}),
        ("林曉搬去台北了。", {("林曉", "lives_in", "台北", "assert")}),
        ("我妈住在长沙。", {("周洋's mother", "lives_in", "长沙", "assert")}),
    ],
)
def test_third_person(text, expected):
    assert facts(text, speaker="周洋") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我不在奥美上班了。", {(W, "works_at", "奥美", "negate")}),
        ("我不在那家公司上班了。", {(W, "works_at", None, "negate")}),
        ("我已经离职了。", {(W, "works_at", None, "negate")}),
        ("我已經不住台中了。", {(W, "lives_in", "台中", "negate")}),
        ("我跟小雅分手了。", {(W, "partner", "小雅", "negate")}),
        ("朗逸卖了。", {(W, "owns", "朗逸", "negate")}),
        ("我不打羽毛球了。", {(W, "likes", "羽毛球", "negate")}),
        ("我已經唔喺醫管局做。", {(W, "works_at", "醫管局", "negate")}),
    ],
)
def test_negations_close_without_a_new_value(text, expected):
    assert facts(text, speaker=W) == expected


def test_clauses_that_leave_the_subject_out_follow_the_person_the_sentence_opens_with():
    assert facts("奶奶摔了一跤，现在住在湘雅医院骨科，17 床", speaker="妈妈") == {
        ("妈妈's grandmother", "lives_in", "湘雅医院骨科", "assert")
    }
    assert facts("吴昊辞职了，现在自己接单。", speaker="老钱") == {
        ("吴昊", "works_at", None, "negate"),
        ("吴昊", "role", "自由职业", "assert"),
    }


def test_a_job_title_before_the_speakers_name():
    assert facts("大家好，我是新来的产品经理赵磊，负责会员系统", speaker="赵磊") == {
        ("赵磊", "role", "产品经理", "assert")
    }


def test_i_after_a_conjunction_is_the_speaker():
    assert facts("肩膀好了，但我改打网球了，报了个网球班", speaker="郑凯") == {
        ("郑凯", "likes", "网球", "assert")
    }
    assert facts("打！我还是每周日在奥体打羽毛球", speaker="郑凯") == {
        ("郑凯", "likes", "羽毛球", "assert")
    }


@pytest.mark.parametrize(
    "text",
    [
        "团建定了：7 月 25 号到 26 号，惠州双月湾，住海边民宿",  # a stay, not a home
        "我們 2 月 14 號從桃園飛長沙，住到 22 號",
        "入职第三天，甲方的节奏好慢",  # a time, not an employer
        "我在深圳工作两年了",  # a city, not an employer
        "我去年做财务",  # 去年 is last year: its 年 was read as an employer
        "买了两瓶钙尔奇，寄到家里了",  # bought to use up, not owned
    ],
)
def test_look_alikes_that_are_not_facts(text):
    assert facts(text, speaker=W) == set()


def test_a_partner_who_is_a_job_is_not_a_name():
    assert facts("我老公是医生，在华西医院心内科", speaker="陈老师") == {
        ("陈老师's husband", "role", "医生", "assert")
    }


def test_a_place_word_after_the_place_is_dropped():
    assert facts("我现在住朝阳国贸那边", speaker="苏晴") == {
        ("苏晴", "lives_in", "朝阳国贸", "assert")
    }


def test_cantonese_we_and_a_latin_employer():
    assert facts("我哋搬咗去深圳", speaker="何家豪") == {("何家豪", "lives_in", "深圳", "assert")}
    assert facts("我而家喺Google做工程師", speaker="何家豪") == {
        ("何家豪", "works_at", "Google", "assert"),
        ("何家豪", "role", "工程師", "assert"),
    }
    assert facts("佢喺騰訊返工", speaker="何家豪") == set()  # 佢 (he) with nobody named before


def test_a_favourite_of_a_kind_is_no_liking_of_its_words():
    """ "我最喜欢的水果是芒果" is a favourite fruit, not a liking of "的水果是芒果"."""
    assert facts("我最喜欢的水果是芒果。", "王芳") == {
        ("王芳", "favourite.fruit", "芒果", "assert")
    }
    assert facts("我最喜欢的季节是秋天", "王芳") == {("王芳", "favourite.season", "秋天", "assert")}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我在一家游戏公司上班，星辰科技", {(W, "works_at", "星辰科技", "assert")}),
        (
            "还在那家广告公司，奥美上海，做文案",
            {(W, "works_at", "奥美上海", "assert"), (W, "role", "文案", "assert")},
        ),
        ("我在一家外企工作，西門子", {(W, "works_at", "西門子", "assert")}),
        ("我在一家游戏公司上班。", {(W, "works_at", "一家游戏公司", "assert")}),  # no name
        ("我在一家公司上班，挺累的", {(W, "works_at", "一家公司", "assert")}),
        ("我在一家公司上班，离家近", {(W, "works_at", "一家公司", "assert")}),
        ("很高兴作为新来的设计师加入大家", {(W, "role", "设计师", "assert")}),
        ("我以实习生的身份加入了团队", {(W, "role", "实习生", "assert")}),
    ],
)
def test_an_employer_named_after_its_description_and_a_role_joined_as(text, expected):
    assert facts(text, W) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a move told with where it is from, a flat rented, a transfer to a city
        ("我这周搬家了，从龙华搬到了南山科技园附近。", {(W, "lives_in", "南山科技园", "assert")}),
        ("搬家了！在顺义后沙峪租了个两居。", {(W, "lives_in", "顺义后沙峪", "assert")}),
        (
            "我下个月被公司调去上海。",
            {(W, "lives_in", "上海", "assert"), (W, "plan", "搬去上海 (2026-12-01)", "assert")},
        ),
    ],
)
def test_moves_from_a_place_rented_flats_and_transfers(text, expected):
    assert facts(text, W) == expected


def test_a_transfer_dated_in_the_next_clause_takes_effect_that_day():
    from unit.facts.reading import day, read

    found = {s.attribute: s for s in read("定了，公司调我去成都工作室，7 月 15 号搬过去", W)}
    assert found["lives_in"].value == "成都"
    assert found["lives_in"].valid_from == day("2027-07-15")
    assert read("公司调我去成都出差，挺累的", W) == []  # a trip, not a move
