"""Any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

Works with OpenAI, Jina, Gemini's OpenAI endpoint, Ollama ``/v1``, vLLM, LM Studio,
SiliconFlow. Retries 429 and 5xx with exponential backoff (``Retry-After`` honoured), rotates
to the next API key on 429, and checks every answer (count, dimension, finite numbers) before
anything is written.
"""

from __future__ import annotations

import itertools
import logging
import math
import threading
import time
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from remem.errors import EmbeddingError

log = logging.getLogger("remem.embed")

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_RETRYABLE = {408, 409, 425, 429, 500, 502, 503, 504}


class OpenAIEmbedder:
    provider = "openai"
    default_chunk_chars = 4000  # stays under 8k-token input limits even for CJK text

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_keys: Sequence[str] = (),
        dimensions: int | None = None,
        timeout_s: float = 120.0,
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
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        if not self.base_url.startswith(("http://", "https://")):
            raise EmbeddingError(
                f"embed.base_url {self.base_url!r} must start with http:// or https://"
            )
        self.dimensions = dimensions
        self.model_id = f"openai:{model}" + (f"@{dimensions}" if dimensions else "")
        self.max_attempts = max_attempts
        self.backoff_s = backoff_s
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.query_task = query_task
        self.passage_task = passage_task
        self._keys = list(api_keys) or [None]
        self._key_cycle = itertools.cycle(range(len(self._keys)))
        self._key_index = next(self._key_cycle)
        self._key_lock = threading.Lock()
        self._dim: int | None = dimensions
        self._client = httpx.Client(timeout=httpx.Timeout(timeout_s), transport=transport)
        self.requests_made = 0

    # The dimension is known from config, or learned from the first answer.
    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._request(["dimension probe"], task=self.passage_task).shape[1])
        return self._dim

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._request([self.query_prefix + t for t in texts], task=self.query_task)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._request([self.passage_prefix + t for t in texts], task=self.passage_task)

    def close(self) -> None:
        self._client.close()

    # ------------------------------------------------------------------ HTTP
    def _headers(self) -> dict[str, str]:
        key = self._keys[self._key_index]
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _rotate_key(self) -> bool:
        """Move to the next key; False when there is only one."""
        if len(self._keys) < 2:
            return False
        with self._key_lock:
            self._key_index = next(self._key_cycle)
        return True

    def _request(self, texts: list[str], *, task: str | None) -> np.ndarray:
        if not texts:
            return np.empty((0, self._dim or 0), np.float32)
        body: dict[str, Any] = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self.dimensions:
            body["dimensions"] = self.dimensions
        if task:
            body["task"] = task
        url = f"{self.base_url}/embeddings"
        delay = self.backoff_s
        keys_tried_this_round = 1
        last_problem = ""
        for attempt in range(1, self.max_attempts + 1):
            self.requests_made += 1
            try:
                response = self._client.post(url, json=body, headers=self._headers())
            except httpx.TimeoutException:
                last_problem = f"timed out after {self._client.timeout.read}s"
            except httpx.HTTPError as exc:
                last_problem = f"connection failed ({type(exc).__name__}: {exc})"
            else:
                if response.status_code == 200:
                    return self._parse(response, len(texts))
                last_problem = f"HTTP {response.status_code}: {_error_message(response)}"
                if response.status_code not in _RETRYABLE:
                    raise EmbeddingError(f"{url} answered {last_problem}{_hint(response)}")
                if response.status_code == 429 and keys_tried_this_round < len(self._keys):
                    # Another key may have quota left: switch at once, no sleep.
                    self._rotate_key()
                    keys_tried_this_round += 1
                    log.warning("embedding rate-limited; switching to the next API key")
                    continue
                keys_tried_this_round = 1
                self._rotate_key()
                retry_after = _retry_after(response)
                if retry_after is not None:
                    delay = max(delay, min(retry_after, 60.0))
            if attempt < self.max_attempts:
                log.warning(
                    "embedding request failed (%s); retry %d in %.1fs", last_problem, attempt, delay
                )
                time.sleep(delay)
                delay *= 2
        raise EmbeddingError(
            f"{url} failed {self.max_attempts} times; last: {last_problem}; check the endpoint "
            "or raise embed.max_attempts"
        )

    def _parse(self, response: httpx.Response, expected: int) -> np.ndarray:
        try:
            payload = response.json()
            items = sorted(payload["data"], key=lambda d: d.get("index", 0))
            vectors = [item["embedding"] for item in items]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise EmbeddingError(
                f"{self.base_url}/embeddings answered 200 but not with an OpenAI embeddings body "
                "({'data': [{'embedding': [...]}]}); is base_url the /v1 root?"
            ) from None
        if len(vectors) != expected:
            raise EmbeddingError(
                f"{self.model_id} returned {len(vectors)} vectors for {expected} inputs"
            )
        lengths = {len(v) if isinstance(v, list) else -1 for v in vectors}
        if len(lengths) != 1 or -1 in lengths:
            raise EmbeddingError(f"{self.model_id} returned vectors of mixed or invalid lengths")
        dim = lengths.pop()
        if self._dim is not None and dim != self._dim:
            raise EmbeddingError(
                f"{self.model_id} returned {dim}-dimensional vectors but {self._dim} were expected; "
                "set embed.dimensions to what the model produces (or a size it supports)"
            )
        try:
            matrix = np.asarray(vectors, dtype=np.float32)
        except (TypeError, ValueError):
            raise EmbeddingError(f"{self.model_id} returned non-numeric vector values") from None
        if not np.all(np.isfinite(matrix)):
            raise EmbeddingError(f"{self.model_id} returned NaN or infinite values")
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if np.any(norms == 0):
            raise EmbeddingError(f"{self.model_id} returned an all-zero vector")
        self._dim = dim
        return matrix / norms


def _error_message(response: httpx.Response) -> str:
    try:
        payload = response.json()
    except ValueError:
        text = response.text.strip().replace("\n", " ")
        return text[:200] or response.reason_phrase
    if isinstance(payload, dict):
        err = payload.get("error", payload)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail") or err
            return str(msg)[:300]
        return str(err)[:300]
    return str(payload)[:300]


def _hint(response: httpx.Response) -> str:
    if response.status_code in (401, 403):
        return "; check embed.api_key / embed.api_keys"
    if response.status_code == 404:
        return "; check embed.base_url (it should end in /v1) and embed.model"
    if response.status_code in (400, 422):
        return "; check embed.model and embed.dimensions"
    return ""


def _retry_after(response: httpx.Response) -> float | None:
    raw = response.headers.get("retry-after")
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None
