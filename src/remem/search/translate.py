"""Questions asked in one script about messages in another: dictionary words for the search.

An English question about a Chinese chat ("How much does the Wugong trip cost per person?")
shares no keyword with the answer (武功山费用要调整到每人 720), and the bundled e5-small
matches the two languages poorly; the same holds the other way ("小屋一晚多少钱？" against
"The hut costs 65 euros per night"). With ``translate.keyword`` / ``translate.vector`` the
search adds dictionary translations (``remem.text.bilingual``, CC-CEDICT) of the question's
words: to the keyword query as more words to match, and to the text the model embeds.

Only translations the store holds are added: a translated word must be in the keyword index
of the store, which picks, among a word's dictionary senses, the ones the chat uses ("小屋":
cabin, lodge, cottage, chalet, hut -> "hut"). A store in one script gets nothing added: the
English question is translated only in a store that holds Chinese at all (a few probe
characters, counted once per database state), so an English store never loads the dictionary;
a Chinese question's glosses are simply not found in a store without English.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from remem.config import TranslateConfig
from remem.search.context import StageContext
from remem.search.query_names import SpeakerNames, embedded_query
from remem.search.scoped_terms import held_tokens, narrows
from remem.search.sense_agreement import Question, Sense, agreeing
from remem.store.base import Store
from remem.text.bilingual import ENGLISH_STOPWORDS, Bilingual, dictionary, english_keys
from remem.text.lazy_re import lazy_compile
from remem.text.normalize import to_simplified
from remem.text.spelt_names import drop_possessives, spelt_names
from remem.text.tokenize import Tokenizer
from remem.text.word_senses import (
    CHINESE_FUNCTION_WORDS,
    CHINESE_SENSES,
    CHINESE_VAGUE_WORDS,
    ENGLISH_FUNCTION_WORDS,
    ENGLISH_PAST_FORMS,
    ENGLISH_SENSES,
    ENGLISH_VAGUE_WORDS,
)
from remem.types import Filters

PER_WORD = 2  # translations kept per question word (those the store holds, most used first)
MAX_ADDED = 12  # words added to one query at most
CANDIDATES = 24  # Chinese words looked up in the store per English word (earliest senses first)

_HAN = lazy_compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = lazy_compile(r"[A-Za-z][A-Za-z'-]*")
_CAPITALISED = lazy_compile(r"(?<![A-Za-z'-])[A-Z][a-z]+(?![A-Za-z'-])")
# a capitalised word that does not open a sentence (after a letter, a comma, a space...)
_INSIDE_SENTENCE = lazy_compile(r"(?<=[^.!?。！？\s])\s+([A-Z][a-z]+)(?![A-Za-z'-])")
# The most frequent Chinese characters: a store that holds Chinese holds some of them
# (Chinese documents are also indexed by single characters). Looking up a term the index lacks
# is one b-tree seek, so an English store's probe stays cheap.
_HAN_PROBE = list(
    "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能子那得着下"
)


Options = list[tuple[str, tuple[str, ...]]]  # (a translation, its keyword tokens)


@dataclass(frozen=True, slots=True)
class Word:
    """A question word to translate: its English key (None for a Chinese word), its own
    keyword tokens, and its translations."""

    key: str | None
    own: tuple[str, ...]
    options: Options
    reading: bool = False  # a name written in pinyin (年糕 for "Niangao"): kept without agreement
    to_chinese: bool = True  # an English word (its senses are Chinese)


def _says_nothing(text: str) -> bool:
    """Whether an English word or phrase is only function words or vague verbs ("still",
    "go to"): asked with, never asked about."""
    return all(
        w in ENGLISH_STOPWORDS or w in ENGLISH_FUNCTION_WORDS or w in ENGLISH_VAGUE_WORDS
        for w in text.split()
    )


@dataclass
class Translation:
    """What a question's translation adds: keyword tokens and text for the embedded query."""

    tokens: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)
    # the question's English keyword tokens with a translation the store holds ("hospit" in
    # a chat that says 医院): words the store did talk of, in the other script
    held_english: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.tokens)


class QueryTranslator:
    """Dictionary translations of a question, kept to the words a store holds."""

    def __init__(self, store: Store, tokenizer: Tokenizer, names: SpeakerNames | None = None):
        self._store = store
        self.names = names if names is not None else SpeakerNames(store)
        self._tokenizer = tokenizer
        self._lock = threading.Lock()
        self._has_chinese = False
        self._probed: object = object()  # the change token of the last probe that found none
        self._senses: dict[str, str] | None = None  # stem -> ENGLISH_SENSES' word

    def translate(
        self,
        query: str,
        names: Iterable[str] = (),
        filters: Filters | None = None,
        now: float | None = None,
        speakers: Iterable[str] = (),
    ) -> Translation:
        """The translations of ``query``'s words that the records passing ``filters`` hold
        (the store's, without them: ``scoped_terms.py``) and that agree with the question's
        other words there (``sense_agreement.py``); ``names`` (people's names and aliases) are
        left untranslated ("小明" is not "small" + "bright"); ``speakers``: the labels of the
        people the question names (a line they said agrees with every word of it)."""
        names = list(names)
        context = self._question_tokens(query, names)
        for name in sorted(names, key=len, reverse=True):
            query = re.sub(re.escape(name), " ", query, flags=re.IGNORECASE)
        has_han = bool(_HAN.search(query))
        if has_han and self._tokenizer.simplify:
            query = to_simplified(query)  # the dictionary's headwords are Simplified
        latin = [w.lower() for w in _LATIN_WORD.findall(query)]
        if not has_han and not latin:
            return Translation()
        # English words are looked up only in a store that holds Chinese; Chinese ones always
        # (the glosses the store does not hold are dropped below)
        english_words = bool(latin) and self._store_has_chinese()
        if not has_han and not english_words:
            return Translation()
        bilingual = self._dictionary()
        words: list[Word] = []
        if has_han:
            for word in bilingual.cut(query):
                options = self._glosses(bilingual, word)
                if options:
                    own = tuple(self._tokenizer.phrase_tokens(word))
                    words.append(Word(None, own, options, to_chinese=False))
        if english_words:
            proper = self._proper_nouns(query)
            for key, options in self._chinese_candidates(bilingual, latin):
                # a name (Japan, Manchester) has no senses to choose from: its translation is
                # kept without agreement, which one wrong sense of another word ("dates": 日子,
                # held by no line saying 日本) would otherwise deny it
                proper_noun = key in proper
                words.append(
                    Word(key, tuple(key.split()) if key else (), options, reading=proper_noun)
                )
            romanised = self._romanised_candidates(bilingual, query)
            # a name written in pinyin is read, not translated: it has no senses to choose from
            words += [Word(None, (), options, reading=True) for options in romanised]
        return self._held(words, context, set(speakers), filters, now)

    def _proper_nouns(self, query: str) -> set[str]:
        """The keyword stems of the capitalised words inside a sentence of ``query`` (not its
        first word): names of places and things ("our Japan trip", "back to Manchester")."""
        words = [w.lower() for w in _INSIDE_SENTENCE.findall(query)]
        return {t for t in self._tokenizer.word_tokens(words) if t}

    def _question_tokens(self, query: str, names: list[str]) -> set[str]:
        """The question's own keyword tokens and its names' (what a sense may agree with)."""
        tokens = set(self._tokenizer.query_tokens(query))
        for name in names:
            tokens.update(self._tokenizer.phrase_tokens(name))
        return {t for t in tokens if t and t not in ENGLISH_FUNCTION_WORDS}

    def _glosses(self, bilingual: Bilingual, word: str) -> Options:
        """A Chinese word's English glosses worth asking for: an everyday verb's listed senses
        (``word_senses``), none for a function word or a vague verb, else the dictionary's
        first senses less those that are themselves function words ("still" for 还)."""
        listed = CHINESE_SENSES.get(word)
        if listed is not None:
            phrases = ((text, self._tokenizer.word_tokens(text.split())) for text in listed)
            return [(text, tuple(t for t in tokens if t)) for text, tokens in phrases]
        if word in CHINESE_FUNCTION_WORDS or word in CHINESE_VAGUE_WORDS:
            return []
        return [(g.text, g.tokens) for g in bilingual.glosses(word) if not _says_nothing(g.text)]

    def _chinese_candidates(
        self, bilingual: Bilingual, latin: list[str]
    ) -> list[tuple[str | None, Options]]:
        """(English key, its Chinese words with their tokens) for each key found: an everyday
        verb's listed senses (``word_senses``), nothing for a function word or a vague verb,
        else the dictionary's words less the Chinese function words."""
        out: list[tuple[str | None, Options]] = []
        content, listed_keys = [], set()  # the content words in order; the listed verbs' keys
        for word in latin:
            listed = self._listed_senses(word)
            if listed is not None:
                stem = "".join(self._tokenizer.word_tokens([word])) or word
                out.append((stem, [(w, tuple(self._tokenizer.phrase_tokens(w))) for w in listed]))
                content.append(stem)
                listed_keys.add(stem)
            elif not _says_nothing(word):
                content += [t for t in self._tokenizer.word_tokens([word]) if t]
        # pairs of content words are looked up whatever they hold ("paternity leave": 陪产假)
        for key in english_keys(content):
            if key in listed_keys:
                continue
            found = [
                w
                for w in bilingual.chinese_for(key)
                if w not in CHINESE_FUNCTION_WORDS and w not in CHINESE_VAGUE_WORDS
            ]
            if found:
                options = found[:CANDIDATES]
                out.append((key, [(w, tuple(self._tokenizer.phrase_tokens(w))) for w in options]))
        return out

    def _everyday_verb(self, word: Word) -> bool:
        """Whether the question word is one of the everyday verbs ``ENGLISH_SENSES`` lists."""
        return word.key is not None and self._listed_senses(word.key) is not None

    def _listed_senses(self, word: str) -> tuple[str, ...] | None:
        """The senses ``word_senses.ENGLISH_SENSES`` lists for a lower-case English word or
        one of its forms ("lives", "moved", "bought"); None when it lists none."""
        word = ENGLISH_PAST_FORMS.get(word, word)
        if word in ENGLISH_SENSES:
            return ENGLISH_SENSES[word]
        if _says_nothing(word):
            return None  # "quite" stems to "quit"
        if self._senses is None:
            stems = self._tokenizer.word_tokens(list(ENGLISH_SENSES))
            self._senses = {stem: word for word, stem in zip(ENGLISH_SENSES, stems, strict=True)}
        verb = self._senses.get("".join(self._tokenizer.word_tokens([word])))
        return ENGLISH_SENSES[verb] if verb else None

    def _romanised_candidates(self, bilingual: Bilingual, query: str) -> list[Options]:
        """Chinese words an English question writes in pinyin: a capitalised word that is no
        English word ("the cat Niangao" -> 年糕, "move to Panyu" -> 番禺). Words apart only:
        "Chen Mo" is a person (陈默), not 沉默 "silent", which the two syllables also spell."""
        out = []
        query = drop_possessives(query)
        for word in dict.fromkeys(_CAPITALISED.findall(query)):
            key = word.lower()
            if key in ENGLISH_STOPWORDS or self._is_english(bilingual, key):
                continue  # an English word (or a name CC-CEDICT translates: "Shanghai")
            found = bilingual.written_as(key)[:CANDIDATES]
            if found:
                out.append([(w, tuple(self._tokenizer.phrase_tokens(w))) for w in found])
        # ... and people the chat writes about, spelt "Surname Given" ("Chen Mo" -> 陈默)
        names = spelt_names(
            query,
            held=lambda tokens: self._store.term_stats(tokens)[1],
            is_english=lambda pair: self._is_english(bilingual, pair),
        )
        if names:
            out.append([(w, tuple(self._tokenizer.phrase_tokens(w))) for w in names])
        return out

    def _is_english(self, bilingual: Bilingual, text: str) -> bool:
        """Whether lower-case ``text`` (a word or a pair) is a sense CC-CEDICT translates, as
        the keyword index stems it."""
        return bool(bilingual.chinese_for(" ".join(self._tokenizer.word_tokens(text.split()))))

    def _held(
        self,
        words: list[Word],
        question: set[str],
        speakers: set[str],
        filters: Filters | None,
        now: float | None,
    ) -> Translation:
        """Per question word, up to PER_WORD translations whose tokens the records passing
        ``filters`` all hold, the most used in the store first, that agree with the rest of
        the question (``question``: its own tokens; ``speakers``: the people it names); and
        which English keys had one."""
        asked = {t for w in words for _, tokens in w.options for t in tokens}
        if not asked:
            return Translation()
        _, df = self._store.term_stats(sorted(asked))
        if narrows(filters):
            asked_held = sorted(t for t, n in df.items() if n)
            seen = held_tokens(self._store, asked_held, filters, now, df)
            df = {t: n for t, n in df.items() if t in seen}
        _, question_df = self._store.term_stats(sorted(question))
        # words of the question the store never holds and no dictionary entry carries across
        # (a title, a rare name): what it asks about is not in the store in any form
        unheld = {t for t in question if not question_df.get(t, 0)}
        unheld -= {t for w in words for t in w.own}
        question = {t for t in question if question_df.get(t, 0)}  # only what the store holds
        held: list[list[Sense]] = []
        for word in words:
            found = [
                (min(df.get(t, 0) for t in tokens), Sense(text, tokens))
                for text, tokens in word.options
                if tokens and all(df.get(t, 0) for t in tokens)
            ]
            found.sort(key=lambda h: -h[0])
            held.append([sense for _, sense in found])
        out = Translation()
        for i, (word, senses) in enumerate(zip(words, held, strict=True)):
            # the question's words in the senses' script (a name, a word it code-switches to)
            # and the other words' translations: its own-script words never meet a sense
            own = {t for t in question if bool(_HAN.search(t)) == word.to_chinese}
            others = Question(
                frozenset(own - set(word.own)),
                frozenset(t for j, o in enumerate(held) if j != i for s in o for t in s.tokens),
                frozenset(speakers),
            )
            if word.reading:
                kept = senses[:PER_WORD]
            elif not others and unheld and self._everyday_verb(word):
                # the question asks about something the store holds in no form ("Who wrote
                # the Iliad?"): an everyday verb's sense alone (写) agrees with nothing of it
                kept = []
            else:
                kept = agreeing(self._store, senses, others, filters, now, PER_WORD)
            if kept and word.key is not None and " " not in word.key:
                out.held_english.add(word.key)
            for sense in kept:
                if sense.text not in out.words and len(out.words) < MAX_ADDED:
                    out.words.append(sense.text)
                    out.tokens += [t for t in sense.tokens if t not in out.tokens]
        return out

    def _store_has_chinese(self) -> bool:
        """Whether the store holds Chinese: probed once per database state until it does,
        then kept (deleting every Chinese line only leaves translations the store lacks)."""
        if self._has_chinese:
            return True
        token = self._store.change_token()
        with self._lock:
            if self._probed == token:
                return False
        _, df = self._store.term_stats(_HAN_PROBE)
        han = any(df.get(t, 0) for t in _HAN_PROBE)
        with self._lock:
            self._has_chinese, self._probed = han, token
        return han

    def _dictionary(self) -> Bilingual:
        t = self._tokenizer
        return dictionary(t.word_tokens, key=(t.stem_english, t.drop_stopwords))


def translated_query(
    query: str,
    query_vector: np.ndarray | None,
    translation: Translation,
    config: TranslateConfig,
    notes: list[str],
) -> tuple[str, np.ndarray | None]:
    """(the text to embed, the query vector to use: None when the text changed and must be
    embedded again); notes what the translation added."""
    if not translation:
        return query, query_vector
    where = [n for n, on in (("keyword", config.keyword), ("embedded", config.vector)) if on]
    notes.append(
        f"translate: the {' and '.join(where)} query also says {', '.join(translation.words)}"
    )
    if not config.vector:
        return query, query_vector
    return f"{query} {' '.join(translation.words)}", None


def across_scripts(
    ctx: StageContext,
    query_vector: np.ndarray | None,
    channels: tuple[str, ...],
    translator: QueryTranslator,
) -> tuple[str, np.ndarray | None, Translation]:
    """(the text to embed, the query vector to use, the translation for the keyword search) of
    a search: people it names otherwise than their label (``names.translate_vector``), then the
    words of the other script (``translate``)."""
    config, query = ctx.request.config, ctx.request.query
    rename = config.names.translate_vector and "vector" in channels
    words = config.translate.keyword or config.translate.vector
    prefer = config.scoring.named_speaker < 1  # the named_speaker stage reads them too
    named = translator.names.named(query, ctx.request.filters) if rename or words or prefer else {}
    ctx.understood.named = named
    vector_query, query_vector = embedded_query(
        query, query_vector, named if rename else None, ctx.report.notes
    )
    translation = Translation()
    if words:  # people's names are not translated
        names = [*named, *named.values()]
        translation = translator.translate(
            query, names, ctx.request.filters, ctx.request.now, speakers=named
        )
        ctx.understood.held_english = translation.held_english
        vector_query, query_vector = translated_query(
            vector_query, query_vector, translation, config.translate, ctx.report.notes
        )
    return vector_query, query_vector, translation
