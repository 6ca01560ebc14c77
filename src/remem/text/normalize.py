"""Text normalisation shared by indexing and querying.

NFKC folds full-width forms ("ＡＢＣ１２３" -> "ABC123") that Chinese and Japanese input
methods produce; Traditional Chinese is mapped to Simplified so that either script finds the
other (OpenCC's character- and phrase-level table, not a naive one-to-one map).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

_HAN_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_lock = threading.Lock()
_converter = None


def _opencc():
    global _converter
    with _lock:
        if _converter is None:
            import opencc

            _converter = opencc.OpenCC("t2s")
        return _converter


@lru_cache(maxsize=4096)
def _convert_cached(text: str) -> str:
    return _opencc().convert(text)


def to_simplified(text: str) -> str:
    """Traditional -> Simplified Chinese; text without Han characters is returned unchanged."""
    if not _HAN_RE.search(text):
        return text
    if len(text) <= 64:
        return _convert_cached(text)
    return _opencc().convert(text)


def normalize_text(text: str, *, simplify: bool = True) -> str:
    """NFKC, lower case, Simplified Chinese. Used for tokens and content hashes."""
    text = unicodedata.normalize("NFKC", text).lower()
    return to_simplified(text) if simplify else text
