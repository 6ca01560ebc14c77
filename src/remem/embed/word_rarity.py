"""How much a word says in general language, for stores too small to tell by themselves.

BM25's IDF weighs a word by how few of the store's records hold it. In a store of a dozen
records that says little: every word the store never used gets the highest weight, so in "How
many days ago did I buy a smoker?" asked of twelve records about smoking meat, "days", "ago"
and "buy" outweighed "smoker", which five records hold. The bundled USE model's tokenizer
carries a unigram language model over its 128k pieces (sentencepiece, trained on text in 16
languages): the negative log-probability of a word's best segmentation is how surprising the
word is in general text ("the" 4.9, "take" 8.8, "ago" 10.0, "smoker" 18.3, "rachel" 24.3).

``WordRarity.weights`` turns that into weights above the commonest words' level (COMMON):
what a question's words weigh in a store under ``query_terms.UNSEEN_MIN_RECORDS`` records. The
tokenizer is loaded on first use (~0.1 s from its cache, ``use_tokenizer.py``; once per
process, shared with the USE model); without the bundled USE package the weights are None and
the store's IDF stands.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from functools import lru_cache

log = logging.getLogger("remem.search")

# The surprise of the commonest content words ("first" 8.4, "take" 8.8, "many" 8.8): a word
# weighs what it says beyond them; stop words are already gone. 7 against 0 (the raw surprise):
# LongMemEval session recall@10 0.997 against 0.995, LoCoMo's probes asked of its first 30
# stores one by one answered 7.3% against 8.6% (6.6% with IDF; remem-bench's word-rarity.json)
COMMON = 7.0
# IDF tops out near 5.3 in a store of 100 records; one hash or serial number (surprise 70-180)
# must not make a question's coverage all or nothing
MOST = 15.0
_lock = threading.Lock()


class WordRarity:
    """Per process: the bundled USE tokenizer's unigram surprise of words."""

    def __init__(self) -> None:
        self._tokenizer: object | None = None
        self._off: str | None = None

    def weights(self, words: Iterable[str]) -> dict[str, float] | None:
        """Each word's surprise above COMMON (0 at or below it, at most MOST), or None when
        there is no word to weigh or the bundled USE tokenizer is not available."""
        wanted = list(dict.fromkeys(words))
        tokenizer = self._load() if wanted else None
        if tokenizer is None:
            return None
        return {w: min(MOST, max(0.0, _surprise(tokenizer, w) - COMMON)) for w in wanted}

    def _load(self) -> object | None:
        if self._tokenizer is not None or self._off is not None:
            return self._tokenizer
        with _lock:
            if self._tokenizer is None and self._off is None:
                try:
                    from remem.embed.local import use_tokenizer

                    tokenizer = use_tokenizer()  # the one the witness's USE model reads too
                    # the unigram model's log-probabilities, and what it scores a lacking
                    # character at
                    if not tokenizer._scores or not isinstance(tokenizer._unk_score, float):
                        raise ValueError("the USE tokenizer has no piece scores")
                    self._tokenizer = tokenizer
                except Exception as exc:  # evidence, not a requirement
                    self._off = str(exc)
                    log.info("word rarity off (small stores weigh words by IDF): %s", exc)
        return self._tokenizer


def _surprise(tokenizer: object, word: str) -> float:
    """The negative log-probability of the word's best segmentation under the unigram model, a
    character the model lacks scored as its segmentation scores it (the lowest piece score
    less 10), not as the unknown piece's stored 0."""
    ids = tokenizer.encode(word, add_bos=False, add_eos=False)  # type: ignore[attr-defined]
    scores = tokenizer._scores  # type: ignore[attr-defined]
    unknown = tokenizer._unk_score  # type: ignore[attr-defined]
    return -sum(scores[i] if 0 < i < len(scores) else unknown for i in ids)


@lru_cache(maxsize=1)
def word_rarity() -> WordRarity:
    """The process's one WordRarity (the tokenizer holds ~34 MB of pieces)."""
    return WordRarity()
