"""The one tokenizer for lexical search, used the same way at index and at query time.

- Latin and other space-delimited scripts: words, lower-cased, English stop words dropped,
  Snowball-stemmed ("moved", "moving" -> "move").
- Chinese (runs of Han characters): never one token per run. Depending on ``cjk_mode``:
  character bigrams ("我搬到柏林" -> 我搬 搬到 到柏 柏林), jieba words (rjieba, falling back to
  jieba) or both. Documents also get single characters so that a one-character query
  ("猫") can match; queries use unigrams only for one-character runs.
- Japanese (Han + kana runs) and Korean (Hangul runs): character bigrams, plus the single
  character of one-character runs.
- Traditional Chinese is converted to Simplified first, so "記憶" finds "记忆".
- A query (not a document, not a phrase taken whole) leaves out what it asks with, with the
  English stop words: "many" and "much" after "how", CJK question words (什么时候, 哪里,
  いつ, 언제) and Chinese particles standing alone (的, 了, 是), so "小明什么时候有空" looks
  for 小明 and 有空.

Tokens contain only letters and digits so FTS5's ``unicode61`` tokenizer keeps each intact.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from typing import Literal

from remem.text.lazy_re import lazy_compile
from remem.text.normalize import normalize_text

CjkMode = Literal["bigram", "words", "both"]

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff"
_KANA = "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff"
_HANGUL = "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"
_TOKEN_RE = lazy_compile(
    rf"(?P<cjk>[{_HAN}{_KANA}]+)|(?P<hangul>[{_HANGUL}]+)|(?P<word>[^\W_{_HAN}{_KANA}{_HANGUL}]+)"
)
_KANA_RE = lazy_compile(rf"[{_KANA}]")

# Short, conservative list: words that carry no topic in chat. BM25's IDF would discount them
# anyway; dropping them keeps OR-queries over big stores fast.
ENGLISH_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "at",
        "by",
        "for",
        "with",
        "about",
        "to",
        "from",
        "in",
        "on",
        "into",
        "over",
        "under",
        "is",
        "am",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "doing",
        "have",
        "has",
        "had",
        "having",
        "i",
        "me",
        "my",
        "myself",
        "we",
        "our",
        "ours",
        "you",
        "your",
        "yours",
        "he",
        "him",
        "his",
        "she",
        "her",
        "hers",
        "it",
        "its",
        "they",
        "them",
        "their",
        "theirs",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "no",
        "nor",
        "not",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "s",
        "t",
        "can",
        "will",
        "just",
        "don",
        "should",
        "now",
        "ll",
        "re",
        "ve",
        "d",
        "m",
        "o",
        "y",
        "would",
        "could",
        "shall",
        "may",
        "might",
        "must",
        "let",
        "lets",
        "i'm",
        "it's",
    ]
)

_MAX_TOKEN_LEN = 64
# "how many", "how much": what an English question asks with, as 多少 and 几 in Chinese (cut
# below); "many" and "much" elsewhere ("so much fun") stay words
_HOW_WORDS = frozenset(["many", "much"])

# What a Chinese question asks with, not about: the counterpart of "what", "when", "where",
# "who", "how" in the English stop words. A query's Han run is cut at these before its
# bigrams are made, so "小明什么时候有空" looks for 小明 and 有空, not for 时候 (any "…的时候")
# or 么时 across the gap. Traditional forms too, for text.traditional_to_simplified = false.
_ZH_QUESTION_WORDS = lazy_compile(
    r"几时|幾時|什么时候|什麼時候|什么样|什麼樣|为什么|為什麼|什么|什麼|为啥|為啥|怎么样|怎麼樣|怎么|怎麼|"
    r"怎样|怎樣|哪里|哪裡|哪儿|哪兒|哪个|哪個|哪些|哪位|哪|谁|誰|多少|几(?!乎)|幾(?!乎)|"
    r"是不是|有没有|有沒有|吗|嗎|呢|啥|"
    # Cantonese: what (咩, 乜嘢), where / which / who (边度, 边个 ...), how, why, yes-or-no
    # (系咪, 有冇), and when (几时, first: before 几); not a lone 边 (Mandarin's 旁边, 这边)
    r"咩嘢|咩野|乜嘢|乜野|咩|乜|边度|邊度|边个|邊個|边位|邊位|边间|邊間|边种|邊種|边处|邊處|"
    r"点样|點樣|点解|點解|系咪|係咪|系唔系|係唔係|有冇"
)
# Particles and the copula, where the segmenter leaves them as words of their own: the
# counterpart of "the", "of", "is" in the English stop words. "婷婷的脚是怎么受伤的" looks for
# 婷婷, 脚 and 受伤, not for 婷的 / 的脚 / 脚是; words that hold one stay (目的, 了解, 但是).
_ZH_PARTICLES = frozenset("的了吧啊呀嘛是嘅咗㗎啦喇嘞囉咋吖喎")  # Cantonese: 嘅 (的), 咗 (了) ...
# A character left alone between question words ("你住在哪里了" leaves 了) is a grammatical
# one: it would only match (and read the postings of) nearly every record. A lone content
# character stays ("一晚多少钱" keeps 钱).
_ZH_FUNCTION_CHARS = frozenset(
    "了的是在有和与就都也还又要会能我你他她它们这那个次把被给对从到一不没很太最再"
    "佢哋唔冇系係喺啲嗰咁噉嘅咗"  # Cantonese: he / she, plural, not, is, at, some, that
)

# The same for Japanese (a run with kana: "東京タワーはいつ建てられましたか" looks for 东京タワー
# and 建てられました, not いつ) and Korean (a word that starts with one: 언제, 어디에서, 몇시).
# Not their indefinite uses: いつも (always), 何か (something), どこでも, 誰も, どうぞ.
_JA_QUESTION_WORDS = lazy_compile(
    r"何時|(?:何|なに|なん)(?!か|も|でも|と)|いつ(?!も|か|でも)|どこ(?!か|も|でも)|"
    r"(?:誰|谁|だれ)(?!か|も|でも)|なぜ|どうして|どう(?!ぞ|も|か)|どれ(?!か|も)|どの|"
    r"どちら(?!か|も)|どんな|いくら(?!か|でも)|いくつ(?!か)"
)
_KO_QUESTION_WORD = lazy_compile(r"(어디|뭐|무엇|누구|언제|왜|어떻게|몇|얼마|어느|무슨)")


class _Segmenter:
    """Chinese word segmentation: rjieba (Rust) when installed, else jieba, else none."""

    def __init__(self) -> None:
        self._cut: Callable[[str], list[str]] | None = None
        self._lock = threading.Lock()
        self.backend = "none"

    def cut(self, text: str) -> list[str]:
        if self._cut is None:
            with self._lock:
                if self._cut is None:
                    self._cut = self._load()
        assert self._cut is not None
        return self._cut(text)

    def _load(self):
        try:
            import rjieba

            self.backend = "rjieba"
            return lambda text: rjieba.cut(text, hmm=True)
        except ImportError:
            pass
        try:
            import jieba

            jieba.setLogLevel(60)
            self.backend = "jieba"
            return lambda text: jieba.lcut(text, HMM=True)
        except ImportError:
            self.backend = "none"
            return lambda text: [text]


_segmenter = _Segmenter()


def segment(run: str) -> list[str]:
    """A Chinese run cut into words by the segmenter the index uses (rjieba, else jieba; the
    run whole when neither is installed)."""
    return _segmenter.cut(run)


class Tokenizer:
    """Turns text into lexical tokens; one instance per config, safe to share across threads."""

    def __init__(
        self,
        cjk_mode: CjkMode = "both",
        *,
        stem_english: bool = True,
        drop_stopwords: bool = True,
        traditional_to_simplified: bool = True,
    ) -> None:
        if cjk_mode not in ("bigram", "words", "both"):
            raise ValueError(f"cjk_mode must be bigram, words or both, not {cjk_mode!r}")
        self.cjk_mode = cjk_mode
        self.stem_english = stem_english
        self.drop_stopwords = drop_stopwords
        self.simplify = traditional_to_simplified
        self._local = threading.local()  # PyStemmer objects are not thread safe

    @classmethod
    def from_config(cls, text_config) -> Tokenizer:
        return cls(
            text_config.cjk_mode,
            stem_english=text_config.stem_english,
            drop_stopwords=text_config.drop_stopwords,
            traditional_to_simplified=text_config.traditional_to_simplified,
        )

    def _stem(self, words: list[str]) -> list[str]:
        if not self.stem_english or not words:
            return words
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            import Stemmer

            stemmer = self._local.stemmer = Stemmer.Stemmer("english")
        return stemmer.stemWords(words)

    def _tokens(self, text: str, *, for_query: bool, whole: bool = False) -> list[str]:
        text = normalize_text(text, simplify=self.simplify)
        out: list[str] = []
        words: list[str] = []
        # a query's question words and particles go (with the English stop words)
        cut = for_query and not whole and self.drop_stopwords
        previous = ""
        for match in _TOKEN_RE.finditer(text):
            kind = match.lastgroup
            run = match.group()
            if kind == "word":
                asked_with = cut and previous == "how" and run in _HOW_WORDS
                previous = run
                if (self.drop_stopwords and run in ENGLISH_STOPWORDS) or asked_with:
                    continue
                if len(run) <= _MAX_TOKEN_LEN:
                    words.append(run)
            elif kind == "cjk" and not _KANA_RE.search(run):
                for part in (
                    _question_cut(run, _ZH_QUESTION_WORDS, particles=True) if cut else (run,)
                ):
                    out.extend(self._chinese(part, for_query=for_query))
            elif kind == "cjk":  # Japanese: Han with kana
                for part in _question_cut(run, _JA_QUESTION_WORDS) if cut else (run,):
                    out.extend(_ngrams(part, for_query=for_query))
            elif not (cut and _KO_QUESTION_WORD.match(run)):
                out.extend(_ngrams(run, for_query=for_query))  # Korean
        out.extend(self._stem(words))
        return out

    def _chinese(self, run: str, *, for_query: bool) -> Iterable[str]:
        if self.cjk_mode in ("bigram", "both"):
            yield from _ngrams(run, for_query=for_query)
        if self.cjk_mode in ("words", "both"):
            for word in _segmenter.cut(run):
                if self.cjk_mode == "both" and len(word) < 3:
                    # Bigrams and unigrams already cover words of one or two characters.
                    continue
                if not for_query or len(word) > 1 or len(run) == 1:
                    yield word

    def index_tokens(self, text: str) -> list[str]:
        """Tokens to store for a document (duplicates kept: they are term frequency)."""
        return self._tokens(text, for_query=False)

    def query_tokens(self, text: str) -> list[str]:
        """Distinct tokens of a query, in first-seen order."""
        return list(dict.fromkeys(self._tokens(text, for_query=True)))

    def phrase_tokens(self, text: str) -> list[str]:
        """Distinct query tokens of a phrase taken whole, a dictionary word, a name or a
        record's text: nothing cut at question words or particles (吃的 is "food", not 吃)."""
        return list(dict.fromkeys(self._tokens(text, for_query=True, whole=True)))

    def word_tokens(self, words: list[str]) -> list[str]:
        """The keyword token of each lower-case English word, one for one ("" for a stop word
        or an over-long word): the same tokens ``query_tokens`` gives, for many words at once."""
        kept = [
            w
            if len(w) <= _MAX_TOKEN_LEN and not (self.drop_stopwords and w in ENGLISH_STOPWORDS)
            else ""
            for w in words
        ]
        stems = iter(self._stem([w for w in kept if w]))
        return [next(stems) if w else "" for w in kept]

    def word_pairs(self, text: str) -> list[tuple[str, str]]:
        """(word, keyword token) of each word of the text in a space-delimited script, stop
        words left out: which word a query's token stands for ("caroline" for carolin)."""
        text = normalize_text(text, simplify=self.simplify)
        words = [
            m.group()
            for m in _TOKEN_RE.finditer(text)
            if m.lastgroup == "word" and m.group() not in ENGLISH_STOPWORDS
        ]
        return [(w, t) for w, t in zip(words, self.word_tokens(words), strict=True) if t]

    def index_string(self, text: str) -> str:
        return " ".join(self.index_tokens(text))


def _question_cut(run: str, words: re.Pattern[str], *, particles: bool = False) -> list[str]:
    """A query's run without its question words (and, with ``particles``, its Chinese
    particles), in the pieces they leave, less a lone grammatical character (a Chinese one of
    _ZH_FUNCTION_CHARS, a kana particle: は, が, の); the run whole when it has none."""
    parts = words.split(run)
    if particles:
        parts = [piece for part in parts for piece in _particle_cut(part)]
    if len(parts) == 1:
        return parts
    return [
        p
        for p in parts
        if len(p) > 1 or (p and p not in _ZH_FUNCTION_CHARS and not _KANA_RE.match(p))
    ]


def _particle_cut(run: str) -> list[str]:
    """A Chinese run in the pieces its particles (``_ZH_PARTICLES``, as the segmenter cuts
    them) leave; whole when it holds none or no segmenter is installed."""
    if not any(ch in _ZH_PARTICLES for ch in run):
        return [run]
    pieces, piece = [], ""
    for word in _segmenter.cut(run):
        if word in _ZH_PARTICLES:
            pieces.append(piece)
            piece = ""
        else:
            piece += word
    pieces.append(piece)
    return [p for p in pieces if p]


def _ngrams(run: str, *, for_query: bool) -> Iterable[str]:
    if len(run) == 1:
        yield run
        return
    if not for_query:
        yield from run  # unigrams at index time let one-character queries match
    for i in range(len(run) - 1):
        yield run[i : i + 2]
