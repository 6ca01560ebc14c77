"""When a new curated memory is one the scope already holds.

In order: the exact text (its content hash), the normalised text (case, width, punctuation,
spaces, Traditional/Simplified folded: the ``norm`` hash every memory carries in its
metadata), then, for captured and tool memories, vector similarity at or above
``capture.dedup_similarity`` among the scope's current memories.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from remem.schemas import content_hash
from remem.search.pipeline import Searcher
from remem.store.base import MemoryMatch, Store
from remem.text.normalize import to_simplified
from remem.types import Filters, Record

_PUNCT = re.compile(r"[\W_]+", re.UNICODE)


def normalised(text: str) -> str:
    folded = to_simplified(unicodedata.normalize("NFKC", text)).casefold()
    return _PUNCT.sub("", folded)


def norm_hash(text: str) -> str:
    return hashlib.sha256(normalised(text).encode("utf-8")).hexdigest()


def find_equal(store: Store, text: str, scope: str, now: float) -> tuple[Record, str] | None:
    """A current memory of ``scope`` with the same text ("exact") or the same normalised text
    ("normalised"); ``Memory.add`` stops here, captured memories go on to similar vectors."""
    exact = store.current_memories(
        MemoryMatch(scope, now, content_hash=content_hash(text), limit=1)
    )
    if exact:
        return exact[0], "exact"
    norm = ("norm", norm_hash(text))
    similar = store.current_memories(MemoryMatch(scope, now, metadata_equals=norm, limit=1))
    if similar:
        return similar[0], "normalised"
    return None


def find_similar(
    searcher: Searcher, text: str, scope: str, now: float, threshold: float
) -> tuple[Record, str] | None:
    """The scope's current memory nearest ``text`` in the vector channel, when its cosine is
    at or above ``threshold``; None when the channel could not run (fail open)."""
    result = searcher.search(
        text,
        1,
        Filters(kinds=["memory"], scopes=[scope], include_superseded=False),
        now,
        channels=("vector",),
    )
    if result.degraded or not result.hits:
        return None
    hit = result.hits[0]
    cosine = hit.explain.vector_score
    if cosine is not None and cosine >= threshold:
        return hit.record, f"similar ({cosine:.3f})"
    return None
