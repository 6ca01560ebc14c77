"""The vector size of a remote model: known, configured, or learned only when confirmed.

A provider's first answer used to set the size for the whole process; one mis-sized answer
(a proxy fault, a wrong model behind a shared endpoint) then made every correct answer look
wrong. Here a size comes from ``embed.dimensions``, else from the table of well-known models,
else from two answers that agree. Anything else is refused before it can be stored.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from remem.errors import EmbeddingError

# Native output sizes of common embedding models (their defaults, without a dimensions
# request). Keys are bare model names: see ``known_dimension`` for how names are normalised.
KNOWN_DIMENSIONS: dict[str, int] = {
    # OpenAI
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    # Ollama library / open models
    "nomic-embed-text": 768,
    "nomic-embed-text-v1.5": 768,
    "mxbai-embed-large": 1024,
    "all-minilm": 384,
    "snowflake-arctic-embed": 1024,
    "bge-m3": 1024,
    "bge-large-en-v1.5": 1024,
    "bge-base-en-v1.5": 768,
    "bge-small-en-v1.5": 384,
    "multilingual-e5-small": 384,
    "multilingual-e5-base": 768,
    "multilingual-e5-large": 1024,
    # Jina
    "jina-embeddings-v3": 1024,
    "jina-embeddings-v2-base-en": 768,
    "jina-embeddings-v2-base-zh": 768,
    # Google
    "text-embedding-004": 768,
    "text-embedding-005": 768,
    "text-multilingual-embedding-002": 768,
    "embedding-001": 768,
    "gemini-embedding-001": 3072,
    # Voyage
    "voyage-3": 1024,
    "voyage-3-lite": 512,
    "voyage-3-large": 1024,
    "voyage-3.5": 1024,
    "voyage-3.5-lite": 1024,
    "voyage-code-3": 1024,
    "voyage-multilingual-2": 1024,
    "voyage-finance-2": 1024,
    "voyage-law-2": 1024,
}


def known_dimension(model: str) -> int | None:
    """The native size of a well-known model, or None. Accepts the spellings providers use:
    ``models/text-embedding-004`` (Gemini), ``BAAI/bge-m3`` (Hugging Face ids),
    ``nomic-embed-text:latest`` (Ollama tags; a tag does not change the size)."""
    name = model.strip().lower().rsplit("/", 1)[-1].split(":", 1)[0]
    return KNOWN_DIMENSIONS.get(name)


class DimensionGuard:
    """Holds the one vector size a model's answers must have.

    ``expected`` is the configured or known size; without one, the first answer's size is
    only learned when a second, independent answer (``confirm``) agrees with it.
    Thread-safe: indexing workers and searches check answers concurrently.
    """

    def __init__(self, model_id: str, expected: int | None) -> None:
        self.model_id = model_id
        self._dim = expected
        self._lock = threading.Lock()
        self._learning = threading.Lock()  # one confirmation probe at a time

    @property
    def dim(self) -> int | None:
        return self._dim

    def admit(self, dim: int, confirm: Callable[[], int]) -> None:
        """Accept an answer of ``dim`` dimensions or raise EmbeddingError. ``confirm`` asks
        the provider once more and returns the size of that answer."""
        if self._dim is None:
            with self._learning:
                if self._dim is None:
                    second = confirm()
                    if second != dim:
                        raise EmbeddingError(
                            f"{self.model_id} answered with {dim} and then {second} dimensions; "
                            "nothing is stored until its size is certain: set embed.dimensions "
                            "to the model's real size"
                        )
                    with self._lock:
                        self._dim = dim
        if dim != self._dim:
            raise EmbeddingError(
                f"{self.model_id} returned {dim}-dimensional vectors but {self._dim} were "
                "expected; the answer is refused (if the model really changed size, set "
                "embed.dimensions and run `remem doctor --fix`)"
            )
