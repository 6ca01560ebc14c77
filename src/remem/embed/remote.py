"""What every remote embedder shares: deadlines per call, answer checks, the model id.

A provider module only says how to ask (URL, body) and where the vectors are in the answer
(``_request``); this base turns that into checked, L2-normalised float32 matrices. Nothing a
provider sends is stored unless it has the right count, the model's one size (see
``DimensionGuard``), finite numbers and a non-zero length.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Literal

import httpx
import numpy as np

from remem.embed.dims import DimensionGuard, known_dimension
from remem.embed.reads import read_budget
from remem.embed.transport import Deadline, ProviderTransport, bearer
from remem.errors import EmbeddingError

Kind = Literal["query", "passage"]
DIMENSION_PROBE = "dimension probe"


class RemoteEmbedder(ABC):
    provider: str  # set by each provider class; the first part of model_id
    default_base_url: str
    # The provider's own query / passage task values, used when embed.query_task /
    # embed.passage_task are unset ("" sends none).
    default_tasks: tuple[str | None, str | None] = (None, None)
    default_chunk_chars = 4000  # stays under 8k-token input limits even for CJK text

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_keys: Sequence[str] = (),
        dimensions: int | None = None,
        timeout_s: float = 120.0,
        query_timeout_s: float = 5.0,
        max_attempts: int = 5,
        backoff_s: float = 0.5,
        query_prefix: str = "",
        passage_prefix: str = "",
        query_task: str | None = None,
        passage_task: str | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not model:
            raise EmbeddingError("embed.model is empty; set the provider's embedding model name")
        self.model = model
        self.base_url = (base_url or self.default_base_url).rstrip("/")
        if not self.base_url.startswith(("http://", "https://")):
            raise EmbeddingError(
                f"embed.base_url {self.base_url!r} must start with http:// or https://"
            )
        self.dimensions = dimensions
        self.model_id = f"{self.provider}:{model}" + (f"@{dimensions}" if dimensions else "")
        self.timeout_s = timeout_s
        # A read never waits longer than a whole indexing call would.
        self.query_timeout_s = min(query_timeout_s, timeout_s)
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.query_task = self.default_tasks[0] if query_task is None else query_task
        self.passage_task = self.default_tasks[1] if passage_task is None else passage_task
        self._guard = DimensionGuard(self.model_id, dimensions or known_dimension(model))
        self._http = ProviderTransport(
            model=model,
            api_keys=api_keys,
            auth=self.auth_headers,
            max_attempts=max_attempts,
            backoff_s=backoff_s,
            transport=transport,
        )

    @staticmethod
    def auth_headers(key: str) -> dict[str, str]:
        """The headers that carry one API key (a bearer token unless the provider differs)."""
        return bearer(key)

    @property
    def dim(self) -> int:
        """The configured or known size; for other models, learned from confirmed answers."""
        if self._guard.dim is None:
            self.embed_passages([DIMENSION_PROBE])
        assert self._guard.dim is not None  # embed_passages raised otherwise
        return self._guard.dim

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        # Searches wait for this: a short deadline of its own, not the indexing budget.
        return self._embed_as(texts, "query", self.query_prefix, self.query_timeout_s)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed_as(texts, "passage", self.passage_prefix, self.timeout_s)

    def _embed_as(
        self, texts: Sequence[str], kind: Kind, prefix: str, timeout_s: float
    ) -> np.ndarray:
        """Embed with the kind's prefix, within ``timeout_s`` or, inside a read, what is left
        of its budget."""
        budget = self._read_budget()
        return self._embed(
            [prefix + t for t in texts], kind, timeout_s if budget is None else budget
        )

    def _task_and_size(self, kind: Kind, task_field: str, size_field: str) -> dict[str, Any]:
        """The request fields, by the provider's own names, of the task for ``kind`` and the
        asked vector size; each left out when it is unset."""
        fields: dict[str, Any] = {}
        task = self.query_task if kind == "query" else self.passage_task
        if task:
            fields[task_field] = task
        if self.dimensions:
            fields[size_field] = self.dimensions
        return fields

    def _read_budget(self) -> float | None:
        """Inside ``interactive()``: what is left of the read's query deadline."""
        return read_budget(self.query_timeout_s)

    def close(self) -> None:
        self._http.close()

    # ------------------------------------------------------------------ internals
    @abstractmethod
    def _request(self, texts: list[str], kind: Kind, deadline: Deadline) -> list[Any]:
        """Ask the provider; return the raw vectors (one list of numbers per text)."""

    def _post(self, url: str, body: dict[str, Any], deadline: Deadline) -> Any:
        return self._http.post_json(url, body, deadline=deadline)

    def _embed(self, texts: list[str], kind: Kind, timeout_s: float) -> np.ndarray:
        if not texts:
            return np.empty((0, self._guard.dim or 0), np.float32)
        if timeout_s <= 0:
            raise EmbeddingError(
                f"{self.model_id}: this read already spent its embed.query_timeout_s="
                f"{self.query_timeout_s:g}s waiting for the provider"
            )
        deadline = Deadline(timeout_s)  # one budget for the call, a size probe included
        matrix = self._checked(self._request(texts, kind, deadline), len(texts))

        def confirm() -> int:
            return self._checked(self._request([DIMENSION_PROBE], "passage", deadline), 1).shape[1]

        self._guard.admit(matrix.shape[1], confirm)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / norms).astype(np.float32, copy=False)

    def _checked(self, vectors: list[Any], expected: int) -> np.ndarray:
        """The answer as a float32 matrix, or EmbeddingError (never half a result)."""
        if len(vectors) != expected:
            raise EmbeddingError(
                f"{self.model_id} returned {len(vectors)} vectors for {expected} inputs"
            )
        lengths = {len(v) if isinstance(v, list) else -1 for v in vectors}
        if len(lengths) != 1 or -1 in lengths or 0 in lengths:
            raise EmbeddingError(f"{self.model_id} returned vectors of mixed or invalid lengths")
        try:
            matrix = np.asarray(vectors, dtype=np.float32)
        except (TypeError, ValueError):
            raise EmbeddingError(f"{self.model_id} returned non-numeric vector values") from None
        if matrix.ndim != 2 or not np.all(np.isfinite(matrix)):
            raise EmbeddingError(f"{self.model_id} returned NaN or infinite values")
        if np.any(np.linalg.norm(matrix, axis=1) == 0):
            raise EmbeddingError(f"{self.model_id} returned an all-zero vector")
        return matrix

    def _shape_error(self, url: str, shape: str) -> EmbeddingError:
        return EmbeddingError(f"{url} answered 200 but not with {shape}; check embed.base_url")
