"""The Embedder protocol and provider-independent chunking of long texts."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from remem.errors import EmbeddingError


@runtime_checkable
class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors.

    Queries and passages are embedded differently by task-aware models (e5's ``query: `` /
    ``passage: `` prefixes, Jina's ``task`` parameter), so the two calls are separate.
    """

    # Read-only members, so a class attribute, an instance attribute or a property (a
    # wrapper's, or a remote model's size learned on first use) all satisfy them.
    @property
    def provider(self) -> str: ...  # "local", "openai", "ollama", ...
    @property
    def model(self) -> str: ...  # the provider's model name
    @property
    def model_id(self) -> str: ...  # provider:model[@dim]; every stored vector records it
    @property
    def dim(self) -> int: ...
    @property
    def default_chunk_chars(self) -> int: ...  # 0 = the model handles any length itself

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...
    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...


def probe_now(embedder: Embedder) -> None:
    """Before an explicit backfill: an embedder behind a circuit breaker lets its next call
    through as the trial even while the breaker is open (``embed.breaker``), so a run the
    user asked for learns that the provider is back instead of waiting out a cool-down
    started by failed searches. Other embedders have nothing to probe."""
    probe = getattr(embedder, "probe_now", None)
    if callable(probe):
        probe()


def chunk_limit(embedder: Embedder, config) -> int:
    """Characters per piece: ``embed.chunk_chars`` if set, else the provider's own default."""
    return embedder.default_chunk_chars if config.chunk_chars is None else config.chunk_chars


_BREAK_RE = re.compile(r"(?<=[.!?。！？；;\n])\s*|\s+")


def split_for_embedding(text: str, max_chars: int, overlap: int = 0) -> list[str]:
    """Split text into pieces of at most ``max_chars``, preferring sentence then word breaks.

    Consecutive pieces share up to ``overlap`` characters so a sentence cut at a boundary is
    still seen whole by one of them. Every character of ``text`` is in some piece.
    """
    if max_chars <= 0 or len(text) <= max_chars:
        return [text]
    overlap = max(0, min(overlap, max_chars // 2))
    pieces: list[str] = []
    start = 0
    n = len(text)
    while start < n:
        end = min(n, start + max_chars)
        if end < n:
            # Last sentence or word break in the back half of the window, if any.
            best = -1
            for m in _BREAK_RE.finditer(text, start + max_chars // 2, end):
                best = m.end()
            if best > start:
                end = best
        piece = text[start:end]
        if piece.strip():
            pieces.append(piece)
        if end >= n:
            break
        start = max(end - overlap, start + 1)
    return pieces or [text]


def embed_configured(
    embedder: Embedder, texts: Sequence[str], config, *, is_query: bool
) -> np.ndarray:
    """``embed_with_chunks`` with the chunking and batch size of an ``embed`` config."""
    return embed_with_chunks(
        embedder,
        texts,
        is_query=is_query,
        max_chars=chunk_limit(embedder, config),
        overlap=config.chunk_overlap,
        batch_size=config.batch_size,
    )


def embed_with_chunks(
    embedder: Embedder,
    texts: Sequence[str],
    *,
    is_query: bool,
    max_chars: int,
    overlap: int,
    batch_size: int,
) -> np.ndarray:
    """Embed texts in batches; a text longer than ``max_chars`` is split into pieces whose
    vectors are averaged (weighted by piece length) and re-normalised. Nothing is truncated."""
    pieces: list[str] = []
    owner: list[int] = []
    for i, text in enumerate(texts):
        for piece in split_for_embedding(text, max_chars, overlap):
            pieces.append(piece)
            owner.append(i)
    call = embedder.embed_queries if is_query else embedder.embed_passages
    parts: list[np.ndarray] = []
    for start in range(0, len(pieces), batch_size):
        batch = pieces[start : start + batch_size]
        vecs = np.asarray(call(batch), dtype=np.float32)
        if vecs.ndim != 2 or vecs.shape[0] != len(batch):
            raise EmbeddingError(
                f"{embedder.model_id} returned {vecs.shape[0] if vecs.ndim else 0} vectors for "
                f"{len(batch)} texts"
            )
        if vecs.shape[1] != embedder.dim:
            raise EmbeddingError(
                f"{embedder.model_id} returned vectors of dimension {vecs.shape[1]}, expected "
                f"{embedder.dim}; set embed.dimensions to the model's real size"
            )
        parts.append(vecs)
    if not parts:
        return np.empty((0, embedder.dim), np.float32)
    matrix = np.concatenate(parts)
    if not np.all(np.isfinite(matrix)):
        raise EmbeddingError(f"{embedder.model_id} returned NaN or infinite values")
    if len(pieces) == len(texts):
        return _normalise(matrix)
    out = np.zeros((len(texts), embedder.dim), np.float32)
    weights = np.array([len(p) for p in pieces], np.float32)
    np.add.at(out, np.array(owner), matrix * weights[:, None])
    return _normalise(out)


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)
