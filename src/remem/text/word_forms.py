"""The irregular forms of English words, so a question finds the line that says them.

"When did Caroline go to the support group?" is answered by "I went to a support group
yesterday", "How many days ago did I meet Emma?" by "... Emma, who I met at the workshop".
Snowball stems "went" to "went" and "met" to "met": an irregular verb's past forms share no
token with its base, and questions ask with the base ("did I buy") where chats tell in the
past ("I bought"). 186 of LoCoMo's 1,982 questions have an answer that holds another form of
one of their words and not the word itself.

``other_forms`` gives, for a question's tokens, the tokens of the other forms of the same word
(``go`` -> ``went``, ``gone``; ``bought`` -> ``buy``), so the keyword search asks for them
too and the relevance stage counts a line holding one as holding the question's word. Only the
question is widened: the index keeps the tokens it has, so no store is indexed again.

Left out on purpose: forms that are mostly another word in chat ("ground" for grind, "rose"
for rise, "bit" for bite, "born" for bear, "lit" for light, "wound" for wind, "bound" for
bind, "lay" for lie), and be / do / have, whose forms are stop words.
"""

from __future__ import annotations

from collections.abc import Iterable

from remem.text.tokenize import Tokenizer

# base, past, past participle (a comma between two accepted spellings)
IRREGULAR_VERBS = (
    "arise arose arisen",
    "awake awoke awoken",
    "become became become",
    "begin began begun",
    "bend bent bent",
    "bleed bled bled",
    "blow blew blown",
    "break broke broken",
    "breed bred bred",
    "bring brought brought",
    "build built built",
    "burn burnt,burned burnt,burned",
    "buy bought bought",
    "catch caught caught",
    "choose chose chosen",
    "cling clung clung",
    "come came come",
    "creep crept crept",
    "deal dealt dealt",
    "dig dug dug",
    "draw drew drawn",
    "dream dreamt,dreamed dreamt,dreamed",
    "drink drank drunk",
    "drive drove driven",
    "eat ate eaten",
    "fall fell fallen",
    "feed fed fed",
    "feel felt felt",
    "fight fought fought",
    "find found found",
    "flee fled fled",
    "fly flew flown",
    "forbid forbade forbidden",
    "forget forgot forgotten",
    "forgive forgave forgiven",
    "freeze froze frozen",
    "get got gotten",
    "give gave given",
    "go went gone",
    "grow grew grown",
    "hang hung hung",
    "hear heard heard",
    "hide hid hidden",
    "hold held held",
    "keep kept kept",
    "kneel knelt knelt",
    "know knew known",
    "lay laid laid",
    "lead led led",
    "lean leant,leaned leant,leaned",
    "leap leapt,leaped leapt,leaped",
    "learn learnt,learned learnt,learned",
    "leave left left",
    "lend lent lent",
    "lose lost lost",
    "make made made",
    "mean meant meant",
    "meet met met",
    "overcome overcame overcome",
    "pay paid paid",
    "prove proved proven",
    "rebuild rebuilt rebuilt",
    "redo redid redone",
    "rewrite rewrote rewritten",
    "ride rode ridden",
    "ring rang rung",
    "run ran run",
    "say said said",
    "see saw seen",
    "seek sought sought",
    "sell sold sold",
    "send sent sent",
    "sew sewed sewn",
    "shake shook shaken",
    "shine shone shone",
    "shoot shot shot",
    "show showed shown",
    "shrink shrank shrunk",
    "sing sang sung",
    "sink sank sunk",
    "sit sat sat",
    "sleep slept slept",
    "slide slid slid",
    "speak spoke spoken",
    "speed sped sped",
    "spend spent spent",
    "spill spilt,spilled spilt,spilled",
    "spin spun spun",
    "spring sprang sprung",
    "stand stood stood",
    "steal stole stolen",
    "stick stuck stuck",
    "sting stung stung",
    "stink stank stunk",
    "strike struck struck",
    "strive strove striven",
    "swear swore sworn",
    "sweep swept swept",
    "swim swam swum",
    "swing swung swung",
    "take took taken",
    "teach taught taught",
    "tear tore torn",
    "tell told told",
    "think thought thought",
    "throw threw thrown",
    "understand understood understood",
    "undertake undertook undertaken",
    "wake woke woken",
    "wear wore worn",
    "weave wove woven",
    "weep wept wept",
    "win won won",
    "withdraw withdrew withdrawn",
    "write wrote written",
)
# singular, plural ("lives" and "leaves" are also verbs: left out)
IRREGULAR_NOUNS = (
    "child children",
    "man men",
    "woman women",
    "foot feet",
    "tooth teeth",
    "mouse mice",
    "goose geese",
    "wife wives",
    "knife knives",
    "wolf wolves",
    "shelf shelves",
    "half halves",
    "thief thieves",
)


def other_forms(tokenizer: Tokenizer, tokens: Iterable[str], *, on: bool = True) -> dict[str, str]:
    """Each token of another form of one of ``tokens``' words, mapped to the token it is a
    form of (the first of them): {"went": "go", "gone": "go"} for ["go"]; {} when not ``on``
    (``text.word_forms``)."""
    if not on:
        return {}
    groups = _groups(tokenizer)
    asked = list(dict.fromkeys(tokens))
    out: dict[str, str] = {}
    for token in asked:
        for form in groups.get(token, ()):
            if form not in out and form not in asked:
                out[form] = token
    return out


# (stem_english, drop_stopwords) -> token -> the tokens of its word's other forms
_GROUPS: dict[tuple[bool, bool], dict[str, tuple[str, ...]]] = {}


def _groups(tokenizer: Tokenizer) -> dict[str, tuple[str, ...]]:
    """The table as this tokenizer's settings stem it, built once per setting."""
    key = (tokenizer.stem_english, tokenizer.drop_stopwords)
    found = _GROUPS.get(key)
    if found is None:
        out: dict[str, set[str]] = {}
        for entry in IRREGULAR_VERBS + IRREGULAR_NOUNS:
            words = [w for part in entry.split() for w in part.split(",")]
            forms = {t for t in tokenizer.word_tokens(words) if t}
            if len(forms) < 2:
                continue
            for form in forms:
                out.setdefault(form, set()).update(forms - {form})
        found = _GROUPS[key] = {t: tuple(sorted(others)) for t, others in out.items()}
    return found
