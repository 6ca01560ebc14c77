"""Names without an LLM: a speaker label's aliases and which labels a query names."""

from __future__ import annotations

import pytest

from remem.text.names import alias_table, aliases, find_names, introduced_names

HIKE = ["何家豪", "刘洋", "周婷婷", "林佩珊", "王小明", "群助手", "赵磊", "阿杰", "陈思远"]
FAMILY = ["张建国", "张晓东", "张晓雨", "李秀兰"]


@pytest.mark.parametrize(
    ("query", "labels", "expected"),
    [
        ("Where does Xiaoming live now?", HIKE, {"王小明"}),
        ("What drone does Lao Zhao fly?", HIKE, {"赵磊"}),
        ("What drone does laozhao fly?", HIKE, {"赵磊"}),
        ("Which company did Peishan join?", HIKE, {"林佩珊"}),
        ("Which trail does Liu Yang dream of?", HIKE, {"刘洋"}),
        ("老赵用的是什么型号的航拍飞机？", HIKE, {"赵磊"}),
        ("家豪以后要调去哪里工作？", HIKE, {"何家豪"}),
        ("王小明住哪里？", HIKE, {"王小明"}),
        ("东东说他的论文什么时候截止？", FAMILY, {"张晓东"}),
        ("How late was Dong's flight?", FAMILY, {"张晓东"}),
        ("阿静在新加坡说了什么？", ["苏晴", "许静怡"], {"许静怡"}),
        ("What size dress does Su Qing wear?", ["苏晴", "许静怡"], {"苏晴"}),
        ("Daniel 说了什么？", ["Daniel Tan", "孙浩"], {"Daniel Tan"}),
        ("When did caroline paint?", ["Caroline", "Melanie"], {"Caroline"}),
        ("How long is the trail?", HIKE, set()),  # "long" is no name
        ("Dong flew home late", FAMILY, set()),  # a capital at the start proves nothing
    ],
)
def test_find_names(query, labels, expected):
    assert set(find_names(query, alias_table(labels))) == expected


def test_shared_alias_names_nobody():
    # 张晓东 and 张晓雨 are both "老张" and "Xiao"; a label's own text still names it
    table = alias_table(FAMILY)
    assert find_names("老张去哪了？", table) == {}
    assert set(find_names("张晓雨去哪了？", table)) == {"张晓雨"}


def test_label_that_is_another_persons_nickname():
    # 小明 is its own speaker here: the text 小明 names them, not 王小明
    assert set(find_names("小明说了什么", alias_table(["王小明", "小明"]))) == {"小明"}


def test_aliases_of_a_chinese_name():
    texts = {a.text for a in aliases("王小明")}
    assert {"王小明", "小明", "老王", "xiaoming", "wang xiaoming", "xiaoming wang"} <= texts
    assert "小小" not in texts  # 小 is a diminutive, not a name character


def test_no_surname_no_nicknames():
    assert {a.text for a in aliases("群助手")} == {"群助手", "qunzhushou", "qun zhu shou"}


def test_capital_single_syllable_first_in_a_chinese_question():
    # "Dong" opening an English sentence proves nothing; opening a Chinese question it names
    assert set(find_names("Dong 的航班晚了多久？", alias_table(FAMILY))) == {"张晓东"}


def test_introduced_names_from_what_people_say_they_are_called():
    assert introduced_names("欢迎小明！我是 Tina") == ["Tina"]
    assert introduced_names("大家新年好！我是群主 Leo，今年继续带大家爬山 [表情]") == ["Leo"]
    assert introduced_names("Welcome! I'm Kelvin, 香港人，週末先上嚟行山") == ["Kelvin"]
    assert introduced_names("我叫林子轩，英文名 Ethan，在广州天河上班") == ["Ethan"]
    assert introduced_names("叫我 Tina 就好") == ["Tina"]
    assert introduced_names("Hi all, my name is Anna Lee.") == ["Anna Lee"]
    assert introduced_names("I’m Ho Ka-ho.") == ["Ho Ka-ho"]


def test_introduced_names_leave_out_what_is_no_self_introduction():
    assert introduced_names("大家好，我是 Leo 的朋友阿杰，今天第一次跟团") == []  # Leo's friend
    assert introduced_names("我是Tina的妈妈") == []
    assert introduced_names("I'm so nervous") == []  # not capitalised
    assert introduced_names("I'll remember it when I'm back in September") == []
    assert introduced_names("I'm Back!") == [] and introduced_names("I'm Chinese, lol") == []
    assert introduced_names("I'm Kelvin's sister") == []


def test_an_introduced_name_is_an_alias_of_its_speaker_unless_two_share_it():
    table = alias_table(["周婷婷", "何家豪"], {"周婷婷": ["Tina"], "何家豪": ["Kelvin"]})
    assert find_names("How did Tina hurt herself?", table) == {"周婷婷": "tina"}
    assert find_names("Kelvin 在群里找人帮什么忙？", table) == {"何家豪": "kelvin"}
    shared = alias_table(["周婷婷", "许静怡"], {"周婷婷": ["Tina"], "许静怡": ["Tina"]})
    assert find_names("How did Tina hurt herself?", shared) == {}
    # a name someone else goes by as their label stays theirs; a label not in scope adds none
    labelled = alias_table(["Tina", "周婷婷"], {"周婷婷": ["Tina"], "王强": ["Leo"]})
    assert find_names("Where is Tina?", labelled) == {"Tina": "tina"}
    assert find_names("Where is Leo?", labelled) == {}
    assert introduced_names("8. **I Am Legend** (2007) - a sci-fi film") == []
    assert introduced_names('7. **"I\'m Dying Up Here: Heartbreak"** by William Knoedelseder') == []


ACCEPTED = [
    "欢迎小明！我是 Tina",
    "大家新年好！我是群主 Leo，今年继续带大家爬山 [表情]",
    "我是Tina呀",
    "我係 Kelvin",
    "Welcome! I'm Kelvin, 香港人",
    "我叫林子轩，英文名 Ethan，在广州天河上班",
    "叫我 Tina 就好",
    "Hi all, my name is Anna Lee.",
    "My name’s Tina",
    "Call me Tina.",
    "IM Tina",
    "I’m Ho Ka-ho.",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_every_introduction_found_is_a_line_the_store_is_asked_for(text):
    from remem.store.memory.dashboard import _regex
    from remem.text.names import INTRODUCTION_PATTERNS

    assert introduced_names(text)
    assert any(_regex(p).search(text) for p in INTRODUCTION_PATTERNS)


@pytest.mark.parametrize(
    "text",
    [
        "I’m Fine Thanks!",
        "I am Not Sure.",
        "I am So Excited!!",
        "I am Happy!",
        "I'm Coming!",
        "我叫Uber了",  # ordered a car
        "他叫我 Review 一下",  # asked me to review
        "我係Central等你",  # Cantonese: I'm at Central
    ],
)
def test_common_words_after_i_am_are_no_names(text):
    assert introduced_names(text) == []


def test_a_one_word_introduced_name_counts_only_capitalised():
    table = alias_table(["周婷婷", "苏晴"], {"苏晴": ["Sunny"]})
    assert find_names("What is Sunny's new job?", table) == {"苏晴": "sunny"}
    assert find_names("Was it sunny on the hike?", table) == {}
    # an alias text two labels share names neither, whatever its case rule
    both = alias_table(["Sunny Li", "苏晴"], {"苏晴": ["Sunny"]})
    assert find_names("What is Sunny's new job?", both) == {}


def test_the_store_is_asked_for_every_trigger_word():
    from remem.store.memory.dashboard import _regex
    from remem.text.names import _EN_TRIGGERS, INTRODUCTION_PATTERNS

    for trigger in _EN_TRIGGERS:
        line = f"Hello! {trigger} Tina."
        assert introduced_names(line) == ["Tina"], line
        assert any(_regex(p).search(line) for p in INTRODUCTION_PATTERNS), line
