"""What is worth remembering, in English, Chinese (Traditional is folded to Simplified first),
Japanese and Korean: trigger patterns per category, memory cues, instructions about memory
itself, frustration, and the subject a statement is about (so a newer one can supersede it).

Plain patterns, no LLM. They decide *admission*: a sentence that matches none of them is not
captured automatically (the agent can still store it with the ``memory_store`` tool).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from remem.text.assertion import not_a_statement
from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified
from remem.text.phrases import Phrases, phrases

CATEGORIES = ("preference", "fact", "decision", "entity", "other")
# below the named rules: a plain statement is kept, but a named preference or decision first
PLAIN_IMPORTANCE = 0.6

# (category, importance, its phrases in English, Chinese, Japanese / Korean); the first match
# decides.
_RULES: list[tuple[str, float, Phrases]] = [
    (
        "other",  # an explicit request to remember: its category comes from the rest
        0.9,
        phrases(
            r"\b(remember (that|this|:)|please remember|don'?t forget (that|:)|note (that|"
            r"this)|keep in mind|for (the|your) record|make a note)\b",
            r"(记住|记一下|记下来|帮我记|别忘了|不要忘了|请记得|要记得)",
            r"(覚えておいて|覚えといて|忘れないで|기억해\s?줘|기억해\s?주세요|잊지\s?마)",
        ),
    ),
    (
        "decision",
        0.8,
        phrases(
            r"\b(i|we) (have )?(decided|chose|picked|settled on|agreed|will use|are going "
            r"to use|'ll use|'ll go with|will go with|switched to|plan to|am going to|are "
            r"going to)\b|\bfrom now on\b|\bgoing forward\b|\blet'?s (use|go with)\b",
            r"(我们?|咱们)(决定|选择了|选了|定了|打算|计划|准备|改用|换成|以后用|以后都用|"
            r"就用|同意)|从现在(开始|起)|以后(都)?(用|按)",
            r"(することにした|に決めた|にしました|로\s?했어요|기로\s?했)",
        ),
    ),
    (
        "preference",
        0.7,
        phrases(
            r"\bi (really |really don'?t |don'?t |do not |absolutely )?(like|love|prefer|"
            r"enjoy|hate|dislike|can'?t stand|adore|am into|'m into|am allergic|'m allergic|"
            r"am vegetarian|'m vegetarian|am vegan|'m vegan)\b|\bmy (favou?rite|preferred)\b|"
            r"\bi'?d rather\b|\bi'?m (allergic|vegetarian|vegan|into)\b|\b(please )?(always|never) (use|reply|answer|call me|write)\b",
            r"我(很|真的|特别|最|不|不太|超|比较|挺|还挺|蛮|更|一直)?(喜欢|爱|讨厌|不喜欢|偏好|"
            r"更喜欢|习惯|受不了|过敏|吃素|不吃|不喝)|我最(爱|喜欢)的|(请|以后)?(总是|始终|一律|"
            r"别|不要)(用|叫我|回复|回答)|我的(偏好|习惯|喜好|口味|爱好)是"
            # habits: "我一般早上跑步", "我平时都坐地铁" (not "我一般般")
            r"|我(平时|一般|通常|平常|每天|经常)(?!般)(都|会|是|用|喝|吃|在|去|穿|坐|开|听|看|"
            r"不|早上|晚上|周末|\w{1,4}(喝|吃|用|坐|去|跑|看|听|穿|做))",
            r"(私|僕|俺)(は|って).{1,20}(が|も)(好き|大好き|嫌い|大嫌い|苦手)|"
            r"(私|僕|俺)の(好きな|趣味|好み)|(제|내)\s?(취향|취미)은|"
            r"(저|나)는\s?.{1,20}(을|를)\s?(좋아|싫어)",
        ),
    ),
    (
        "entity",
        0.6,
        phrases(
            r"(?i:\bmy (wife|husband|partner|son|daughter|kid|child|mother|mom|mum|father|dad|"
            r"brother|sister|boss|manager|colleague|friend|dog|cat|pet|team|company|"
            r"doctor)('s name)? (is|was|'s) \w)|\b[A-Z][a-z]+ is my (wife|husband|partner|"
            r"son|daughter|boss|manager|colleague|friend|dog|cat|brother|sister)\b",
            r"我(的)?(老婆|老公|妻子|丈夫|对象|儿子|女儿|孩子|妈妈|爸爸|母亲|父亲|哥哥|"
            r"姐姐|弟弟|妹妹|老板|领导|经理|同事|朋友|狗|猫|宠物|医生)(叫|是|名叫)|"
            r"是我(的)?(老婆|老公|同事|朋友|老板|领导|儿子|女儿)",
            r"(私|僕|俺)の(妻|夫|息子|娘|母|父|兄|姉|弟|妹|上司|犬|猫)(は|の名前は)|"
            r"제\s?(아내|남편|아들|딸|엄마|아빠|상사|강아지|고양이)\s?(이름은|는|은)",
            en_flags=0,
        ),
    ),
    (
        "fact",
        0.7,
        phrases(
            r"\b(i|we) (live|lived|moved|work|worked|study|studied|was born|grew up|am "
            r"from|'m from|just moved|recently moved|have|own|bought|got|started|joined|"
            r"graduated|am a|'m a|am an|'m an|am married|'m married|speak)\b|\bmy name is\b|"
            r"\bcall me\b|\bi am \d+\b|\bi'?m \d+ (years|yrs)\b|\bmy (birthday|address|"
            r"email|phone|job|role|title|age) is\b",
            r"我(住在|住|搬到|搬去|搬家|在.{1,20}(工作|上班|上学|读书)|是(一名|一个|个)?|"
            r"叫|名字是|今年|生日|老家|来自|出生|毕业|入职|加入了|买了|有(一|两|三|个)|"
            r"养了|会说|学过|结婚)",
            r"(私|僕|俺)(は|の).{0,20}(に住んで|に引っ越し|で働いて|出身|の名前は)|"
            r"(저|나)는\s?.{0,20}(에\s?살아|에서\s?일해|출신|(으)?로\s?이사)",
        ),
    ),
]

# A plain statement of the speaker's (or a named person's) circumstances that no rule above
# names: "I'm based in Shanghai", "I now work at Globex", "Sam is my boyfriend", "Moved to Cork
# last weekend!", "我在复旦读研", "林琳是我女朋友", "奶奶出院回家了". Only asked after the
# assertion judge has ruled out questions, hedges, hypotheticals, quotes, sarcasm and examples.
_PLAIN_EN = lazy_compile(
    r"^(ok(ay)?,? |so,? |fyi,? |btw,? )*("
    # first person with a verb of state or change (not "I think", "I feel", "I see")
    r"(i|we)('m|'re|'ve|'d| am| are| have| had| now| just| recently| finally| no longer|"
    r" don'?t| do not| never| got| left| sold| quit| passed| adopted| deleted| broke| "
    r"lost| started| stopped| became| went| changed| finished| began| returned| signed)\b"
    r"|my [a-z]+( [a-z]+)?( [A-Z][\w'-]*)? (is|are|was|'s|has|had|lives|works|studies|"
    r"launches|died|left|moved|meets|doesn'?t|does not|no longer)\b"
    r"|our [a-z]+( [a-z]+)? (is|are|meets|moved|has)\b"
    # a named person: "Tom lives in …", "Mia's boyfriend is …", "Leo and I broke up"
    r"|(?-i:[A-Z][a-z]+)('s [a-z]+)? (and i )?(is|are|was|has|had|lives|works|studies|moved|"
    r"went|got|left|joined|died|broke|started|quit|'s)\b"
    r"|(moved|started|joined|quit|left|bought|sold|got|adopted|graduated) (to|at|from|a|an|"
    r"the|my|in|into)\b"
    r"|you can (email|call|text|reach|find) me\b)",
    re.I,
)
# "I feel tired", "I think so", "I see": first person without a fact.
_PLAIN_EN_NOT = lazy_compile(r"^(i|we) (feel|felt|see|mean|know|agree|understand|hope)\b", re.I)
_PLAIN_ZH = lazy_compile(
    r"^(刚|刚刚|已经|现在)?(我|我家|我的|我们)"
    r"|^[\u4e00-\u9fff]{1,4}(是我|的)(女朋友|男朋友|老婆|老公|妻子|丈夫|婚礼|猫|狗|车)"
    r"|^[\u4e00-\u9fff]{2,4}(现在|已经|刚|上个月|去年)?(住在|住|搬到|搬去|在|升任|升|辞职|"
    r"出院|入职|离职|结婚|分手|不吃|开始|改到|毕业|卖了|换了)"
    r"|^(刚|刚刚)?在.{1,12}(租|买|办|找)了"
    r"|(卖了|搬了|辞职了|分手了|不用了|毕业了|退休了)[。!！]*$"
)
_PLAIN_ZH_NOT = lazy_compile(r"^我(觉得|想|认为|感觉|看|希望|猜|们走)")


def plain_statement(text: str) -> bool:
    """A plain statement of someone's circumstances (the caller has judged it an assertion)."""
    stripped = text.strip()
    if _PLAIN_EN.search(stripped) and not _PLAIN_EN_NOT.search(stripped):
        return True
    zh = _zh(stripped)
    return bool(_PLAIN_ZH.search(zh) and not _PLAIN_ZH_NOT.search(zh) and len(zh) >= 5)


_MEMORY_INSTRUCTION = phrases(
    r"\b(forget (that|this|it|what i said|everything|about)|delete (that|this|the|my|your|all)"
    r"[^.?!]{0,30}\b(memory|memories|note|notes)|(clear|wipe|erase|reset|purge|clean up) (your |"
    r"my |the |all )*(memory|memories|notes)|don'?t remember (that|this)|stop remembering|"
    r"remove (that|this|it) from (your )?memory|"
    # skip directives: "don't save this", "I don't want you to remember that …"
    r"(don'?t|do not|never|no need to) (save|store|record|keep|note|write down) (that|this|it)|"
    r"(don'?t|do not) (want|need) you to (remember|save|store|keep|note))\b",
    r"(忘(掉|记掉|了)(这|那|它|吧|我说的)|删(除|掉)?(这条|那条|我的|你的|所有)?(的)?记忆|清(理|空|除)"
    r"(一下)?(你的|我的|所有)?(的)?记忆|别记(住)?(这|那|了)|不要记(住)?(这|那)|从记忆(里|中)删|"
    r"不用记|别(保存|存)(这|那)|不要(保存|存)(这|那))",
    r"(忘れて(ください|くれ)?|覚えないで|記憶を(消して|削除)|잊어\s?(줘|주세요|버려)|"
    r"기억하지\s?마|기억을\s?(지워|삭제))",
)
_FRUSTRATION = phrases(
    r"\b(you (always|keep|never)|why (do|did|can'?t|don'?t) you|you (forgot|forget|don'?t "
    r"remember)|useless|stupid|annoying|what the (hell|heck)|wtf)\b",
    r"(你怎么(又|老是|总是)|你(又|总是|老是)(忘|错)|烦死了|气死|没用|废物)",
)

# "remember", "last time", "之前", "上次", "记得": a short query with a cue still recalls.
_CUE = phrases(
    r"\b(remember|recall|last time|previously|before|earlier|again|you said|i (said|told you|"
    r"mentioned))\b",
    r"(之前|以前|上次|上回|记得|记不记得|说过|提过|忘了)",
)


@dataclass(frozen=True)
class Admission:
    category: str
    importance: float
    explicit: bool  # the speaker asked to remember it


def _zh(text: str) -> str:
    return to_simplified(text)


def admit(text: str) -> Admission | None:
    """The category and importance of a sentence worth remembering, or None."""
    zh = _zh(text)
    explicit = False
    for category, importance, said in _RULES:
        if said.search(text, zh):
            if category == "other" and not explicit:
                explicit = True  # keep looking for the real category
                continue
            return Admission(category, max(importance, 0.9) if explicit else importance, explicit)
    if explicit:
        return Admission("other", 0.9, True)
    if plain_statement(text) and not_a_statement(text) is None:
        return Admission("fact", PLAIN_IMPORTANCE, False)
    return None


def is_memory_instruction(text: str) -> bool:
    """ "Forget that", "删除记忆", "清理记忆": about memory itself, never a memory."""
    return _MEMORY_INSTRUCTION.search(text)


def is_frustration(text: str) -> bool:
    return _FRUSTRATION.search(text)


def has_memory_cue(text: str) -> bool:
    return _CUE.search(text)


# The subject of a statement that a newer statement replaces (where the person lives, works,
# is called ...). Captured values are not used; the key is.
# Each pattern needs the subject itself, not its words: "I moved to Berlin" is a location, "We
# moved the meeting to Friday" is not; "我住在上海" is, "我住院了" is not; "I joined Google" is an
# employer, "I joined a gym" is not; "Call me Ann" is a name, "call me tomorrow" is not. A past
# state ("I lived in Paris", "我住过北京") replaces nothing current.
def _subject(english: str, *others: str) -> tuple[re.Pattern, ...]:
    """One subject's patterns: the English one (any case), then Chinese, Japanese, Korean."""
    return (lazy_compile(english, re.I), *(lazy_compile(p) for p in others))


_SUBJECTS: dict[str, tuple[re.Pattern, ...]] = {
    "location": _subject(
        r"\b(i|we)( now)? (live|am living|'m living|relocated|am based|'m based)\b|"
        r"\b(i|we)('ve| have)? (just |recently |finally |now )?moved (back )?(to|into|abroad|"
        r"house|home|out|away|here|there|in with|over to)\b",
        r"我(现在|目前|已经)?(住在|住(?![院手口了过])|搬到|搬去|搬家到|定居)",
        r"(に住んで|に引っ越し|에\s?살아|(으)?로\s?이사)",
    ),
    "employer": _subject(
        r"\b(i|we) (now )?(work|am working|'m working) (at|for)\b|\bi (just |recently )?"
        r"(joined|started at|switched jobs to|moved to a job at) (?-i:[A-Z])|\bmy "
        r"(employer|company) is\b",
        r"我(现在|目前)?(在.{1,20}(工作|上班)|入职|跳槽到)",
        r"(で働いて|에서\s?일해)",
    ),
    "name": _subject(
        r"\b(my name is|i go by)\b|\bcall me (?-i:[A-Z])",
        r"^(请)?叫我|我叫(?![了过他她你它车醒])|我的名字是",
    ),
    "age": _subject(r"\bi am \d+\b|\bi'?m \d+ (years|yrs)\b", r"我今年\d+岁"),
    "diet": _subject(
        r"\bi('?m| am) (now )?(vegetarian|vegan|pescatarian|on a diet)\b|\bi "
        r"(stopped|started) eating\b",
        r"我(现在|开始)?(吃素|不吃肉|戒了)",
    ),
}
_FAVOURITE = lazy_compile(r"\bmy (favou?rite|preferred) ([a-z]+( [a-z]+)?) (is|are)\b", re.I)
_FAVOURITE_ZH = lazy_compile(r"我最(喜欢|爱)的(.{1,6}?)是")


def subject_key(text: str) -> str | None:
    """What the statement is about, when a later statement on it replaces this one. A
    question, a hypothetical or a quote is about nothing: it states nothing that could replace
    a memory ("Any tips for where I live now?" mentions where the user lives)."""
    if not_a_statement(text) is not None:
        return None
    m = _FAVOURITE.search(text)
    if m:
        return f"favourite:{m.group(2).lower()}"
    zh = _zh(text)
    m = _FAVOURITE_ZH.search(zh)
    if m:
        return f"favourite:{m.group(2)}"
    for key, patterns in _SUBJECTS.items():
        if any(pattern.search(text) or pattern.search(zh) for pattern in patterns):
            return key
    return None
