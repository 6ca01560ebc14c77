"""The asked attribute (issue 45): which attribute of its subject a question asks for, and
whether a line states that attribute at all.

An answer-type span is not enough: "What's the wifi password at Lin Wei's place?" hits Lin
Wei's "same apartment" line, which is about his place but says no password; "张敏养了什么宠物？"
hits her cat-allergy line, which names a cat (a pet kind) but not as a pet she keeps. A line
that answers states the attribute: it carries the attribute's head word or one of its family
("password", "密码", "wifi"; "养", "宠物", "my dog"), not only a value that could be one.

``ATTRIBUTES`` is the one table: an attribute family, the words a question asks for it by, and
the words a line states it by (English and Chinese; Traditional folded to Simplified before
matching). A question none of them fits asks for no known attribute: no evidence either way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from remem.text.normalize import to_simplified

# a neighbour states the attribute for the hit less surely than the hit itself (the same
# weight the answer-type spans give a neighbour, ``evidence.NEIGHBOUR_WEIGHT``)
NEIGHBOUR_WEIGHT = 0.7
_I = re.IGNORECASE


@dataclass(frozen=True)
class Attribute:
    name: str
    asked: re.Pattern[str]  # a question asks for the attribute by these words
    stated: re.Pattern[str]  # a line states it by these


def _attribute(name: str, asked: str, stated: str) -> Attribute:
    return Attribute(name, re.compile(asked, _I), re.compile(stated, _I))


_PET_KINDS = r"dogs?|cats?|pupp(?:y|ies)|kittens?|hamsters?|rabbits?|bunny|parrots?|turtles?"
# In order, most specific first: a question takes the first attribute it asks for
ATTRIBUTES: tuple[Attribute, ...] = (
    _attribute(
        "code",
        r"\bpass(?:word|code)\b|\bpin\b|\bwi-?fi\b|密码|口令|wifi",
        r"\bpass(?:word|code)\b|\bpin\b|\bwi-?fi\b|密码|口令|wifi",
    ),
    _attribute(
        "contact",
        r"\b(?:phone|mobile|cell|landline|telephone)\b|\be-?mail\b|\bwechat\b|\btelegram\b|"
        r"\bhandle\b|电话|手机|号码|邮箱|微信|联系方式",
        r"\b(?:phone|mobile|cell|landline|telephone|number|call|text)\b|\be-?mail\b|@|"
        r"\bwechat\b|\btelegram\b|\bhandle\b|电话|手机|号码|号是|邮箱|微信|联系",
    ),
    _attribute(
        "pet",
        r"\bpets?\b|宠物|养了?(?:什么|几|哪)|养的(?:是|什么)",
        rf"\bpets?\b|\badopt\w*|\b(?:my|our|his|her|their) (?:new |little |old )?(?:{_PET_KINDS})\b|"
        rf"\b(?:{_PET_KINDS})(?:'s| is) (?:name|called|named)|宠物|领养|收养|"
        r"养(?:了|着|的|只|条|一|两|猫|狗|鱼|鸟)|在养|(?:我|他|她|我们|他们)家的?(?:猫|狗)|"
        r"(?:我|他|她)的(?:猫|狗)",
    ),
    _attribute(
        "allergy",
        r"\ballerg\w*|过敏",
        r"\ballerg\w*|过敏",
    ),
    _attribute(
        "favourite",
        r"\bfavou?rite\b|最喜欢|最爱|最喜爱",
        r"\bfavou?rite\b|\blove[sd]?\b|\bbest\b|\bobsessed\b|最喜欢|最爱|最喜爱|喜欢|爱看|爱吃|"
        r"爱听|爱喝|爱玩",
    ),
    _attribute(
        "pay",
        r"\b(?:salary|earn\w*|paid|pay|rent|cost\w*|price|how much)\b|工资|月薪|年薪|薪水|"
        r"收入|房租|租金|多少钱|花了多少|价格",
        r"\b(?:salary|earn\w*|paid|pay\w*|rent|cost\w*|price\w*|bucks?|dollars?|grand|k)\b|"
        r"[$€£¥￥]|工资|月薪|年薪|薪|收入|房租|租金|钱|块|元|万|价",
    ),
    _attribute(
        "study",
        r"\b(?:stud(?:y|ies|ied|ying)|university|college|school|degree|major|graduat\w*)\b|"
        r"毕业|大学|学校|专业|读书|上学|读研|读博|小学|中学",
        r"\b(?:stud(?:y|ies|ied|ying)|university|college|school|degree|major|graduat\w*|"
        r"class|student)\b|毕业|大学|学校|专业|读书|上学|读研|读博|小学|中学|学院|入学",
    ),
    _attribute(
        "work",
        r"\b(?:work\w*|job|employer|company|occupation|profession|boss|manager|colleague)\b|"
        r"do for a living|公司|上班|工作|职位|单位|岗位|领导|老板|同事|工号",
        r"\b(?:work\w*|job|employer|company|hired|joined|position|role|office|boss|manager|"
        r"colleague|team|promot\w*|quit)\b|公司|上班|工作|入职|跳槽|职位|单位|岗位|领导|老板|"
        r"同事|工号|辞职|升职",
    ),
    _attribute(
        "home",
        r"\b(?:live|lives|living|lived|reside\w*|address|based|hometown|neighbou?rhood)\b|"
        r"住|家在|地址|老家",
        r"\b(?:live|lives|living|lived|reside\w*|address|based|hometown|neighbou?rhood|moved?|"
        r"moving|apartment|flat|house|home)\b|住|搬|家在|地址|老家|新家",
    ),
    _attribute(
        "name",
        r"\bname\b|\bcalled\b|叫什么|名字",
        r"\bnamed?\b|\bcalled\b|叫|名字|取名|起名",
    ),
)
_BY_NAME = {a.name: a for a in ATTRIBUTES}


def asked_attribute(question: str) -> str | None:
    """The attribute family ``question`` asks for ("wifi password" -> ``"code"``, "养了什么宠物"
    -> ``"pet"``); None when it asks for none the table knows."""
    folded = to_simplified(question)
    for attribute in ATTRIBUTES:
        if attribute.asked.search(folded):
            return attribute.name
    return None


def states(text: str, attribute: str) -> bool:
    """Whether ``text`` carries a word that states that attribute."""
    return _BY_NAME[attribute].stated.search(to_simplified(text)) is not None


def attribute_evidence(question: str, texts: Sequence[str]) -> float | None:
    """Evidence in [0, 1] that one of ``texts`` (the hit first, then its neighbours) states the
    attribute ``question`` asks for: 1.0 when the hit does, ``NEIGHBOUR_WEIGHT`` when only a
    neighbour does, 0.0 when none does (evidence against answering, however well the lines
    match the subject); None when the question asks for no attribute the table knows."""
    attribute = asked_attribute(question)
    if attribute is None:
        return None
    for i, text in enumerate(texts):
        if states(text, attribute):
            return 1.0 if i == 0 else NEIGHBOUR_WEIGHT
    return 0.0
