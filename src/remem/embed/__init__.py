"""Embedding providers: the bundled offline models and OpenAI-compatible HTTP APIs."""

from remem.embed.base import Embedder, chunk_limit, embed_with_chunks, split_for_embedding
from remem.embed.factory import make_embedder

__all__ = ["Embedder", "chunk_limit", "embed_with_chunks", "make_embedder", "split_for_embedding"]
