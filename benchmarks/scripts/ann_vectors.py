"""Real USE vectors for the ANN benchmark, cached in /tmp (never in the repo).

Texts: every turn of the LoCoMo and LongMemEval-oracle corpora, then the sentences of those
turns (15 characters or more), deduplicated, the first 100,000 (of about 144k distinct texts of
real chat), each cut to 256 characters (long turns would otherwise take half of the embedding
time on a shared 2-core machine). They are embedded once with the bundled multilingual USE model
(512-d, unit length) and cached in ``/tmp/ann``; the queries are the corpora's real questions.

    python benchmarks/scripts/ann_vectors.py            # embeds and caches everything (a few minutes)
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[3] / "shared" / "bench"
if not SHARED.exists():  # a worktree under /work/wt/<name>: shared/ is one level further up
    SHARED = Path(__file__).resolve().parents[4] / "shared" / "bench"
CACHE = Path("/tmp/ann")
CORPORA = ("locomo", "longmemeval_oracle")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")


CORPUS_SIZE = 100_000
MAX_CHARS = 256


def corpus_texts() -> list[str]:
    """Distinct turns and sentences, in a fixed order, at most CORPUS_SIZE of them."""
    turns: list[str] = []
    for name in CORPORA:
        lines = (SHARED / name / "corpus.jsonl").read_text().splitlines()
        turns += [json.loads(line)["text"] for line in lines if line]
    seen: dict[str, None] = {}
    for turn in turns:
        seen.setdefault(turn.strip(), None)
    for turn in turns:
        for sentence in _SENTENCE_END.split(turn):
            sentence = sentence.strip()
            if len(sentence) >= 15:
                seen.setdefault(sentence, None)
    return [t[:MAX_CHARS] for t in seen if t][:CORPUS_SIZE]


def query_texts() -> list[str]:
    out: list[str] = []
    for name in CORPORA:
        lines = (SHARED / name / "queries.jsonl").read_text().splitlines()
        out += [json.loads(line)["query"] for line in lines if line]
    return out


def _embed(texts: list[str], batch: int = 256) -> np.ndarray:
    from remem.embed.local import USEEmbedder

    # one thread: on the shared 2-core machine two threads ran 10x slower (32 vs 300 texts/s)
    emb = USEEmbedder(threads=1)
    out = np.empty((len(texts), emb.dim), np.float32)
    start = time.perf_counter()
    for i in range(0, len(texts), batch):
        out[i : i + batch] = emb.embed_passages(texts[i : i + batch])
        if i % (batch * 20) == 0:
            rate = (i + batch) / (time.perf_counter() - start)
            print(f"  {i + batch}/{len(texts)} texts, {rate:.0f}/s", file=sys.stderr)
    return out


def corpus_vectors() -> np.ndarray:
    """(n, 512) float32 unit vectors of corpus_texts(), embedded once and cached."""
    path = CACHE / "use-corpus.npy"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        np.save(path, _embed(corpus_texts()))
    return np.load(path)


def query_vectors() -> np.ndarray:
    path = CACHE / "use-queries.npy"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        np.save(path, _embed(query_texts()))
    return np.load(path)


def synthetic_million(base: np.ndarray, n: int, seed: int = 7) -> np.ndarray:
    """``n`` vectors that stay on the manifold of the real ones: the real vectors themselves,
    then normalised mixtures of two random real vectors (weights 0.25-0.75) plus small noise.
    Mixtures, not noisy copies: a copy plus noise makes tight clusters of near-duplicates,
    which no real store has and which flatter or punish an ANN index unfairly."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, base.shape[1]), np.float32)
    m = min(n, len(base))
    out[:m] = base[:m]
    step = 100_000
    for start in range(m, n, step):
        stop = min(n, start + step)
        a = base[rng.integers(0, len(base), stop - start)]
        b = base[rng.integers(0, len(base), stop - start)]
        w = rng.uniform(0.25, 0.75, (stop - start, 1)).astype(np.float32)
        mixed = w * a + (1 - w) * b
        mixed += rng.normal(0, 0.01, mixed.shape).astype(np.float32)
        mixed /= np.linalg.norm(mixed, axis=1, keepdims=True)
        out[start:stop] = mixed
    return out


if __name__ == "__main__":
    print(f"{len(corpus_texts())} corpus texts, {len(query_texts())} queries", file=sys.stderr)
    q = query_vectors()
    c = corpus_vectors()
    print(f"cached {c.shape} corpus and {q.shape} query vectors in {CACHE}", file=sys.stderr)
