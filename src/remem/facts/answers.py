"""A short answer to someone else's question, read as a statement of the one who answers.

"Where do you live now?" - "Camden, near the canal"; "住哪边？" - "高新区，离软件园近";
"你在哪家公司？" - "星辰科技，做游戏". The answer names the value and nothing else: no rule
can read it alone, the question before it says which family it is. Read only when:

- the line before is another person's question (``text.assertion.is_question``) whose words
  ask for one of ``ANSWERED`` families (``question.asked_attributes``; a bare "where" /
  "哪里" / "哪边" asks where one lives), put to the one who answers: "you" / "你" / "您" or
  nobody named ("Where exactly?"), never "he" / "she" / "I" or a name, nor a place ("Where
  in Shanghai?" asks for a part of a place already said: a home of its own to the fold);
- the answer itself asserts (``not_a_statement`` is None) and opens with a bare value: its
  first clause (cut at a comma or full stop) is, in English, one to four capitalised words
  that are not a reply word ("Yes", "Sure", "Not sure"); in Chinese two to eight characters
  ending the way the family's values end (a district, a company) or a city.

An elliptical answer is read the same way: "What's your Instagram?" - "Mine is @nora_k" /
"It's @nora_k" / "是 @nora_k"; "Where are you living these days?" - "Still in Leeds" / "还在
成都". The opener ("mine is", "it's", "still in", "是", "还在") is taken off and what follows
must be a bare value of the family asked for; a contact handle takes its shape (a number,
an @handle, an address). A request counts as the question ("Adding everyone to the Telegram
channel, handles please", "发一下微信号"), and both lines are of one chat session.

The statement is the answerer's, weaker than a rule's (``CONFIDENCE``): the family comes from
another line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from remem.facts import rules_zh
from remem.facts.cities_zh import CITIES
from remem.facts.model import Statement
from remem.facts.question import asked_attributes
from remem.text.assertion import is_question, not_a_statement
from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified
from remem.types import Fact, Record

CONFIDENCE = 0.75
# the families a bare value can answer; the first one the question asks for is taken
ANSWERED = ("lives_in", "located_in", "works_at", "studies_at", "contact")
# an elliptical answer's opener: "Mine is @nora_k", "It's 07700 900 123", "Still in Leeds",
# "是 @nora_k", "还在成都"; the value follows it
_ELLIPSIS = lazy_compile(
    r"^(?:(?:mine|it|that|my\s+\w+)(?:'s|’s|\s+is)|still(?:\s+(?:in|at))?|now(?:\s+(?:in|at))?)\s+"
    r"|^(?:我的)?是\s*|^还在\s*|^還在\s*",
    re.I,
)
# what asks for a value without a question mark: "handles please", "发一下微信号"
_REQUEST = lazy_compile(
    r"\b(?:please|pls|plz)\s*[.!]*$|^(?:send|drop|share|post|give)\s+(?:me\s+|us\s+)?(?:your|yr)\b"
    r"|^(?:请)?(?:发|报|留)(?:一下|个)?|(?:发|报|留)一下",
    re.I,
)
# a contact value, by shape: a number, an @handle, an address, a handle word
_CONTACT_VALUE = lazy_compile(
    r"^(?:\+?\d[\d -]{6,}\d|@[\w.]+\w|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?=[\w.-]*[\d_.])[A-Za-z][\w.-]{2,30})$"
)
# an app's name says which handle is asked for, not whose ("What's your Instagram?")
_APP_NAMES = lazy_compile(
    r"\b(?:telegram|wechat|instagram|twitter|whatsapp|signal|discord|"
    r"linkedin|github|skype|slack|line|snapchat|tiktok|facebook)\b",
    re.I,
)
_WHERE = lazy_compile(r"\bwhere\b|哪里|哪儿|哪边|哪个区|哪一区|什么地方", re.I)
_SOMEONE_ELSE_EN = lazy_compile(r"\b(?:he|she|his|her|they|their|i|my|we|our|him|them)\b", re.I)
_SOMEONE_ELSE_ZH = lazy_compile(r"[他她我]")
_SENTENCES = lazy_compile(r"(?<=[.!?。！？])\s*")
_THIRD_PERSON_EN = lazy_compile(r"\b(?:he|she|his|her|him|they|their|them)\b", re.I)
_TO_YOU = lazy_compile(r"\byou\b|^\s*where\s+(?:in|at|about|exactly)\b|你|您", re.I)
_NAMED = lazy_compile(r"(?<!^)\b[A-Z][a-z]+\b")  # a name after the first word: "Where is Tom?"
_PLACE_NAMED = lazy_compile(r"\b(?:in|at|near|around|from)\s+(?:[A-Z][\w'’-]*\s*)+")
_FIRST_CLAUSE = lazy_compile(r"[,，.。!！;；:：、]")
_EN_VALUE = lazy_compile(r"^(?:[A-Z][\w'’&.-]*)(?:\s+[A-Z][\w'’&.-]*){0,3}$")
_EN_REPLY_WORDS = frozenset(
    [
        "yes",
        "yeah",
        "yep",
        "no",
        "nope",
        "nah",
        "sure",
        "ok",
        "okay",
        "thanks",
        "thank",
        "well",
        "oh",
        "still",
        "not",
        "maybe",
        "haha",
        "lol",
        "hmm",
        "i",
        "we",
        "it",
        "the",
        "that",
        "this",
        "there",
        "here",
        "same",
        "good",
        "great",
        "fine",
        "nothing",
        "nowhere",
        "somewhere",
        "home",
        "everywhere",
        "work",
    ]
)
# a value, not a clause: it does not open with a verb or preposition ("在飞书知识库里")
_ZH_VALUE = lazy_compile(r"^(?![在从到去我你他她是就还也都])[\u4e00-\u9fffA-Za-z]{2,8}$")
_ZH_ENDINGS = {
    "lives_in": lazy_compile(r"(?:区|市|县|镇|乡|村|省|州|路|街|道|岛|湾|城|坊|苑|园|港|新村)$"),
    "works_at": lazy_compile(
        r"(?:公司|科技|网络|集团|银行|医院|工作室|事务所|研究所|研究院|中心|学校|大学|"
        r"传媒|设计|咨询|资本|证券|律所|酒店|餐厅|书店|超市|工厂)$"
    ),
    "studies_at": lazy_compile(r"(?:大学|学院|中学|小学|学校|研究生院)$"),
}
_ZH_ENDINGS["located_in"] = _ZH_ENDINGS["lives_in"]


def asked_by_another(question: Record, reply: Record) -> bool:
    """Whether ``question`` was said by someone known, other than the one who ``reply``'s."""
    asker = question.speaker_label or question.speaker_id
    return bool(asker) and asker != (reply.speaker_label or reply.speaker_id)


def asks_a_third_person(question: str) -> bool:
    """Whether a question asks about someone other than the one it is put to ("How's Tom
    doing?", "他搬家了吗？"), not about them ("Where do you live now, Ann?", "你搬家了吗？")."""
    # the question itself, its last sentence: "Happy birthday! Still in Berlin?" names no one
    # (a capital starting a sentence is no name)
    text = ([s for s in _SENTENCES.split(question.strip()) if s.strip()] or [""])[-1].strip()
    if not is_question(text) or _TO_YOU.search(text):
        return False
    if re.search(r"[\u4e00-\u9fff]", text):
        return re.search(r"[他她]", to_simplified(text)) is not None
    return _THIRD_PERSON_EN.search(text) is not None or (
        _NAMED.search(_APP_NAMES.sub("", _PLACE_NAMED.sub("", text))) is not None
    )


def asked_of_answerer(question: str) -> str | None:
    """The family a question asks the one who answers it for, or None (see the module)."""
    if not is_question(question.strip()) and not _REQUEST.search(question.strip()):
        return None
    zh = re.search(r"[\u4e00-\u9fff]", question) is not None
    folded = rules_zh.fold(to_simplified(question)) if zh else question
    if zh:
        if _SOMEONE_ELSE_ZH.search(folded):
            return None
    # a name asks about that person ("Where is Tom?"), an app's name does not
    elif _SOMEONE_ELSE_EN.search(folded) or _NAMED.search(
        _APP_NAMES.sub("", _PLACE_NAMED.sub("", folded))
    ):
        return None
    # "Where in Shanghai?", "成都哪个区？": the answer is a part of a place already said, and
    # the fold would hold the part and the whole as two homes, one closing the other
    if _PLACE_NAMED.search(folded) or any(city in folded for city in CITIES):
        return None
    families = [f for f in asked_attributes(question) if f.partition(".")[0] in ANSWERED]
    if families:
        return families[0]
    # a bare "where" asks where the answerer is only when put to them ("Where are you now?",
    # "Where exactly?"), not where a thing is ("Where is the doc?")
    return "lives_in" if _WHERE.search(folded) and _TO_YOU.search(folded) else None


def _value(reply: str, family: str) -> str | None:
    """The bare value a reply opens with, or None when it opens with anything else."""
    reply = _ELLIPSIS.sub("", reply.strip(), count=1)
    if family.startswith("contact."):
        first = re.split(r"[,，;；!！。]|\.(?:\s|$)", reply.strip(), maxsplit=1)[0].strip()
        return first if _CONTACT_VALUE.match(first) else None
    first = _FIRST_CLAUSE.split(reply.strip(), maxsplit=1)[0].strip()
    if re.search(r"[\u4e00-\u9fff]", first):
        folded = to_simplified(first)
        if not _ZH_VALUE.match(folded):
            return None
        ending = _ZH_ENDINGS[family]
        city = family in ("lives_in", "located_in") and folded in CITIES
        return first if ending.search(folded) or city else None
    if not _EN_VALUE.match(first) or first.split()[0].casefold() in _EN_REPLY_WORDS:
        return None
    return first


def opens_with_value(reply: str) -> bool:
    """Whether a reply could be a bare answer at all (checked before the question is read)."""
    families = ("lives_in", "works_at", "studies_at", "contact.phone")
    return any(_value(reply, family) for family in families)


def answer_statements(
    question: Record,
    reply: Record,
    speaker: tuple[str, str] | None,
    found: Sequence[Statement] = (),
) -> list[Statement]:
    """What ``reply`` states as the answer to ``question`` (see the module); ``speaker``:
    (subject key, name) of the one who answers (None: unknown, nothing); nothing when the
    rules already ``found`` the answerer's fact of the family asked for in the reply. An
    assistant's reply states nothing about anyone."""
    if speaker is None or reply.role == "assistant" or not opens_with_value(reply.shown_text):
        return []
    if not asked_by_another(question, reply):
        return []
    if question.session != reply.session:
        return []  # another chat's question
    if not_a_statement(reply.shown_text) is not None:
        return []
    family = asked_of_answerer(question.shown_text)
    value = _value(reply.shown_text, family) if family else None
    if family is None or value is None:
        return []
    if any(s.subject == speaker[0] and s.attribute == family for s in found):
        return []
    return [
        Statement(
            record_id=reply.id,
            scope=reply.scope,
            subject=speaker[0],
            subject_name=speaker[1],
            attribute=family,
            value=value,
            said_at=reply.created_at,
            valid_from=reply.event_time or reply.created_at,
            confidence=CONFIDENCE,
        )
    ]


MOVED = ("lives_in", "located_in")  # the families a dated move gives a future value of


def after_moves(answers: list[Statement], earlier: Sequence[Statement | Fact]) -> list[Statement]:
    """Answers that start when a move said before them does: "Where in Shanghai?" - "Jing'an"
    asked after "moving to Shanghai on December 1st" is where one will live from then, so it
    does not close the old home before the move (nor is closed by the move). ``earlier``: the
    answerer's statements or facts said before, a dated move among them (a value said before
    it starts)."""
    out = []
    for answer in answers:
        starts = [
            e.valid_from
            for e in earlier
            if e.subject == answer.subject
            and e.attribute == answer.attribute
            and e.said_at <= answer.said_at < e.valid_from
        ]
        out.append(replace(answer, valid_from=max(starts)) if starts else answer)
    return out
