"""Bulk passages on several cores: one model call per core at once, each on one thread.

A model call on several BLAS threads costs far more CPU than the same texts on one, on a
shared machine (``fast_model.fast_workers``); ``SideBySide`` splits a bulk call's texts into
parts of about equal length and runs the parts at once, on handles of one model that share
its weights. Each handle runs its passages on its own background thread (``query_first``:
lower OS priority, a search's query first), so the bulk work yields to chats as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from remem.embed.base import Embedder


def balanced_parts(texts: Sequence[str], n: int) -> list[Sequence[str]]:
    """``texts`` cut into at most ``n`` consecutive parts of about equal characters (a call's
    cost grows with its text), none empty."""
    total = sum(map(len, texts))
    parts: list[Sequence[str]] = []
    start, seen = 0, 0
    for i, text in enumerate(texts):
        seen += len(text)
        # close a part once it holds its share of the characters, leaving a text for each
        # part still to come
        if len(parts) < n - 1 and seen * n >= total * (len(parts) + 1) and i + 1 < len(texts):
            parts.append(texts[start : i + 1])
            start = i + 1
    if start < len(texts):
        parts.append(texts[start:])
    return parts


class SideBySide:
    """An ``Embedder`` whose ``embed_passages`` runs on every handle in ``models`` at once
    (handles of one model: ``fast_model.fast_workers``); queries go to the first."""

    def __init__(self, models: Sequence[Embedder]) -> None:
        if not models:
            raise ValueError("SideBySide needs at least one model handle")
        self.models = list(models)
        first = self.models[0]
        self.provider = first.provider
        self.model = first.model
        self.model_id = first.model_id
        self.dim = first.dim
        self.default_chunk_chars = first.default_chunk_chars
        self._pool = ThreadPoolExecutor(len(self.models), thread_name_prefix="remem-side-by-side")

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.models[0].embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        parts = balanced_parts(texts, len(self.models))
        if len(parts) <= 1:
            return self.models[0].embed_passages(texts)
        # BLAS's thread count is one setting for the whole process: held at one here, each
        # handle's own limit of one (set and restored around its calls) cannot hand another
        # handle's call in flight the default back
        from threadpoolctl import threadpool_limits  # only a bulk call needs it

        with threadpool_limits(1, user_api="blas"):
            done = [
                self._pool.submit(model.embed_passages, part)
                for model, part in zip(self.models, parts, strict=False)
            ]
            wait(done)  # all of them, also when one failed: none runs on after the limit
            vectors = [np.asarray(d.result(), np.float32).reshape(-1, self.dim) for d in done]
        return np.concatenate(vectors)

    def close(self) -> None:
        self._pool.shutdown(wait=True)
