"""How English and Chinese say facts about things, groups and roles (issue 48): the WiFi's
password, the staging server's address, the stand-up's time, where the book club meets, the
day a release is set for, what the rent is, who leads the team. The subject is the thing
(the ``thing`` group, keyed by ``model.thing_subject``), not a person; a rule of ``held_by``
has the role as its thing and the person holding it as its value ("I" / "我" there is the
speaker, ``extract`` fills the name in).

The rules ask for the value's own shape (an IP or URL, a clock time, a date, an amount, a
token after "password") so that a thing's name is read only where the sentence says the
value outright; the Chinese rules run on the text ``rules_zh.fold`` folds, as the others do.
"""

from __future__ import annotations

import re

from remem.facts.rule import Rule, rule
from remem.facts.rules_en import NAME
from remem.facts.rules_zh import NAME as NAME_ZH

_I = re.IGNORECASE
# ------------------------------------------------------------------ values by their shape
_ADDRESS = (
    r"(?P<value>\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?|https?://[^\s，,。；;]+[^\s，,。；;.]|"
    r"[\w-]+(?:\.[\w-]+)*\.(?:internal|local|lan|com|net|org|io|cn|dev|app))"
)
_TOKEN = (
    r"(?P<value>[\x21-\x7e]*[A-Za-z0-9][\x21-\x7e]*?)"
    r"(?=[.,;!?]*(?:\s|$)|[，。；！？、）)])"
)
_CLOCK_EN = r"(?P<value>\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2})"
_CLOCK_ZH = (
    r"(?P<value>\d{1,2}[:：]\d{2}|[0-9一二三四五六七八九十两]{1,3}\s*点(?:半|[0-9一二三四五六七八九十]"
    r"{1,3}分?|整)?)"
)
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"
)
_DATE_EN = (
    rf"(?P<value>{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:\s*(?:-|–|to)\s*\d{{1,2}}(?:st|nd|rd|th)?\b)?|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH})"
)
_NUM_ZH = r"[0-9一二三四五六七八九十]{1,3}"
_DATE_ZH = (
    rf"(?P<value>(?:明年|今年|下个?月)?{_NUM_ZH}\s*月\s*{_NUM_ZH}(?:\s*[-到至~～]\s*{_NUM_ZH})?\s*[号日]|"
    rf"{_NUM_ZH}\s*[号日](?:\s*[-到至~～]\s*{_NUM_ZH}\s*[号日])?|(?:明年|今年)?(?:春节|国庆|五一|元旦|中秋)|"
    r"下(?:个)?(?:周|星期|礼拜)[一二三四五六日天])"
)
_MONEY_EN = (
    r"(?P<value>[$€£¥]\s?\d[\d,]*(?:\.\d+)?k?|\d[\d,]*(?:\.\d+)?\s*(?:dollars|euros|pounds|"
    r"usd|eur|gbp|rmb|yuan|bucks)\b)"
)
_MONEY_ZH = r"(?P<value>\d[\d,.]*\s*(?:万|千|k|K)?\s*(?:块钱|块|元|rmb|RMB)?)"

# ------------------------------------------------------------------ things by kind
_CLAUSE = r"(?:^|(?<=[,:;!]\s)|(?<=\bso\s)|(?<=\band\s))"
_THING_EN = r"(?:(?:the|our|my|your|their|this)\s+)?(?:new\s+)?"
_HEAD_EN = r"[A-Za-z][\w.-]*(?:\s+[A-Za-z][\w.-]*)?"  # one or two words: "wifi", "staging server"
_EVENT_EN = (
    r"(?:(?:daily|weekly|morning|monthly|team|book|running|chess)\s+)?(?:stand-?up|meeting|sync|"
    r"class|practice|rehearsal|training|retro|check-?in|meetup|session|club|service|dinner|"
    r"call|lesson|game)s?"
)
_GROUP_EN = (
    r"(?:[A-Za-z][\w-]*\s+){0,2}?(?:club|group|team|class|meetup|stand-?up|meeting|choir|band|"
    r"society|circle|session|service|league|crew)"
)
_ROLE_EN = (
    r"(?:[\w-]+\s+){0,2}?(?:lead|leader|head|manager|organi[sz]er|captain|owner|coordinator|"
    r"host|chair|admin|on-?call)"
)
_DAYS = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mondays|Tuesdays|Wednesdays|Thursdays|Fridays|Saturdays|Sundays)\b"
_PLACE_VALUE = (
    rf"(?P<value>[A-Z0-9][\w'&-]*(?:\s+(?:&\s+|of\s+|de\s+|on\s+)?(?!{_DAYS})[A-Z0-9][\w'&-]*)*)"
)
_CHANGED_EN = (
    r"(?:is\s+now|now\s+is|is\s+still|will\s+be|is|'s|was|has\s+changed\s+to|changed\s+to|is\s+changing\s+to|"
    r"moves?\s+to|moved\s+to|is\s+moving\s+to|has\s+moved\s+to|got\s+changed\s+to)"
)
_SHIFT_EN = (
    r"(?:is|'s|is\s+now|will\s+be|moves|moved|is\s+moving|has\s+moved|slips|slipped|was\s+pushed|"
    r"is\s+pushed|got\s+pushed|is\s+set|is\s+scheduled|is\s+booked|is\s+planned|was\s+moved|"
    r"is\s+postponed|was\s+postponed|is\s+brought\s+forward)"
)

_START_ZH = (
    r"(?:^|(?<=[，,。！!；;：:\s])|(?<=另外|对了|还有|然后|所以|其实|通知|顺便|更正)|(?<=说一下)|"
    r"(?<=通知一下))"
)
_THING_ZH = (
    r"(?P<thing>[A-Za-z][A-Za-z0-9_.\-]*(?:\s*(?:服务器|环境|数据库|后端|前端|网站|账号|系统|版本))?|"
    r"[\u4e00-\u9fff]{2,8}?)"
)
_EVENT_ZH = (
    r"(?P<thing>(?:每天的?|每周的?|日常)?[\u4e00-\u9fffA-Za-z]{0,3}?(?:站会|例会|周会|晨会|会议|开会|"
    r"集合|聚餐|聚会|活动|训练|上课|读书会|比赛|面试|排练|值班))"
)
_NAMES_ZH = r"(?P<value>(?:[\u4e00-\u9fff]{2,3}?|[A-Z][a-z]+)(?:(?:和|跟|、)(?:[\u4e00-\u9fff]{1,3}?|[A-Z][a-z]+))?)"
_SHIFT_ZH = r"(?:推迟到|推到|改到|改成|改在|提前到|定在|定了|延期到|挪到|延到|调到|换到|改为)"

RULES_EN: list[Rule] = [
    # -------------------------------------------------------------- passwords
    rule(
        rf"(?:^|(?<=\s))(?P<thing>{_THING_EN}{_HEAD_EN})(?:'s)?\s+password\s*(?:{_CHANGED_EN}|:|=)\s*"
        + _TOKEN,
        "password",
        flags=_I,
    ),
    rule(
        rf"\b(?:changed|set|updated|reset)\s+(?P<thing>{_THING_EN}{_HEAD_EN})\s+password\s+to\s+"
        + _TOKEN,
        "password",
        flags=_I,
    ),
    rule(
        rf"\bpassword\s+(?:for|of)\s+(?P<thing>{_THING_EN}{_HEAD_EN})\s+{_CHANGED_EN}\s*:?\s*"
        + _TOKEN,
        "password",
        flags=_I,
    ),
    # -------------------------------------------------------------- addresses
    rule(
        rf"(?:^|(?<=\s))(?P<thing>{_THING_EN}{_HEAD_EN})(?:'s)?\s+(?:new\s+)?(?:IP|URL|address|host|"
        rf"IP\s+address)\s*(?:{_CHANGED_EN}|:)\s*{_ADDRESS}",
        "address",
        flags=_I,
    ),
    rule(
        rf"{_CLAUSE}(?P<thing>{_THING_EN}{_HEAD_EN})\s+(?:is\s+now\s+at|now\s+lives\s+at|moved\s+to|"
        rf"has\s+moved\s+to|is\s+moving\s+to|is\s+at|lives\s+at|runs\s+(?:on|at))\s+{_ADDRESS}",
        "address",
        0.85,
    ),
    # -------------------------------------------------------------- the time of a thing
    rule(
        rf"{_CLAUSE}(?P<thing>{_THING_EN}{_EVENT_EN})\s+(?:{_SHIFT_EN}|starts|now\s+starts|begins|"
        rf"happens)\s+(?:back\s+|forward\s+)?(?:at|to|for)\s+{_CLOCK_EN}",
        "time",
        0.85,
        flags=_I,
    ),
    # -------------------------------------------------------------- where a group meets
    rule(
        rf"{_CLAUSE}(?P<thing>{_THING_EN}{_GROUP_EN})\s+(?:now\s+)?(?:meets|meet|is\s+meeting|"
        rf"will\s+meet|is\s+held|happens|takes\s+place|moves|moved|is\s+moving|has\s+moved)\s+"
        rf"(?:now\s+)?(?:at|in|to)\s+{_PLACE_VALUE}",
        "place",
        0.85,
    ),
    rule(
        rf"\b(?P<thing>[Ww]e)\s+(?:now\s+|will\s+|'ll\s+)?(?:meet|gather)\s+(?:at|in)\s+{_PLACE_VALUE}",
        "place",
        0.8,
    ),
    # -------------------------------------------------------------- the day a thing is set for
    rule(
        rf"\b(?:[Tt]arget|[Dd]eadline|[Dd]ate)\s+(?:date\s+)?for\s+(?P<thing>{_THING_EN}{_HEAD_EN})\s+"
        rf"(?:is|'s|is\s+now|will\s+be)\s+(?:on\s+)?{_DATE_EN}",
        "date",
        0.85,
    ),
    rule(
        rf"{_CLAUSE}(?P<thing>{_THING_EN}[\w.-]+(?:\s+[\w.-]+)?\s+(?:release|launch|trip|wedding|"
        rf"party|deadline|opening|surgery|exam|interview|demo|offsite|concert|move))\s+"
        rf"{_SHIFT_EN}\s+(?:back\s+|forward\s+)?(?:to|for|on)?\s*{_DATE_EN}",
        "date",
        0.85,
    ),
    # -------------------------------------------------------------- what a thing costs
    rule(
        rf"{_CLAUSE}(?P<thing>{_THING_EN}(?:[\w-]+\s+){{0,2}}?(?:rent|price|fee|fees|cost|"
        rf"subscription|membership|ticket|tickets))\s+(?:is|'s|is\s+now|will\s+be|goes\s+up\s+to|"
        rf"went\s+up\s+to|is\s+going\s+up\s+to|rose\s+to|dropped\s+to|comes\s+to|came\s+to|"
        rf"increases\s+to|went\s+down\s+to)\s+(?:now\s+)?{_MONEY_EN}",
        "price",
        0.85,
        flags=_I,
    ),
    rule(
        rf"{_CLAUSE}(?P<thing>{_THING_EN}{_HEAD_EN})\s+(?:now\s+)?costs\s+{_MONEY_EN}",
        "price",
        0.8,
    ),
    # -------------------------------------------------------------- who holds a role
    rule(
        rf"(?P<value>{NAME}|\bI\b)\s+(?:takes|took|is\s+taking|will\s+take|'ll\s+take)\s+over\s+"
        rf"as\s+(?:the\s+)?(?:new\s+)?(?P<thing>{_ROLE_EN})\b",
        "held_by",
        0.85,
    ),
    # "Lucy is our new design lead, taking over from Priya K": Priya K held it before
    rule(
        rf"\b{NAME}\s+is\s+(?:our|the)\s+new\s+(?P<thing>{_ROLE_EN})\b[^.]*?\btaking\s+over\s+"
        rf"from\s+(?P<value>{NAME}(?:\s+[A-Z]\b\.?)?)",
        "held_by",
        0.8,
        tense="past",
    ),
]

RULES_ZH: list[Rule] = [
    # -------------------------------------------------------------- passwords
    rule(
        rf"{_START_ZH}{_THING_ZH}\s*(?:的)?\s*(?:新)?密码[^，,。：:]{{0,6}}?(?:改成了?|换成了?|改为|"
        rf"设成了?|是|为|：|:)\s*{_TOKEN}",
        "password",
    ),
    # "WiFi 名字还是 ZhangHome，密码改成 zhang888888 了": the thing named earlier in the sentence
    rule(
        r"(?:^|(?<=[，,。！!；;：:\s]))(?P<thing>[A-Za-z][A-Za-z0-9_\-]*)[^。！？!?]{1,24}?[，,]\s*(?:新)?密码"
        rf"(?:改成了?|换成了?|改为|设成了?|是|为|：|:)\s*{_TOKEN}",
        "password",
        0.85,
    ),
    # -------------------------------------------------------------- addresses
    rule(
        rf"{_START_ZH}{_THING_ZH}\s*(?:的)?\s*(?:新)?(?:地址|IP|ip|域名|网址)\s*(?:改成了?|换成了?|"
        rf"改为|是|为|：|:)?\s*{_ADDRESS}",
        "address",
    ),
    rule(
        rf"{_START_ZH}(?P<thing>[A-Za-z][A-Za-z0-9_.\-]*)[^。！？!?]{{1,30}}?[，,]\s*新(?:地址|IP|ip)\s*"
        rf"(?:是|为|：|:)?\s*{_ADDRESS}",
        "address",
        0.85,
    ),
    # -------------------------------------------------------------- the time of a thing
    rule(
        rf"(?<![\u4e00-\u9fff])(?:从[^，,。]{{1,8}}?(?:开始|起))?{_EVENT_ZH}(?:的)?(?:时间)?"
        rf"(?:{_SHIFT_ZH}|是|在)\s*(?:每天|每周[一二三四五六日天])?\s*(?:早上|上午|下午|晚上|中午)?\s*"
        rf"{_CLOCK_ZH}",
        "time",
        0.85,
    ),
    rule(
        rf"{_START_ZH}{_EVENT_ZH}(?:的)?(?:时间)?(?:{_SHIFT_ZH}|是|在)\s*(?:每天|每周[一二三四五六日天])?"
        rf"\s*(?:早上|上午|下午|晚上|中午)?\s*{_CLOCK_ZH}",
        "time",
        0.85,
    ),
    rule(
        rf"每(?:天|周[一二三四五六日天]?)\s*(?:早上|上午|下午|晚上|中午)?\s*{_CLOCK_ZH}\s*"
        r"(?P<thing>站会|例会|周会|晨会|开会|集合|训练)",
        "time",
        0.8,
    ),
    # -------------------------------------------------------------- where a thing is held
    rule(
        rf"{_EVENT_ZH}[^。！？!?]{{0,20}}?地点(?:改到|改在|换到|定在|挪到|是|在|：|:)\s*"
        r"(?P<value>[\u4e00-\u9fffA-Za-z0-9 ]{2,16}?)(?=$|[，,。！!；;])",
        "place",
        0.85,
    ),
    rule(
        rf"{_START_ZH}{_EVENT_ZH}(?:地点)?(?:改到|改在|换到|定在|挪到)\s*"
        r"(?P<value>[\u4e00-\u9fffA-Za-z0-9 ]{2,16}?)(?=$|[，,。！!；;])",
        "place",
        0.8,
    ),
    # -------------------------------------------------------------- the day a thing is set for
    rule(
        rf"{_START_ZH}{_THING_ZH}\s*(?:的)?(?:时间|日期|日子)?\s*{_SHIFT_ZH}\s*{_DATE_ZH}",
        "date",
        0.85,
    ),
    # -------------------------------------------------------------- what a thing costs
    rule(
        rf"{_START_ZH}(?P<thing>[\u4e00-\u9fffA-Za-z0-9]{{0,8}}?(?:房租|租金|费用|价格|价钱|票价|会费|学费|"
        rf"月租|到手价|成交价|售价|月费|年费))\s*(?:要|也)?(?:涨到了?|降到了?|调整到|调到|改成|变成|是|为|"
        rf"：|:)?\s*(?:每人|每月|一个月|一月|一年)?\s*{_MONEY_ZH}(?=$|[，,。！!；;了\s])",
        "price",
        0.85,
    ),
    # -------------------------------------------------------------- who holds a role
    rule(
        rf"{_START_ZH}{_THING_ZH}(?:这块|这边)?\s*[^，,。]{{0,12}}?(?:交给了?|交接给了?|移交给了?)\s*"
        rf"{_NAMES_ZH}(?:负责|来做|来管)?(?=$|[，,。！!；;了\s])",
        "held_by",
        0.8,
    ),
    rule(
        rf"{_START_ZH}(?P<thing>[\u4e00-\u9fffA-Za-z]{{2,8}}?)(?:以后|今后|之后|现在|从今天起)?由"
        rf"{_NAMES_ZH}(?:一起|来)?(?:组织|负责|主持|带|管)",
        "held_by",
        0.8,
    ),
    rule(
        rf"(?:^|(?<=[，,。！!；;：:\s]))(?P<value>我|{NAME_ZH})(?:来)?负责\s*(?:这次|这个|这块)?"
        r"(?:[\u4e00-\u9fffA-Za-z0-9]{1,6}的)?(?P<thing>[\u4e00-\u9fffA-Za-z0-9]{1,6}?)"
        r"(?=$|[，,。！!；;]|这块)",
        "held_by",
        0.8,
    ),
]
