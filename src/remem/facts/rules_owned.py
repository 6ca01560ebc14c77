"""Possessions that change (cars, phones, bikes, instruments), English and Chinese: the rules
beside ``rules_en`` / ``rules_zh`` for what someone had before and what replaced it.

- A past possession: "my old phone", "my previous Golf", "我以前那辆车", "我的旧手机" -
  the speaker had it (``tense="past"``: closed when said).
- A possession in use: "the old Civic starts", "my Golf failed its MOT" - a thing that starts,
  fails its test or sits in the garage is the speaker's, and still is (a sale closes it).
- A replacement: "I replaced my Civic with a Golf", "traded in my Civic for a Tesla" closes the
  old one and gives the new; "换了辆特斯拉" / "换了部新手机" gives the new one. A new one
  with no old one named closes nothing: ``owns`` holds many values at once (a car does not
  close a guitar), so the old one is closed only when named.

Capitalised words name a make or model ("Civic", "Golf"); a capitalised word that is the
first of a place or a person's thing ("my old Manchester flat") is not one.
"""

from __future__ import annotations

from remem.facts.rule import Rule, rule
from remem.facts.rules_en import S0 as S0_EN
from remem.facts.rules_zh import S0 as S0_ZH

# things people own and replace, by their common noun
_THING_EN = (
    r"car|phone|bike|motorbike|scooter|van|laptop|guitar|piano|violin|cello|drum\s+kit|"
    r"camera|boat|tablet|console|keyboard"
)
# a make or model, not the first word of something else ("my old Manchester flat")
_MODEL = (
    r"(?P<value>[A-Z][\w-]+(?:\s+[A-Z0-9][\w-]*){0,2})(?!\s+(?:flat|house|home|place|school|job|"
    r"boss|friends?|team|office|days|life|neighbou?rhood|uni|college|company|colleagues?|"
    r"street|apartment|room|mates?|address|number|account|handle)\b)(?![\w-])"
)
# what only a vehicle or a machine does: it is someone's, in use
_IN_USE = (
    r"(?:still\s+|finally\s+)?(?:starts|started|won't\s+start|wouldn't\s+start|"
    r"didn't\s+start|failed\s+its|passed\s+its|is\s+in\s+the\s+garage|needs\s+a\s+service)"
)

# "I still have my old Golf": an old one kept is still had
_NOT_KEPT = r"(?<!\bhave\s)(?<!\bkeep\s)(?<!\bkept\s)(?<!\bstill\s)"

RULES_EN: list[Rule] = [
    *[
        rule(
            rf"{_NOT_KEPT}(?P<subj>\b[Mm]y)\s+(?:old|previous|former)\s+{thing}",
            "owns",
            0.8,
            tense="past",
        )
        for thing in (rf"(?P<value>{_THING_EN})\b", _MODEL)
    ],
    rule(
        rf"(?:\b(?P<subj>[Mm]y)|\b[Tt]he(?P<implicit>))\s+old\s+{_MODEL}\s+{_IN_USE}",
        "owns",
        0.75,
    ),
    rule(rf"(?P<subj>\b[Mm]y)\s+{_MODEL}\s+{_IN_USE}", "owns", 0.8),
    rule(
        rf"{S0_EN}(?:'ve|\s+have)?\s*(?i:replaced|swapped|traded\s+in)\s+(?:my|our|the)\s+"
        rf"(?:old\s+)?{_MODEL}\s+(?:for|with)\b",
        "owns",
        0.85,
        polarity="negate",
    ),
    rule(
        rf"{S0_EN}(?:'ve|\s+have)?\s*(?i:replaced|swapped|traded\s+in)\s+(?:my|our|the)\s+"
        r"(?:old\s+)?[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*)?\s+(?:for|with)\s+(?:an?\s+|the\s+)?"
        rf"(?:new\s+|used\s+)?{_MODEL}",
        "owns",
        0.85,
    ),
]

# the measure words of a vehicle, a device or an instrument (辆 车, 台 电脑, 部 手机, 把 吉他)
_MEASURE_ZH = r"辆|台|部|把|架"
_THING_ZH = r"车|手机|电脑|笔记本|相机|吉他|钢琴|摩托|自行车|电动车"
_VALUE_ZH = r"(?P<value>[\u4e00-\u9fffA-Za-z0-9]{1,6}?)"
_AFTER_ZH = r"(?=是|已经|早就|卖|送|坏|也|还|很|真|特别|太|开|跑|[，,。！!；;]|$)"

RULES_ZH: list[Rule] = [
    rule(
        rf"(?P<subj>我)(?:以前|之前|原来|从前)(?:那|的那)(?:{_MEASURE_ZH}){_VALUE_ZH}{_AFTER_ZH}",
        "owns",
        0.8,
        tense="past",
    ),
    rule(
        rf"(?P<subj>我)(?:以前|之前|原来|从前)?的旧(?P<value>{_THING_ZH})",
        "owns",
        0.8,
        tense="past",
    ),
    rule(
        rf"{S0_ZH}(?:刚|刚刚|已经|最近|终于)?换(?:了|成了)(?:一)?(?:{_MEASURE_ZH})(?:新的?)?"
        rf"{_VALUE_ZH}{_AFTER_ZH}",
        "owns",
        0.85,
    ),
]
