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
from remem.retrieve.context import StageContext
from remem.retrieve.names import SpeakerNames, embedded_query
from remem.retrieve.scoped_terms import held_tokens, narrows
from remem.store.base import Store
from remem.text.bilingual import ENGLISH_STOPWORDS, Bilingual, dictionary, english_keys
from remem.text.normalize import to_simplified
from remem.text.spelt_names import drop_possessives, spelt_names
from remem.text.tokenize import Tokenizer
from remem.types import Filters

PER_WORD = 2  # translations kept per question word (those the store holds, most used first)
MAX_ADDED = 12  # words added to one query at most
CANDIDATES = 24  # Chinese words looked up in the store per English word (earliest senses first)

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_CAPITALISED = re.compile(r"(?<![A-Za-z'-])[A-Z][a-z]+(?![A-Za-z'-])")
# The most frequent Chinese characters: a store that holds Chinese holds some of them
# (Chinese documents are also indexed by single characters). Looking up a term the index lacks
# is one b-tree seek, so an English store's probe stays cheap.
_HAN_PROBE = list(
    "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能子那得着下"
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

    def translate(
        self,
        query: str,
        names: Iterable[str] = (),
        filters: Filters | None = None,
        now: float | None = None,
    ) -> Translation:
        """The translations of ``query``'s words that the records passing ``filters`` hold
        (the store's, without them: ``scoped_terms.py``); ``names`` (people's names and
        aliases) are left untranslated ("小明" is not "small" + "bright")."""
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
        candidates: list[list[tuple[str, tuple[str, ...]]]] = []  # per question word
        keys: list[str | None] = []  # the English key of each, for the English words
        if has_han:
            for word in bilingual.cut(query):
                candidates.append([(g.text, g.tokens) for g in bilingual.glosses(word)])
                keys.append(None)
        if english_words:
            for key, options in self._chinese_candidates(bilingual, latin):
                candidates.append(options)
                keys.append(key)
            romanised = self._romanised_candidates(bilingual, query)
            candidates += romanised
            keys += [None] * len(romanised)
        return self._held(candidates, keys, filters, now)

    def _chinese_candidates(
        self, bilingual: Bilingual, latin: list[str]
    ) -> list[tuple[str, list[tuple[str, tuple[str, ...]]]]]:
        """(English key, its Chinese words with their tokens) for each key found."""
        asked = [w for w in latin if w not in ENGLISH_STOPWORDS]
        words = [w for w in self._tokenizer.word_tokens(asked) if w]
        out = []
        for key in english_keys(words):
            found = bilingual.chinese_for(key)
            if found:
                options = found[:CANDIDATES]
                out.append((key, [(w, tuple(self._tokenizer.phrase_tokens(w))) for w in options]))
        return out

    def _romanised_candidates(
        self, bilingual: Bilingual, query: str
    ) -> list[list[tuple[str, tuple[str, ...]]]]:
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
        candidates: list[list[tuple[str, tuple[str, ...]]]],
        keys: list[str | None],
        filters: Filters | None,
        now: float | None,
    ) -> Translation:
        """Per question word, up to PER_WORD translations whose tokens the records passing
        ``filters`` all hold, the most used in the store first; and which English keys had
        one."""
        asked = {t for options in candidates for _, tokens in options for t in tokens}
        if not asked:
            return Translation()
        _, df = self._store.term_stats(sorted(asked))
        if narrows(filters):
            asked_held = sorted(t for t, n in df.items() if n)
            seen = held_tokens(self._store, asked_held, filters, now, df)
            df = {t: n for t, n in df.items() if t in seen}
        out = Translation()
        for key, options in zip(keys, candidates, strict=True):
            held = [
                (min(df.get(t, 0) for t in tokens), text, tokens)
                for text, tokens in options
                if tokens and all(df.get(t, 0) for t in tokens)
            ]
            if held and key is not None and " " not in key:
                out.held_english.add(key)
            held.sort(key=lambda h: -h[0])
            for _, text, tokens in held[:PER_WORD]:
                if text not in out.words and len(out.words) < MAX_ADDED:
                    out.words.append(text)
                    out.tokens += [t for t in tokens if t not in out.tokens]
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
    config, query = ctx.config, ctx.query
    rename = config.names.translate_vector and "vector" in channels
    words = config.translate.keyword or config.translate.vector
    prefer = config.scoring.named_speaker < 1  # the named_speaker stage reads them too
    named = translator.names.named(query, ctx.filters) if rename or words or prefer else {}
    ctx.named = named
    vector_query, query_vector = embedded_query(
        query, query_vector, named if rename else None, ctx.notes
    )
    translation = Translation()
    if words:  # people's names are not translated
        names = [*named, *named.values()]
        translation = translator.translate(query, names, ctx.filters, ctx.now)
        ctx.held_english = translation.held_english
        vector_query, query_vector = translated_query(
            vector_query, query_vector, translation, config.translate, ctx.notes
        )
    return vector_query, query_vector, translation
