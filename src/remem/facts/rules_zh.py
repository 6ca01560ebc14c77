"""How Chinese says the fact layer's families: the rules ``extract`` runs over each sentence,
after Traditional is folded to Simplified and Cantonese forms to Mandarin (``fold``: 喺 -> 在,
而家 -> 现在, 係 -> 是, 唔 -> 不, 咗 -> 了, 嘅 -> 的, 哋 -> 们, 佢 -> 他; each one character
for one, so a value is cut from the original text at the same place and keeps its script).

``{S}`` is a subject (我, 我们, 我妈, 我的女朋友, a name that starts with a common surname, 他 /
她); ``{S0}`` the same or nothing at the start of a clause (Chinese leaves "I" out: "在成都住了快
一个月了").
"""

from __future__ import annotations

import re

from remem.facts.cities_zh import CITIES
from remem.facts.rule import Rule, rule
from remem.facts.subjects import PARTNER_ZH, RELATIONS_ZH
from remem.text.lazy_re import lazy_compile
from remem.text.names import surname_characters

_CANTONESE = str.maketrans(
    {
        "喺": "在",
        "係": "是",
        "唔": "不",
        "咗": "了",
        "嘅": "的",
        "哋": "们",
        "佢": "他",
        "冇": "没",
        "仲": "还",
        "嚟": "来",
        "啲": "些",
    }
)
_CANTONESE_WORDS = (("而家", "现在"), ("依家", "现在"), ("返工", "上班"), ("搞掂", "搞定"))


def fold(simplified: str) -> str:
    """Cantonese forms as Mandarin, character for character (the length is kept)."""
    text = simplified.translate(_CANTONESE)
    for cantonese, mandarin in _CANTONESE_WORDS:
        text = text.replace(cantonese, mandarin)
    return text


_REL = "|".join(sorted(RELATIONS_ZH, key=len, reverse=True))
_PARTNER = "|".join(sorted(PARTNER_ZH, key=len, reverse=True))
_SURNAME = "".join(sorted(surname_characters()))
# a name: a common surname and one or two characters, not a time word ("周六", "周末")
NAME = rf"(?![周][一二三四五六日末])[{_SURNAME}][\u4e00-\u9fff]{{1,2}}?"
_OBJECT_OF = "给跟和让叫帮找问诉对说打请带陪送教"  # 我 after these is an object, not a subject
_SUBJ = (
    rf"(?P<subj>我们|我(?:的)?(?:{_REL})(?!的)|(?<![{_OBJECT_OF}\u4e00-\u9fff])我|(?<=[但就那])我|"
    r"(?<=所以|因为|然后|其实|现在|而且|不过|可是|另外|对了|还是)我|"
    rf"(?<=^)我|(?<=[，,。！!？?；;：:\s])我|(?:^|(?<=[，,。！!；;：:\s]))(?:{NAME}|{_REL})|"
    rf"(?<![\u4e00-\u9fff])[他她]|(?:^|(?<=[，,。！!；;：:\s]))[A-Z][a-z]+\s*)"
)
_START = r"(?:^|(?<=[，,。！!；;：:、\s]))"
S = _SUBJ
S0 = rf"(?:{_SUBJ}|{_START}(?:对了|另外|其实|顺便说一下|刚|刚刚)?(?P<implicit>))"
_TIME = r"上个?月|上周|去年|昨天|前天|今天|下个?月|下周[一二三四五六日天]?|明年|明天|[0-9一二三四五六七八九十 ]+月(?:[0-9一二三四五六七八九十 ]+[号日])?"
_ADV = rf"(?:现在|目前|还是|还|也|一直|本来就|已经|刚|刚刚|最近|今年|早就|都|终于|{_TIME})*"
_END = r"(?=$|[了啦啊呀呢，,。！!？?；;、~～]|的时候)"
V = r"\s*(?P<value>[A-Za-z][A-Za-z .&'-]*[A-Za-z]|(?:(?![了啦])[\u4e00-\u9fffA-Za-z0-9· ]){1,12}?)\s*"
_JOB = (
    r"[\u4e00-\u9fffA-Za-z ]{0,8}?(?:经理|总监|工程师|设计师|护士|医生|老师|教师|律师|会计|策划|主美|"
    r"美术|文案|治疗师|程序员|学生|研究生|主管|总裁|编辑|记者|司机|厨师|店长|主任|教授|销售|分析师|"
    r"负责人|架构师|运营|风控|自由职业|研究员|顾问|助理|实习生|CEO|CTO|总经理|老板|前端|后端|算法)"
)
_ANIMAL = r"狗狗|猫咪|柯基|柴犬|泰迪|金毛|哈士奇|边牧|拉布拉多|比熊|博美|英短|美短|布偶|橘猫|仓鼠|兔子|鹦鹉|乌龟|狗|猫"
_KINDS = {
    "书": "book",
    "电影": "film",
    "歌": "song",
    "菜": "food",
    "食物": "food",
    "运动": "sport",
    "颜色": "colour",
    "作家": "author",
    "歌手": "singer",
    "乐队": "band",
    "城市": "city",
    "游戏": "game",
    "剧": "show",
    "饮料": "drink",
    "水果": "fruit",
    "零食": "snack",
    "动物": "animal",
    "季节": "season",
    "花": "flower",
    "球队": "team",
}
_KIND = "|".join(sorted(_KINDS, key=len, reverse=True))
# a verb of working after the place; "在一家公司上班的时候" is a time, not where one works
_PLACE_OF_WORK = r"(?=(?:上班|工作|做|当|实习|打工|任职|干活|负责)(?!的时候))"
_SPORT = lazy_compile(r"^(?:打|玩|踢|练|去|上)")
_CITY = "|".join(sorted((c for c in CITIES if len(c) >= 2), key=len, reverse=True))


_JOB_END = lazy_compile(rf"(?:{_JOB})$")
_INSTITUTION = lazy_compile(r"(?:大学|学院|银行|医院|公司|集团|中心|局|所|馆|店|厂|台|报)$")
_ONE_OF = lazy_compile(r"(?:一家|一个|一所|一间|某家|这家|那家|家)")
_PLACE_WORD = lazy_compile(r"(?:那边|这边|附近|一带|那儿|这儿|那里|这里)$")
_TIMELIKE = lazy_compile(
    r"^(?:第|到|[0-9一二三四五六七八九十两几]+\s*(?:天|号|號|日|月|年|点|個|个|周|次))"
)
_STAY = lazy_compile(
    r"(?:民宿|酒店|帐篷|宾馆|旅馆|客栈|营地|青旅|这套|那套|就够)|^(?:我家|你家|他家|她家)$"
)
_BOUGHT_TO_USE = lazy_compile(
    r"^(?:[0-9一二三四五六七八九十两几]+\s*(?:瓶|盒|包|袋|杯|斤|份|张|箱|罐|支))|^\d+\s*(?:块|元)?的?$"
)


def clean(attribute: str, value: str) -> str | None:
    """A value as a fact, or None when it is not one: "朝阳国贸那边" -> "朝阳国贸"; a stay
    ("住海边民宿"), a time ("入职第三天"), a city as an employer, something bought to use up."""
    value = _PLACE_WORD.sub("", value).strip()
    if not value or _TIMELIKE.match(value):
        return None
    if attribute in ("lives_in", "located_in") and _STAY.search(value):
        return None
    if attribute == "works_at" and (_is_city(value) or _ONE_OF.fullmatch(value)):
        return None  # a city, or "一家" alone ("在一家做机器人的公司做算法" read too short)
    if attribute == "owns" and _BOUGHT_TO_USE.search(value):
        return None
    if (attribute == "partner" or attribute.startswith("family.")) and _JOB_END.search(value):
        return None  # "我老公是医生": a job, not the partner's name
    return value


def _is_city(value: str) -> bool:
    simplified = value.replace(" ", "")
    for city in CITIES:
        if simplified.startswith(city):
            rest = simplified[len(city) :]
            return len(rest) <= 2 and not _INSTITUTION.search(rest)
    return False


def sport(value: str) -> str:
    """What is liked, without the verb it is played with: "打网球" -> "网球"."""
    return _SPORT.sub("", value.strip()) or value.strip()


def no_eating(value: str) -> str:
    return f"不吃{value.strip()}"


# Who a sentence is about when it opens with someone other than the speaker ("奶奶摔了一跤，
# 现在住在湘雅医院"): the clauses after it that leave their subject out are about them too.
LEAD = lazy_compile(
    rf"^(?:对了|另外|其实)?[，,]?\s*(?P<subj>我(?:的)?(?:{_REL})|(?:{_REL})|{NAME})"
    rf"(?={_ADV}(?:摔|出院|住|搬|在|辞|升|是|不|又|也|刚|去|回|生病|离职))"
)


def _no_new(value: str) -> str:
    return re.sub(r"^(?:新来的|新任的?|新的|新)", "", value.strip())


# an employer described, then named ("在一家游戏公司上班，星辰科技"), not "挺累的", "离家近"
_EMPLOYER_NAMED = (
    rf"{S0}{_ADV}在(?:一家|一个|某家|那家|这家|家)[\u4e00-\u9fff]{{0,6}}?(?:公司|工作室|企业|外企|"
    r"单位|机构|事务所|医院|银行)(?:上班|工作|做事)?[，,]\s*(?P<value>(?![做在我是当负管也还就都跟和那这])"
    r"(?![^，,。！!；;]*[的了很挺太不没吗呢吧啊呀离近远有是做去来要想说看忙累])"
    r"[\u4e00-\u9fffA-Za-z0-9]{2,8})(?=$|[，,。！!；;])"
)
_JOINED_AS = (  # joining in a role: "作为新来的设计师加入", "以实习生的身份加入了团队"
    rf"{S0}{_ADV}(?:很高兴|开心)?(?:作为|以)(?:一名|一个|新来的|新的|新)?\s*(?P<value>{_JOB})"
    r"(?:的身份)?(?:加入|入职|来到|报到)"
)

RULES: list[Rule] = [
    # -------------------------------------------------------------- where someone lives
    rule(
        rf"{S}(?:以前|之前|原来|曾经)(?:住在|住|在){V}(?:住|{_END})", "lives_in", 0.8, tense="past"
    ),
    rule(rf"{S}{_ADV}不(?:再)?住(?:在)?{V}了", "lives_in", polarity="negate"),
    rule(rf"{S}{_ADV}不在{V}住了", "lives_in", polarity="negate"),
    rule(rf"{S0}{_ADV}离开了?{V}{_END}", "lives_in", 0.8, polarity="negate"),
    rule(
        rf"{S0}{_ADV}(?:要|会|打算|准备|计划|将)?[^，。,!！]{{0,8}}?(?:搬去|搬到|搬过去|搬回|搬来){V}"
        rf"(?=$|[，,。！!；;]|住)",
        "lives_in",
        0.85,
        tense="plan",
        plan_verb="搬去",
    ),
    rule(
        rf"{S0}{_ADV}(?:住在|住|搬到了|搬去了|搬了去|搬来了|搬回了|搬到|搬去){V}{_END}", "lives_in"
    ),
    rule(
        rf"{S0}{_ADV}在{V}(?:住了|住着|住|租了?(?:个|间|套)?(?:房|一居|两居|三居|单间|公寓))",
        "lives_in",
        0.8,
    ),
    rule(rf"{S0}{_ADV}租了?(?:个|间|套)?(?:屋|房子|房|公寓)在{V}{_END}", "lives_in", 0.8),
    # a move told with where from ("从龙华搬到了南山科技园附近")
    rule(
        rf"{S0}{_ADV}从[\u4e00-\u9fffA-Za-z]{{1,8}}?(?:搬到了|搬去了|搬回了|搬到|搬去|搬回){V}"
        rf"(?:附近|那边|这边|一带)?{_END}",
        "lives_in",
        0.85,
    ),
    # a transfer to a city ("公司调我去成都工作室，7 月 15 号搬过去", "7 月开始被公司调去上海")
    rule(
        rf"{S0}{_ADV}(?:开始)?(?:被)?(?:公司)?(?:调我去|调去|调到|派我去|派我到|派去|派到|外派到|外派去)"
        rf"(?P<value>{_CITY})(?!出差|开会|培训|参加|玩|旅游|旅行|看)",
        "lives_in",
        0.85,
        tense="plan",
        plan_verb="搬去",
    ),
    rule(
        rf"{S0}{_ADV}(?:住|是|家在|家是)\s*(?P<value>\d+\s*(?:栋|幢|号楼)\s*\d+(?:室|号)?)",
        "lives_in",
        0.8,
    ),
    rule(rf"{S0}{_ADV}回(?:到)?(?P<value>自己家|老家|家)住", "lives_in", 0.75),
    # -------------------------------------------------------------- work and study
    rule(rf"{S0}{_ADV}不在{V}(?:上班|工作|做)?了", "works_at", polarity="negate"),
    rule(rf"{S0}{_ADV}不在{V}做{_END}", "works_at", polarity="negate"),
    rule(rf"{S0}{_ADV}(?:离职|辞职|辞工)了(?P<value>)", "works_at", 0.85, polarity="negate"),
    rule(rf"{S0}{_ADV}(?:从{V})(?:离职|辞职)了?", "works_at", 0.85, polarity="negate"),
    rule(rf"{S0}{_ADV}在{V}(?=读|念|上学|上大学|留学|进修)", "studies_at"),
    rule(rf"{S0}{_ADV}从{V}毕业了?", "studies_at", 0.85, polarity="negate"),
    rule(
        rf"{S0}(?:下周[一二三四五六日天]?|下个月|明天|[0-9一二三四五六七八九十]+月[0-9一二三四五六七八九十]+[号日])?"
        rf"(?:要|会|将)?去{V}(?:上班|报到|入职)",
        "works_at",
        0.85,
        tense="plan",
        plan_verb="去",
    ),
    rule(rf"{S0}{_ADV}(?:跳槽(?:去了|到了|去|到)|入职了?|加入了?){V}{_END}", "works_at", 0.85),
    rule(_EMPLOYER_NAMED, "works_at", 0.8, names=True),
    # a job offer taken up is the next employer ("我拿到理想汽车的 offer 了")
    rule(
        rf"{S0}{_ADV}拿到了?(?P<value>[\u4e00-\u9fffA-Za-z0-9 ]{{2,16}}?)的\s*(?i:offer)",
        "works_at",
        0.75,
    ),
    # the value holds no 了: "去了小米做" is 小米, "在一家设计院找到了工作" not "一家设计院找到了"
    rule(
        rf"{S0}{_ADV}(?:在|去(?!年)了?)(?:[\u4e00-\u9fff]{{2,3}}的)?(?!家|家里)"
        rf"(?P<value>(?:(?![了啦])[\u4e00-\u9fffA-Za-z0-9· ]){{1,12}}?)\s*{_PLACE_OF_WORK}",
        "works_at",
        0.85,
    ),
    # -------------------------------------------------------------- job title
    # an intern taken on ("Alex 实习转正了"): no longer an intern
    rule(
        rf"{S0}{_ADV}(?:实习)?转正了(?P<value>)",
        "role",
        0.8,
        polarity="negate",
        shape=lambda v: "实习生",
    ),
    rule(rf"{S}{_ADV}不(?:再)?(?:是|做|当)(?P<value>{_JOB})了", "role", 0.85, polarity="negate"),
    rule(
        rf"{S}{_ADV}不(?:再)?负责(?P<value>[\u4e00-\u9fffA-Za-z0-9]{{1,10}}?)了",
        "role",
        0.8,
        polarity="negate",
        shape=lambda v: f"负责{v}",
    ),
    rule(
        rf"{S0}{_ADV}(?:是|当|做|担任|升任|升职为|升为|升|当上了?)(?:一名|一个|个|了)?\s*(?P<value>{_JOB})"
        rf"(?=$|[了啦，,。！!、\s]|的|负责|{NAME}[，,。！!]|{NAME}$)",
        "role",
        shape=_no_new,
    ),
    rule(_JOINED_AS, "role", 0.8, shape=_no_new),
    rule(
        rf"{S0}{_ADV}(?:全职|自己|自由)+接(?:单|活)(?P<value>)",
        "role",
        0.8,
        shape=lambda v: "自由职业",
    ),
    rule(
        rf"{S0}{_ADV}(?:在|去)[^，。,!！]{{1,12}}?(?:做|当|担任)(?:一名|一个)?\s*(?P<value>{_JOB})"
        rf"(?=$|[了啦，,。！!、\s]|的)",
        "role",
        0.85,
    ),
    # -------------------------------------------------------------- partner and family
    rule(
        rf"{_START}(?P<value>[\u4e00-\u9fff]{{2,3}}?)是(?P<subj>我|{NAME})(?:的)?(?:新)?(?:{_PARTNER})",
        "partner",
    ),
    rule(
        rf"(?P<subj>我|{NAME})(?:的)?(?:新)?(?:{_PARTNER})(?:叫|是)(?P<value>[\u4e00-\u9fffA-Za-z]{{2,3}}?){_END}",
        "partner",
    ),
    rule(
        rf"(?P<subj>我)有(?:{_PARTNER})了[，,]?\s*叫(?P<value>[\u4e00-\u9fff]{{2,3}}?){_END}",
        "partner",
    ),
    rule(
        rf"{_START}(?P<value>[\u4e00-\u9fff]{{2,3}}?)[，,]\s*(?P<subj>我)(?:的)?(?:{_PARTNER})",
        "partner",
        0.85,
    ),
    rule(
        r"(?P<subj>我)(?:跟|和)(?P<value>[\u4e00-\u9fff]{2,3}?)(?:结婚了|领证了|在一起了|订婚了|"
        r"(?:打算|准备|计划)?(?:明年|今年|下个月)?结婚)",
        "partner",
        0.85,
    ),
    rule(
        r"(?P<subj>我)(?:跟|和)(?P<value>[\u4e00-\u9fff]{2,3}?)(?:分手|离婚)了",
        "partner",
        polarity="negate",
    ),
    rule(
        rf"(?P<subj>我)(?:的)?(?P<kind>{_REL})(?:叫|是)(?P<value>[\u4e00-\u9fff]{{2,3}}?){_END}",
        "family.",
        kinds=RELATIONS_ZH,
    ),
    rule(
        rf"{_START}(?:我)?(?:跟|和)(?P<value>[\u4e00-\u9fff]{{2}}?)[^。！？!?]{{0,12}}在一起"
        rf"(?:[一二三四五六七八九十两几\d]+(?:年|个月|周|天))?了",
        "partner",
        0.75,
    ),
    # -------------------------------------------------------------- pets
    rule(
        rf"{S0}(?:家)?(?:养了|有|养)(?:一只|一条|只|条|一个)?(?:{_ANIMAL})[，,]?\s*(?:叫|名字叫)"
        rf"(?P<value>[\u4e00-\u9fffA-Za-z]{{1,4}}?){_END}",
        "pet",
    ),
    rule(
        rf"(?P<subj>我|{NAME})(?:家|的)(?:的)?(?:{_ANIMAL})(?:叫|名字叫|是)?(?P<value>[\u4e00-\u9fff]{{2}})"
        rf"(?=$|[了啦，,。！!也最还在每])",
        "pet",
    ),
    rule(rf"{S0}家?有(?:[一两二三四五]|几)只(?P<value>{_ANIMAL})", "pet", 0.85),
    # -------------------------------------------------------------- likes, dislikes, favourites
    rule(
        rf"(?P<subj>我|{NAME})最(?:喜欢|爱)的(?P<kind>{_KIND})是\s*(?P<value>[^，,。！!？?]+?){_END}",
        "favourite.",
        kinds=_KINDS,
    ),
    rule(
        rf"{S}(?:也|还)?最(?:喜欢|爱)吃(?P<value>[\u4e00-\u9fff]{{1,6}}?){_END}", "favourite.food"
    ),
    rule(
        rf"{S}(?:很|超|特别|也|还|真的)?(?:讨厌|不喜欢|受不了)(?P<value>[\u4e00-\u9fffA-Za-z]{{1,8}}?){_END}",
        "dislikes",
    ),
    rule(
        rf"{S}(?:很|超|特别|也|还|真的|最)?(?:喜欢|热爱)(?![上的])(?P<value>[\u4e00-\u9fffA-Za-z]{{1,8}}?){_END}",
        "likes",
        0.85,
        shape=sport,
    ),
    rule(rf"{S0}{_ADV}改(?P<value>打[\u4e00-\u9fff]{{1,3}}球)了?", "likes", 0.85, shape=sport),
    rule(
        rf"{S0}{_ADV}每(?:周|星期|礼拜)[一二三四五六日天]?[^，。,]{{0,8}}?(?P<value>打[\u4e00-\u9fff]{{1,3}}?球)",
        "likes",
        0.8,
        shape=sport,
    ),
    rule(
        rf"{S0}{_ADV}每(?:周|星期|礼拜)[一二三四五六日天]?[^，。,]{{0,4}}?上(?P<value>[\u4e00-\u9fff]{{1,3}}?)课",
        "likes",
        0.8,
    ),
    rule(
        rf"{S0}{_ADV}不(?:再)?(?P<value>打[\u4e00-\u9fff]{{1,3}}?球)了",
        "likes",
        0.85,
        polarity="negate",
        shape=sport,
    ),
    # -------------------------------------------------------------- possessions
    rule(
        rf"{_START}(?P<value>[\u4e00-\u9fffA-Za-z0-9]{{2,6}}?)(?:终于|已经|也|都)?卖(?:掉)?了",
        "owns",
        0.85,
        polarity="negate",
    ),
    rule(
        rf"{S0}{_ADV}把(?P<value>[\u4e00-\u9fffA-Za-z0-9]{{2,6}}?)卖(?:掉)?了",
        "owns",
        0.85,
        polarity="negate",
    ),
    rule(
        rf"{S0}{_ADV}(?:新)?买了(?:一辆|一台|一个|辆|台|个)?\s*(?P<value>[^，,。！!？?]{{2,10}}?){_END}",
        "owns",
        0.85,
    ),
    rule(
        rf"(?:(?P<subj>我)的|{_START}(?P<implicit>)新)车是\s*(?P<value>[^，,。！!？?]{{2,10}}?){_END}",
        "owns",
    ),
    rule(
        rf"{S0}开(?:那辆|的是|一辆)(?P<value>[\u4e00-\u9fffA-Za-z0-9]{{2,6}}?)(?=去|上班|来|[，,。]|$)",
        "owns",
        0.8,
    ),
    # -------------------------------------------------------------- health and diet
    rule(rf"{S0}{_ADV}对(?!了)(?P<value>[\u4e00-\u9fffA-Za-z]{{1,8}}?)过敏", "allergic_to"),
    rule(
        rf"{S0}{_ADV}(?:有|得了|患有|查出)(?P<value>[\u4e00-\u9fff]{{0,5}}?(?:炎|病|症|癌|哮喘|高血压|糖尿病))"
        rf"(?=$|[，,。！!了])",
        "health",
        0.85,
    ),
    rule(
        rf"{S0}{_ADV}一点(?P<value>[\u4e00-\u9fff]{{1,3}}?)都不(?:吃|碰)了?",
        "diet",
        shape=no_eating,
    ),
    rule(
        rf"{S0}{_ADV}不(?:能|再)?吃(?P<value>辣|肉|荤|海鲜|甜食|糖|牛肉|猪肉)了?{_END}",
        "diet",
        0.85,
        shape=no_eating,
    ),
    rule(
        r"(?:医生|大夫)(?:让|叫|要)(?P<subj>我)(?:以后)?(?:别|不要|不能)(?:再)?吃(?P<value>辣|肉|海鲜|甜食|糖)",
        "diet",
        0.7,
        shape=no_eating,
    ),
    rule(rf"{S0}{_ADV}(?:是素食者|吃素)(?P<value>)", "diet", 0.85, shape=lambda v: "素食"),
    # -------------------------------------------------------------- plans with a date
    rule(
        # after a discourse opener too ("另外建国的婚礼改到 10 月 1 号了")
        r"(?:^|(?<=[，,。！!；;：:\s]))(?:另外|对了|还有|然后|所以|其实|通知一下)?"
        r"(?P<subj>[\u4e00-\u9fff]{2,3}?)的(?P<value>婚礼|生日宴|手术|婚宴)"
        r"(?:定在|改到|改在|推迟到|延期到|在)",
        "plan",
        0.8,
        tense="plan",
    ),
    rule(
        r"(?P<subj>我)(?:跟|和)[\u4e00-\u9fff]{2,3}?(?:打算|准备|计划)?(?:明年|今年|下个月)(?P<value>结婚)",
        "plan",
        0.8,
        tense="plan",
    ),
    # -------------------------------------------------------------- contact handles
    rule(
        rf"(?:(?P<subj>我)的?|{_START}(?P<implicit>))(?:新)?(?:手机号码|手机号|手机|电话号码|电话|号码)(?:是|：|:)?\s*"
        r"(?P<value>\+?\d[\d -]{6,}\d)",
        "contact.phone",
    ),
    rule(r"打(?P<subj>我)(?:的)?(?:电话|手机)\s*(?P<value>\+?\d[\d -]{6,}\d)", "contact.phone"),
    rule(
        r"(?P<subj>我)(?:的)?(?:邮箱|email|e-mail)?[^。!！?？]*?(?P<value>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)",
        "contact.email",
        flags=re.I,
    ),
    rule(
        r"(?P<subj>我)(?:的)?微信(?:号)?(?:是|：|:)\s*(?P<value>[A-Za-z][\w-]{4,})",
        "contact.wechat",
    ),
    rule(
        r"(?P<value>1\d{2})\s*那个(?:号|号码)?(?P<subj>我)?(?:不用了|停了|不要了|停用了)",
        "contact.phone",
        0.8,
        polarity="negate",
    ),
    rule(
        r"(?P<value>[\w.]+)\s*那个邮箱(?P<subj>我)?(?:不用了|停了|不要了|停用了)",
        "contact.email",
        0.8,
        polarity="negate",
    ),
]
