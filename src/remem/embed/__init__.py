"""Embedding providers: the bundled offline models and remote APIs (OpenAI-compatible,
Ollama, Gemini, Voyage, Jina) behind one transport, a dimension guard and a circuit breaker."""

from remem.embed.base import Embedder, chunk_limit, embed_with_chunks, split_for_embedding
from remem.embed.factory import make_embedder

__all__ = ["Embedder", "chunk_limit", "embed_with_chunks", "make_embedder", "split_for_embedding"]
