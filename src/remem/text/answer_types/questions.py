"""What kind of answer a question asks for, from its question words: English, Chinese
(Traditional read as Simplified), and the common Japanese and Korean question words.

Rules are tried in order, most specific first: "how much did it cost" is an amount before
"how much" is a number, "which company" an organisation before "which" anything, "what is
Priya's favourite movie" a film before "what" is unknown. A question none of them fits is
``None``: the caller then has no answer-type evidence, rather than a guess.
"""

from __future__ import annotations

import re
import unicodedata

from remem.text.answer_types.lexicon import KINDS
from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified

_KIND_CLASSES = {
    kind: "|".join(sorted(classes, key=len, reverse=True)) for kind, (classes, _) in KINDS.items()
}
_EN_CLASS = {
    kind: "|".join(w for w in words.split("|") if w.isascii())
    for kind, words in _KIND_CLASSES.items()
}
_ZH_CLASS = {
    kind: "|".join(w for w in words.split("|") if not w.isascii())
    for kind, words in _KIND_CLASSES.items()
}


def _any(*alternatives: str) -> str:
    """One pattern matching any of the alternatives (each a regular expression)."""
    return "|".join(alternatives)


def _zh(words: str) -> str:
    """A pattern matching any of the space-separated Chinese words."""
    return "|".join(sorted(words.split(), key=len, reverse=True))


_PLACE_NOUNS = (
    r"(?:city|cities|country|countries|town|state|place|restaurant|park|beach|mountain|lake|"
    r"island|neighbou?rhood|street|address|location|destination|venue|cafe|café|museum|hotel|"
    r"area|region|spot|trail|campsite)s?"
)
_ORG_NOUNS = (
    r"company|firm|employer|organi[sz]ation|startup|school|university|college|hospital|bank|"
    r"shelter|charity|team|club|brand|store|shop|agency|band"
)
_TIME_NOUNS = r"year|month|day|date|time|week|weekend|season|age"
_MONEY_VERBS = (
    r"cost|costs|pay|paid|spend|spent|price|charge|charged|rent|earn|earns|make|makes|worth|"
    r"money|salary|budget|fee|owe|sell|sold|buy|bought"
)
_RELATIONS = (
    r"friend|boss|partner|wife|husband|sister|brother|mother|father|mom|dad|son|daughter|"
    r"teacher|manager|coach|roommate|neighbou?r|doctor"
)
_AUX = (
    r"do|does|did|is|are|was|were|has|have|had|can|could|will|would|should|shall|may|might|"
    r"isn't|aren't|doesn't|didn't|won't|wouldn't|hasn't|haven't"
)

# (kind, pattern) in order; the English ones see the question lower-cased
_EN_RULES: list[tuple[str, str]] = [
    (
        "contact",
        _any(r"\b(?:phone|cell|mobile|telephone)(?: number)?\b", r"\be-?mail\b", r"\bwechat id\b"),
    ),
    (
        "code",
        _any(
            r"\bpassword\b",
            r"\bpasscode\b",
            r"\bpin\b",
            r"\bwi-?fi\b",
            r"\bip(?: address)?\b",
            r"\bcode\b",
        ),
    ),
    (
        "amount",
        _any(
            rf"\bhow much\b.*\b(?:{_MONEY_VERBS})\b",
            r"\b(?:what|which)(?: was| is)?(?: the)? (?:price|cost|salary|rent|fee|budget)\b",
            r"\b(?:price|cost|salary|rent|fee) of\b",
            r"\b(?:salary|wages?|rent|price|fees?|budget)\b",
        ),
    ),
    (
        "duration",
        _any(
            r"\bhow long\b(?! ago)",
            r"\bhow many (?:years|months|weeks|days|hours|minutes)\b.*\b(?:been|for|take|took|last|lasted|spend|spent)\b",
        ),
    ),
    (
        "time",
        _any(
            r"^\s*when\b",
            r"\bwhen (?:did|does|do|is|was|will|are|were|has|have|had)\b",
            r"\bwhat time\b",
            r"\bhow long ago\b",
            rf"\b(?:what|which) (?:{_TIME_NOUNS})\b",
            r"\bsince when\b",
        ),
    ),
    (
        "number",
        _any(
            r"\bhow (?:many|often|old|far|tall|big|much|high|heavy|fast)\b",
            r"\b(?:what|which) (?:\w+ )?(?:number|percentage|score|size|grade|version|floor)\b",
        ),
    ),
    (
        "reason",
        _any(
            r"\bwhy\b",
            r"\bwhat (?:was |is )?the reason\b",
            r"\bfor what reason\b",
            r"\bwhat (?:made|motivated|inspired|prompted|caused|led)\b",
            r"\bhow come\b",
        ),
    ),
    (
        "organisation",
        _any(
            rf"\b(?:which|what|whose) (?:\w+ )?(?:{_ORG_NOUNS})\b",
            r"\bwhere (?:does|did|do|is|was) [\w' ]{1,30} (?:work|study|intern)",
            r"\b(?:work|works|worked|working|intern) (?:at|for)\b",
        ),
    ),
    (
        "place",
        _any(
            r"\baddress\b",
            r"\bwhere\b",
            rf"\b(?:which|what) (?:\w+ ){{0,2}}(?:{_PLACE_NOUNS})\b",
            r"\b(?:what|which) part of\b",
        ),
    ),
    (
        "person",
        _any(
            r"\bwho(?:m|se)?\b",
            r"\bwhich (?:friend|person|people|colleague|coworker|relative|family member|sibling)\b",
            rf"\bwhat(?:'s| is| was) the name of (?:\w+'s )?(?:{_RELATIONS})\b",
            rf"\bwhat(?:'s| is| was)\b.*'s (?:{_RELATIONS})'s name\b",
        ),
    ),
    (
        "name",
        _any(
            r"\bwhat(?:'s| is| was) the name of\b",
            r"\bwhat(?:'s| is| was)\b.*'s (?:\w+ )?name\b",
            r"\bwhat (?:is|was|are) (?:\w+ )?(?:called|named)\b",
            r"\bfull name\b",
        ),
    ),
    ("pet", _any(r"\bwhat (?:kind of |type of |breed of )?(?:dog|cat|pet)s?\b", r"\bwhat breed\b")),
    *(
        (kind, rf"\b(?:what|which|favou?rite|kind of|type of|sort of)\b.*\b(?:{words})\b")
        for kind, words in _EN_CLASS.items()
    ),
    (
        "job",
        _any(
            r"\bwhat (?:does|do) [\w'. ]{1,40} do\s*\??$",
            r"\bdo for (?:a )?(?:living|work)\b",
            r"\bwork as\b",
            r"\b(?:what|which) (?:\w+ )?(?:position|role|title)\b",
        ),
    ),
    ("yes_no", rf"^\s*(?:{_AUX})\b"),
]

_ZH_RULES: list[tuple[str, str]] = [
    ("contact", _zh("电话 手机号 手机 号码 联系方式 微信号 邮箱")),
    ("code", _zh("密码 wifi wi-fi 口令 ip 验证码")),
    (
        "amount",
        _zh(
            "多少钱 几块钱 几毛 花了多少 多少块 价格 价钱 什么价 多贵 工资 薪水 月薪 年薪 房租 "
            "租金 费用 学费 预算 收入 挣多少 赚多少 卖多少 要多少 "
            # Cantonese (read as Simplified): how much money, how many dollars, what price
            "几多钱 几钱 几多蚊 几蚊 咩价 乜价"
        ),
    ),
    ("duration", _zh("多久 多长时间 多长 几个小时 几分钟 多少天 多少年 几耐 几长时间")),
    (
        "time",
        _zh(
            "什么时候 啥时候 哪天 哪一天 几号 几点 哪年 哪一年 几月 哪个月 何时 星期几 周几 "
            "礼拜几 什么日子 哪个周末 几时 边日 边一日 边年 边个月 边个礼拜 几点钟"
        ),
    ),
    (
        "number",
        _zh(
            "哪个版本 哪一版 什么版本 几楼 几个 几只 几次 几岁 几口 几家 几位 几人 几本 几年 "
            "几天 多少 多大 多高 多重 多远 几多 几"
        ),
    ),
    ("reason", _zh("为什么 为啥 为何 干嘛 怎么会 什么原因 原因是 凭什么 怎么突然 点解 咩原因")),
    ("vehicle", _zh("什么牌子的车 哪个牌子的车 什么车 哪款车 哪辆车 什么型号的车")),
    (
        "organisation",
        _zh(
            "哪家公司 哪个公司 什么公司 哪家单位 什么单位 哪所 哪间 什么学校 哪个学校 哪个大学 "
            "什么大学 哪个医院 什么牌子 哪个牌子 哪个品牌 什么品牌 在哪上班 在哪工作 在哪里上班 "
            "在哪里工作 在哪儿上班 在哪读书 在哪上学 公司叫 公司名 哪家 "
            "边间公司 边间学校 边间大学 边间 边度返工 边度做嘢 边度上班 边度读书 咩公司"
        ),
    ),
    (
        "place",
        _zh(
            "哪里 哪儿 哪裡 在哪 去哪 住哪 什么地方 啥地方 哪个城市 哪座城市 哪座山 哪个国家 "
            "哪个省 哪条路 哪个区 哪片 哪个景点 地址 什么山 什么城市 哪个地方 何处 哪座 "
            "哪个小区 哪一带 哪个位置 "
            "边度 边处 喺边 去咗边 边个区 边个地方 咩地方 乜地方"  # not 去边 (去边境)
        ),
    ),
    ("person", _zh("谁 哪位 哪个人 哪个朋友 哪个同事 叫什么名字 边个 边位")),
    ("name", _zh("叫什么 名字 全名 咩名 乜名")),  # not a bare 叫咩: 叫 also orders food
    ("sport", _zh("打什么球 踢什么球 什么球")),
    ("pet", _zh("什么狗 什么猫 哪种狗 哪种猫 什么品种")),
    *(
        (
            kind,
            _any(
                rf"(?:什么|啥|哪部|哪本|哪首|哪个|哪种|哪款|哪支|最喜欢|最爱|喜欢的).{{0,6}}(?:{words})",
                rf"(?:{words}).{{0,3}}(?:是什么|叫什么|是哪)",
            ),
        )
        for kind, words in _ZH_CLASS.items()
    ),
    (
        "job",
        _zh(
            "什么职位 什么岗位 做什么工作 干什么的 做什么的 什么工作 职业 从事 "
            "做咩工 做咩嘢工 做边行 咩工作 咩职位"
        ),
    ),
    (
        "yes_no",
        _any(
            r"吗[？?。!！]*$",
            _zh(
                "是不是 有没有 会不会 能不能 是否 可不可以 对不对 要不要 好不好 去没去 "
                "系咪 有冇 会唔会 可唔可以 得唔得 啱唔啱 要唔要 好唔好 去唔去 仲有冇"
            ),
            r"[嗎麼][？?]*$",
        ),
    ),
]

# Japanese and Korean question words (the forms remem.text already reads for these scripts)
_JA_KO_RULES: list[tuple[str, str]] = [
    ("amount", r"いくら|値段|얼마"),
    ("time", r"いつ|何時|何日|何月|언제|몇 시|며칠"),
    ("duration", r"どのくらい|どれくらい|얼마나 오래"),
    ("number", r"何人|何回|いくつ|何歳|몇"),
    ("reason", r"なぜ|どうして|なんで|왜"),
    ("place", r"どこ|어디"),
    ("person", r"誰|だれ|누구|누가"),
    ("yes_no", r"ですか[？?]*$|ますか[？?]*$|까[？?]*$"),
]


def _compiled(rules: list[tuple[str, str]]) -> list[tuple[str, re.Pattern[str]]]:
    return [(kind, re.compile(pattern)) for kind, pattern in rules]


_EN = _compiled(_EN_RULES)
_ZH = _compiled(_ZH_RULES)
_JA_KO = _compiled(_JA_KO_RULES)
_HAN = lazy_compile(r"[\u3400-\u9fff]")
_KANA_HANGUL = lazy_compile(r"[\u3040-\u30ff\uac00-\ud7af]")


def asked_type(question: str) -> str | None:
    """What kind of answer the question asks for: one of ``ANSWER_TYPES``, or None when no
    rule fits (a question with no question word, a "what did they talk about")."""
    text = unicodedata.normalize("NFKC", question).strip()
    if _KANA_HANGUL.search(text):
        rules = _JA_KO
    elif _HAN.search(text):
        text = to_simplified(text).lower()
        rules = _ZH
    else:
        text = text.lower().replace("’", "'")
        rules = _EN
    for kind, pattern in rules:
        if pattern.search(text):
            return kind
    return None
