"""A job said without the words ``rules_en`` / ``rules_zh`` read a role in: a title at a place
with "I'm" left out ("Still an auditor at Harwood Pike"), the side of a business one runs or
works in ("I run the finance side", "I work in marketing"), and in Chinese what one does or
is in charge of ("我做海外渠道", "我负责亚马逊店铺的运营").

What keeps these from reading a job into everything said about doing or running something:

- the left-out "I'm" is read only at the start of a sentence (after an interjection such as
  "Yeah,"), before "still" / "now" / "currently" and a job word with an article and a
  capitalised place, or "working for" one: the shape of a predicate of the speaker
  ("Still waiting at the gate", "Still at Acme?" are not; a question is left to
  ``remem.text.assertion`` as for every rule). After a comma it would continue the clause
  before it, whose subject may be someone else ("Tom got promoted, still a nurse at ...");
- what one runs or works in is a function of a business from a closed list (finance,
  marketing, 渠道, 财务, 运营), named as a side or department in English, and at the end of its
  clause ("I'm in sales", not "I'm in sales mode"); "we" and 我们 are the company, not the
  speaker ("我们做海外渠道");
- in Chinese the verb comes straight after the subject ("我以前做财务", "我做了三年财务",
  "我不做渠道了" and "我想做市场" are not a present job), and 负责 is read only after 我: "李娜负责
  SSO" says who holds a task (``rules_things``' ``held_by``), which a group chat asks of.
  "我负责亚马逊店铺的运营" is the speaker's job, not a role only one person holds: that
  reading gives way (``findings.distinct``).
"""

from __future__ import annotations

from remem.facts.rule import Rule, rule
from remem.facts.rules_en import _ADV as ADV_EN
from remem.facts.rules_en import _BE, _JOB, _NOT_NAME, CAP
from remem.facts.rules_en import S as S_EN
from remem.facts.rules_zh import S as S_ZH

# ------------------------------------------------------------------ English
# an interjection before the sentence proper: "Yeah, still an auditor at ..."
_OPENER = r"(?:(?i:yes|yeah|yep|yup|same|nope|no|well|haha|lol|ok|okay|so)[,!.]?\s+)?"
# "I'm" left out at the start of a sentence, before the adverb that makes the rest a predicate
_ELIDED = rf"^{_OPENER}(?P<implicit>)(?i:still|now|currently)\s+"
_PLACE = CAP.replace("(?P<value>", "(?:", 1)  # the same capitalised name, not the value
_JOB_AT = rf"{_ELIDED}(?i:an?)\s+(?:new\s+)?"
# a student's place is a school, not an employer
_NOT_STUDENT = r"(?<!student)(?<!students)"
# the functions by name (read in any case), and by their letters (in capitals: "IT", not "it")
_FUNCTION_WORDS = (
    r"(?i:finance|accounting|accounts|marketing|sales|legal|operations|engineering|design|"
    r"product|admin|administration|customer\s+(?:service|support|success)|partnerships|"
    r"recruiting|recruitment|payroll|procurement|purchasing|logistics|compliance|research|"
    r"communications|comms|fundraising|audit|tax|business\s+development|data\s+science|"
    r"human\s+resources)"
)
_ACRONYM = r"(?:HR|IT|PR|QA)"
_NOT_WE = r"(?<!\b[Ww]e)"  # "we run the sales side": the company, not the speaker's job
# the end of the clause, or a word that starts something else ("in sales at Acme", "now")
_ENDS_EN = r"(?=\s*(?:[,.;!]|$)|\s+(?:now|these\s+days|at|for|since|too)\b)"

RULES_EN: list[Rule] = [
    # "Still an auditor at Harwood Pike": the role and the employer
    rule(rf"{_JOB_AT}(?P<value>{_JOB})\s+(?:at|for|with)\s+{_PLACE}", "role", 0.8),
    rule(rf"{_JOB_AT}(?:{_JOB}){_NOT_STUDENT}\s+(?:at|for|with)\s+{CAP}", "works_at", 0.8),
    # "Now working for Globex"; not "at", said of a café one works in as often as of a job
    rule(rf"{_ELIDED}working\s+for\s+{_NOT_NAME}{CAP}", "works_at", 0.8),
    # "I run the finance side", "Kate heads the legal department"
    rule(
        rf"{S_EN}{_NOT_WE}{ADV_EN}\s+(?:run|runs|head|heads|handle|handles|manage|manages|"
        rf"look\s+after|looks\s+after)\s+(?:the|our|their|all\s+the)\s+"
        rf"(?P<value>{_FUNCTION_WORDS}|{_ACRONYM})"
        r"\s+(?:side|department|dept)\b",
        "role",
        0.8,
    ),
    # "I work in marketing", "I'm in sales now"
    rule(
        rf"{S_EN}{_NOT_WE}(?:{ADV_EN}\s+works?|{_BE}{ADV_EN})\s+in\s+(?P<value>{_FUNCTION_WORDS})"
        rf"{_ENDS_EN}",
        "role",
        0.8,
    ),
    # "My sister works in HR": one space each side, so that only " in hr" lets it run ("it",
    # "hr" and "pr" alone are in most sentences: this rule was a quarter of all the rules' CPU)
    rule(
        rf"{S_EN}{_NOT_WE}(?:{ADV_EN}\s+works?|{_BE}{ADV_EN}) in (?P<value>{_ACRONYM}){_ENDS_EN}",
        "role",
        0.8,
    ),
]

# ------------------------------------------------------------------ Chinese
_FUNCTION_ZH = (
    r"(?:渠道|市场|财务|人事|行政|采购|客服|售后|品牌|商务|招聘|法务|外贸|物流|运营|销售|公关|审计|会计|"
    r"出纳|HR|BD)"
)
# a word before the function ("海外渠道", "华东区销售"), not an aspect or a measure word ("做了三年
# 财务", "做完财务", "做一下", "做好"), nor the object's own 的 ("做的财务")
_FUNCTION_OBJECT = (
    rf"(?![了过着完个一点些好的不下])(?P<value>[\u4e00-\u9fffA-Za-z]{{0,4}}?{_FUNCTION_ZH})"
)
_ENDS_ZH = r"(?=$|[，,。！!；;～~]|这块|这一块|方面|的工作|工作)"
# now, not a time said ("我去年做财务" is the past, which the rules_zh adverbs let through)
_NOW_ZH = r"(?:现在|目前|还是|还|也|一直|主要|专门)*"

RULES_ZH: list[Rule] = [
    # "我做海外渠道", "他干财务": not 我们 (the company)
    rule(rf"{S_ZH}(?<!们){_NOW_ZH}(?:做|干){_FUNCTION_OBJECT}{_ENDS_ZH}", "role", 0.8),
    # "我负责亚马逊店铺的运营": 我 only (a name before 负责 is who holds a task)
    rule(
        rf"{S_ZH}(?<=我){_NOW_ZH}负责(?:[\u4e00-\u9fffA-Za-z0-9]{{1,8}}的)?{_FUNCTION_OBJECT}"
        rf"{_ENDS_ZH}",
        "role",
        0.8,
    ),
]
