"""Plain BM25, the reference remem's keyword channel is held to (issue 46), and the query
shapes its comparison is reported by.

``PlainBM25`` scores a store's records over the very tokens remem indexed for them
(``LexicalStore.lexical_tokens``: each record's own text, speaker label included; not the
context column of the turns before it) for the tokens remem's tokenizer makes of the whole
query taken as a phrase (``Tokenizer.phrase_tokens``: English stop words out, Chinese as
character bigrams, nothing cut at question words). No pruning, no query rewriting, no
translation, no word forms: what "plain BM25 over the same text" means in the issue.

The formula is Lucene's (bm25s's default): idf = ln(1 + (N - df + 0.5) / (df + 0.5)), term
frequency saturated with k1 = 1.5, length normalised with b = 0.75 over the store's mean record
length; each distinct query token counts once.

``query_shapes`` tags a query with the shapes the comparison is split by: how many messages it
holds (one question, or a dialogue of "Name: text" lines), how long it is (past the vector
channel's 32-token budget), and its script (CJK or Latin).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from remem.text.budget import estimate_tokens

K1 = 1.5
B = 0.75
# A query longer than this many estimated tokens is "long": the vector channel embeds only
# its last 32 (search.query_embed_tokens), the keyword channel all of it.
LONG_QUERY_TOKENS = 32
_SPEAKER_LINE = re.compile(r"^\s*[^:：\n]{1,24}[:：]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\u3040-\u30ff\uac00-\ud7af]")
_LATIN = re.compile(r"[A-Za-z]")


class PlainBM25:
    """BM25 over fixed documents of tokens (one per record, keyed by rowid)."""

    def __init__(self, docs: Mapping[int, Sequence[str]]) -> None:
        self.tf = {rowid: Counter(tokens) for rowid, tokens in docs.items()}
        self.length = {rowid: len(tokens) for rowid, tokens in docs.items()}
        self.n = len(self.tf)
        self.avg_length = sum(self.length.values()) / self.n if self.n else 0.0
        self.df: Counter[str] = Counter()
        self.postings: dict[str, list[int]] = {}
        for rowid, counts in self.tf.items():
            for token in counts:
                self.df[token] += 1
                self.postings.setdefault(token, []).append(rowid)

    def idf(self, token: str) -> float:
        df = self.df.get(token, 0)
        return math.log(1 + (self.n - df + 0.5) / (df + 0.5))

    def scores(self, query: Sequence[str]) -> dict[int, float]:
        """Each record holding a query token -> its BM25 score (records holding none left out)."""
        out: dict[int, float] = {}
        for token in dict.fromkeys(query):
            idf = self.idf(token)
            for rowid in self.postings.get(token, ()):
                tf = self.tf[rowid][token]
                norm = 1 - B + B * self.length[rowid] / self.avg_length
                out[rowid] = out.get(rowid, 0.0) + idf * tf * (K1 + 1) / (tf + K1 * norm)
        return out

    def top(self, query: Sequence[str], k: int) -> list[int]:
        """The ``k`` best rowids, best first (ties by rowid)."""
        scored = self.scores(query)
        return sorted(scored, key=lambda rowid: (-scored[rowid], rowid))[:k]


def is_dialogue(query: str) -> bool:
    """Two or more non-empty lines, at least two of them "Name: text" (a chat so far)."""
    lines = [line for line in query.splitlines() if line.strip()]
    return len(lines) >= 2 and sum(bool(_SPEAKER_LINE.match(line)) for line in lines) >= 2


def query_shapes(query: str, category: str) -> list[str]:
    """The shapes a query is reported under: ``all``, ``single``/``dialogue``/``multi-line``,
    ``short``/``long``, ``cjk``/``latin`` and ``category:<its category>``."""
    lines = [line for line in query.splitlines() if line.strip()]
    if is_dialogue(query):
        form = "dialogue"
    elif len(lines) > 1:
        form = "multi-line"
    else:
        form = "single"
    length = "long" if estimate_tokens(query) > LONG_QUERY_TOKENS else "short"
    script = "cjk" if len(_CJK.findall(query)) >= len(_LATIN.findall(query)) / 4 else "latin"
    return ["all", form, length, script, f"category:{category}"]
