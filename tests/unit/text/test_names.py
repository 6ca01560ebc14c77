"""Names without an LLM: a speaker label's aliases and which labels a query names."""

from __future__ import annotations

import pytest

from remem.text.names import alias_table, aliases, find_names

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
