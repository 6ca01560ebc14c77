"""An employer described, not named, English and Chinese: "I started a new job at a robotics
startup in Munich", "joined a small fintech company", "我在一家慕尼黑的机器人创业公司上班了",
"我换工作了，现在在一家做机器人的初创公司". The rules beside ``rules_en`` / ``rules_zh``, whose
joining rules take a named employer only ("I joined Acme", a capitalised value) and whose
Chinese values stop at twelve characters; and a named employer after the verbs of taking a job
that ``rules_en`` does not take ("I got hired by Corran Software", ``NAMED_EN``).

The value is the noun phrase as said ("robotics startup in Munich" once ``values_en.clip``
has taken the article off; "一家慕尼黑的机器人创业公司", 一家 kept as the named-in-Chinese values
keep it). What keeps these from reading everything joined or started:

- the phrase must end in a word for a workplace (startup, firm, hospital; 公司, 医院, 工作室), so
  "joined a gym" or "加入了一个读书会" are not jobs, and what follows it must end the phrase ("a
  startup accelerator call" is no startup);
- the verb is one of taking a job ("started a new job at", "got hired by", "入职", "跳槽到") or,
  in Chinese, being at the place followed by a verb of working (在一家…上班) or after saying the
  job changed (换工作了，现在在一家…); being somewhere alone ("我在一家咖啡店等你") is not a job;
- the subject is the speaker, a named person or a relative, or he / she when the conversation
  just named one person (``extract._resolve``), as for every other rule; questions, wishes,
  conditions and negations are left to ``remem.text.assertion`` and to the verb: "I didn't get
  the job at", "I almost joined", "我没去那家公司上班" have no verb form these rules accept.
"""

from __future__ import annotations

from remem.facts.rule import Rule, rule
from remem.facts.rules_en import _ADV as ADV_EN
from remem.facts.rules_en import _NOT_NAME, CAP
from remem.facts.rules_en import S0 as S0_EN
from remem.facts.rules_zh import _ADV as ADV_ZH
from remem.facts.rules_zh import S0 as S0_ZH

# ------------------------------------------------------------------ English
# the head noun of a described employer ("a small fintech company", "a games studio")
_WORKPLACE = (
    r"(?:company|startup|start-up|scale-up|agency|firm|studio|bank|school|hospital|clinic|"
    r"consultancy|charity|brewery|bakery|restaurant|cafe|lab|laboratory|publisher|practice|"
    r"nonprofit|non-profit|ngo|university|college|institute|factory|warehouse|hotel|"
    r"supermarket|corporation|organisation|organization|council|museum|library|newspaper|"
    r"magazine|manufacturer|retailer|insurer|fintech|biotech|nursery|pharmacy)"
)
# the words before the head: adjectives and nouns, not a preposition or an article that would
# run the phrase into another one ("a team at a startup")
_MODIFIER = r"(?!(?:at|for|with|in|of|on|to|the|a|an|and|but|or|as|who|that|which)\b)[\w&'-]+\s+"
# where the employer is, when said with it: "in Munich", "based in Leeds", "outside Lyon"
_WHERE = r"(?:\s+(?:in|near|outside|based\s+in)\s+[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)?"
# what may follow the phrase: the end of the clause or a word that starts something else
_AFTER = (
    r"(?=\s*(?:[,.;!?)]|$)|\s+(?:in|near|as|at|on|and|with|for|since|last|this|two|three|a|an|"
    r"that|which|where|who|called|named|downtown|just|recently|today|yesterday|back|now)\b)"
)
_DESCRIBED = rf"(?P<value>(?i:an?)\s+(?:{_MODIFIER}){{0,4}}?{_WORKPLACE}{_WHERE}){_AFTER}"
# taking a job: "started a new job at", "got a job with", "was hired by", "joined"
_TOOK_JOB = (
    r"(?i:joined|started\s+(?:(?:a\s+)?(?:new\s+)?job\s+|work\s+|working\s+)?(?:at|with)|"
    r"(?:got|took|landed|accepted|found)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role)\s+"
    r"(?:at|with)|(?:was\s+|been\s+|got\s+)hired\s+(?:at|by))"
)
_TAKER = rf"{S0_EN}(?:'ve|\s+have|\s+has)?{ADV_EN}\s*{_TOOK_JOB}\s+"
# the same verbs before a name, those rules_en's named joining rule (joined, started at, got a
# job at) does not take: "I got hired by Corran Software", "took a job with Halden Foods". Read
# only when described, an employer named after one closed nothing, and the described one before
# it stayed the current employer (changed_facts theo). Not "joined" or "started working with":
# rules_en reads the one, and the other is as often said of a person
_TOOK_NAMED = (
    r"(?i:started\s+(?:a\s+)?(?:new\s+)?job\s+(?:at|with)|"
    r"(?:got|took|landed|accepted|found)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role)\s+"
    r"(?:at|with)|(?:was\s+|been\s+|got\s+)hired\s+(?:at|by))"
)
_TAKER_NAMED = rf"{S0_EN}(?:'ve|\s+have|\s+has)?{ADV_EN}\s*{_TOOK_NAMED}\s+"
NAMED_EN = rule(rf"{_TAKER_NAMED}{_NOT_NAME}{CAP}", "works_at", 0.8)  # "got hired by Acme"

RULES_EN: list[Rule] = [
    # described, then named: "I joined a startup called Nimbus", "... a small agency, Hatch"
    rule(
        rf"{_TAKER}(?i:an?)\s+(?:{_MODIFIER}){{0,4}}?{_WORKPLACE}{_WHERE}"
        rf"(?:,\s+|\s+(?:called|named)\s+){_NOT_NAME}{CAP}(?=\s*(?:[,.;!]|$))",
        "works_at",
        0.8,
        names=True,
    ),
    rule(rf"{_TAKER}{_DESCRIBED}", "works_at", 0.8),
    NAMED_EN,
]

# ------------------------------------------------------------------ Chinese
_WORKPLACE_ZH = (
    r"(?:公司|企业|外企|国企|央企|工作室|事务所|律所|医院|诊所|银行|学校|大学|学院|研究所|研究院|设计院|"
    r"实验室|机构|工厂|集团|报社|杂志社|出版社|幼儿园|酒店|餐厅|药房|书店|咖啡店|店)"
)
# "一家慕尼黑的机器人创业公司": one of, then up to fourteen characters of description; a place
# said first ("无锡的一家光伏公司") is left out of the value, as ``rules_zh``'s 在…上班 leaves it
_DESCRIBED_ZH = (
    r"(?:[\u4e00-\u9fff]{2,3}的)?(?P<value>(?:一家|一个|一所|一间|某家)"
    rf"[\u4e00-\u9fffA-Za-z0-9·]{{0,14}}?{_WORKPLACE_ZH})"
)
_ENDS_ZH = r"(?=$|[了啦，,。！!；;～~])"
_WORKING_ZH = r"(?:上班|工作|做事|做|当|任职|实习|打工|兼职|找(?:到)?了?(?:一份|份)?(?:新)?工作)(?!的时候|的话|的那)"

RULES_ZH: list[Rule] = [
    # at the place, then working there: "我在一家慕尼黑的机器人创业公司上班了"
    rule(rf"{S0_ZH}{ADV_ZH}(?:开始)?在{_DESCRIBED_ZH}{_WORKING_ZH}", "works_at", 0.85),
    # joining it: "入职了一家…", "加入了一家…", "跳槽到一家…"
    rule(
        rf"{S0_ZH}{ADV_ZH}(?:入职了?|加入了?|进了|跳槽(?:去了|到了|去|到))"
        rf"{_DESCRIBED_ZH}(?:{_ENDS_ZH}|{_WORKING_ZH})",
        "works_at",
        0.85,
    ),
    # the job changed, then where: "我换工作了，现在在一家做机器人的初创公司"
    rule(
        rf"{S0_ZH}{ADV_ZH}(?:换了?(?:个|份)?(?:新)?工作|找到了?(?:新)?工作|有了?新工作|跳槽)了?"
        rf"[，,\s]*(?:现在|目前)?(?:在|去了|到了|进了){_DESCRIBED_ZH}{_ENDS_ZH}",
        "works_at",
        0.8,
    ),
]
