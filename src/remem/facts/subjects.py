"""Whose fact a statement is: the speaker ("I", "我", "我哋"), a relative of the speaker ("my
sister", "我妈"), someone named ("Tom", "汤姆", "李明") or someone referred back to ("he", "她").

``people_of(records)`` builds the name table the extractor resolves names with: every speaker
of the store by label and by the aliases remem already gives a label (``remem.text.names``:
given names, 老/小 + surname, pinyin, self-introductions such as "我是 Tina"), plus English
renderings of a few Chinese transliterations ("Tom" <-> "汤姆") both ways. An alias two people
share names neither, so an ambiguous name stays a bare name subject.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from remem.facts.model import name_subject, speaker_subject
from remem.text.names import aliases, introduced_names
from remem.text.normalize import to_simplified
from remem.types import Record

# English relation words -> the relation's name (the kind of a family.<relation> fact)
RELATIONS_EN: dict[str, str] = {
    "sister": "sister",
    "brother": "brother",
    "mum": "mother",
    "mom": "mother",
    "mother": "mother",
    "dad": "father",
    "father": "father",
    "daughter": "daughter",
    "son": "son",
    "gran": "grandmother",
    "granny": "grandmother",
    "grandma": "grandmother",
    "grandmother": "grandmother",
    "grandpa": "grandfather",
    "grandad": "grandfather",
    "grandfather": "grandfather",
    "aunt": "aunt",
    "uncle": "uncle",
    "cousin": "cousin",
    "niece": "niece",
    "nephew": "nephew",
}
# Chinese (Simplified) relation words, longest first when matched
RELATIONS_ZH: dict[str, str] = {
    "姐姐": "sister",
    "妹妹": "sister",
    "姐": "sister",
    "妹": "sister",
    "哥哥": "brother",
    "弟弟": "brother",
    "哥": "brother",
    "弟": "brother",
    "妈妈": "mother",
    "老妈": "mother",
    "妈": "mother",
    "爸爸": "father",
    "老爸": "father",
    "爸": "father",
    "女儿": "daughter",
    "儿子": "son",
    "奶奶": "grandmother",
    "外婆": "grandmother",
    "姥姥": "grandmother",
    "爷爷": "grandfather",
    "外公": "grandfather",
    "姥爷": "grandfather",
    "老婆": "wife",
    "老公": "husband",
    "大姑": "aunt",
    "姑姑": "aunt",
    "阿姨": "aunt",
    "舅舅": "uncle",
    "叔叔": "uncle",
}
# Partners are one attribute (``partner``), not a family relation
PARTNER_EN = (
    "boyfriend",
    "girlfriend",
    "partner",
    "wife",
    "husband",
    "fiancé",
    "fiancée",
    "fiance",
    "fiancee",
    "spouse",
)
PARTNER_ZH = (
    "女朋友",
    "男朋友",
    "对象",
    "未婚妻",
    "未婚夫",
    "老婆",
    "老公",
    "妻子",
    "丈夫",
    "爱人",
)

# English names and common Chinese transliterations: a name said in one script finds the
# person labelled in the other. Short on purpose: names remem meets in chats, checked by hand.
TRANSLITERATIONS: dict[str, str] = {
    "tom": "汤姆",
    "ann": "安",
    "anna": "安娜",
    "jack": "杰克",
    "mike": "迈克",
    "lucy": "露西",
    "mary": "玛丽",
    "john": "约翰",
    "david": "大卫",
    "emma": "艾玛",
    "kate": "凯特",
    "sam": "山姆",
    "ben": "本",
    "mia": "米娅",
    "lily": "莉莉",
    "tony": "托尼",
    "kevin": "凯文",
    "peter": "彼得",
}


def relative_subject(speaker: str, relation: str) -> str:
    """The subject key of an unnamed relative of a subject ("my brother" said by Ann)."""
    return f"{speaker}/family.{relation}"


def _forms(label: str) -> set[str]:
    forms = {label.casefold(), to_simplified(label).casefold()}
    forms |= {a.text for a in aliases(label) if not a.capital}
    for form in list(forms):
        other = TRANSLITERATIONS.get(form)
        if other:
            forms.add(other)
    for english, chinese in TRANSLITERATIONS.items():
        if chinese in forms:
            forms.add(english)
    return {f for f in forms if f}


def people_of(records: Iterable[Record]) -> dict[str, str]:
    """Casefolded name or alias -> subject key, for every speaker of ``records`` (by id when
    the store knows one, else by label). A form two people share is left out."""
    owners: dict[str, set[str]] = {}
    for record in records:
        label = (record.speaker_label or "").strip()
        if not label and not record.speaker_id:
            continue
        key = speaker_subject(record.speaker_id) if record.speaker_id else name_subject(label)
        names = {label} if label else set()
        if record.speaker_id:
            names.add(record.speaker_id)
        names |= set(introduced_names(record.shown_text))
        for name in names:
            for form in _forms(name):
                owners.setdefault(form, set()).add(key)
    return {form: next(iter(keys)) for form, keys in owners.items() if len(keys) == 1}


def names_a_person(value: str, people: Mapping[str, str]) -> bool:
    """Whether ``value`` is a name or alias one of the store's people goes by."""
    value = value.strip()
    return value.casefold() in people or to_simplified(value).casefold() in people


def resolve_name(name: str, people: Mapping[str, str] | None) -> str:
    """The subject key of a person named in a statement."""
    folded = to_simplified(name.strip()).casefold()
    if people:
        for form in (name.strip().casefold(), folded):
            if form in people:
                return people[form]
    return name_subject(folded)
