"""Test doubles and helpers shared by the tests."""

from __future__ import annotations

import hashlib

import numpy as np


class HashEmbedder:
    """A deterministic stand-in for unit tests of plumbing (not of retrieval quality):
    bag-of-words hashed into 64 dims, so texts sharing words are similar."""

    provider = "test"
    model = "hash64"
    model_id = "test:hash64"
    dim = 64
    default_chunk_chars = 0

    def __init__(self) -> None:
        self.calls = 0
        self.fail = False

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, np.float32)
        for word in text.lower().split():
            h = int(hashlib.md5(word.encode()).hexdigest(), 16)
            v[h % self.dim] += 1.0
        v[0] += 0.01
        return v / np.linalg.norm(v)

    def embed_queries(self, texts):
        return self.embed_passages(texts)

    def embed_passages(self, texts):
        from remem.errors import EmbeddingError

        self.calls += 1
        if self.fail:
            raise EmbeddingError("test embedder is down")
        return np.stack([self._vec(t) for t in texts]) if texts else np.empty((0, self.dim))
