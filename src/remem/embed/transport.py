"""The HTTP side every remote embedding provider shares: one JSON POST per call, with retries,
API-key rotation and a deadline for the whole call.

- **Deadline.** httpx timeouts are per phase (a read that gets one byte a second never times
  out), so a dripping server could hold a call for attempts x timeout or longer. Each call
  here has one monotonic deadline across all attempts and backoff sleeps; each attempt's
  timeouts shrink to the time left, and the body is read in chunks with the deadline checked
  between them.
- **Retries.** 408/409/425/429/5xx and transport errors are retried with exponential backoff;
  ``Retry-After`` is honoured, but a wait that would end past the deadline ends the call now.
- **Keys.** On 429 (quota) and 401/403 (a revoked key; Google says 400 "API key not valid")
  the next key is tried at once, each key once per round; every other status is answered at
  once with the provider's own message.
- **Model not found.** A 404/400 naming the model is ``ModelNotFoundError`` (a configuration
  error), so a typo in ``embed.model`` is not mistaken for an outage.
"""

from __future__ import annotations

import json
import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from remem.errors import EmbeddingError, ModelNotFoundError

log = logging.getLogger("remem.embed")

RETRYABLE = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 60.0

AuthHeaders = Callable[[str], dict[str, str]]


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


class Deadline:
    """A point in monotonic time; how much of a budget is left."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self._end = clock() + seconds

    def remaining(self) -> float:
        return max(0.0, self._end - self._clock())


class _DeadlinePassed(Exception):
    """The call's deadline passed while an answer was still arriving."""


class ProviderTransport:
    def __init__(
        self,
        *,
        model: str,
        api_keys: Sequence[str] = (),
        auth: AuthHeaders = bearer,
        max_attempts: int = 5,
        backoff_s: float = 0.5,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.model = model
        self._keys: list[str | None] = list(api_keys) or [None]
        self._key_index = 0
        self._key_lock = threading.Lock()
        self._auth = auth
        self.max_attempts = max_attempts
        self.backoff_s = backoff_s
        self._client = httpx.Client(transport=transport)

    def close(self) -> None:
        self._client.close()

    # ------------------------------------------------------------------ keys
    def _current_key(self) -> int:
        with self._key_lock:
            return self._key_index

    def _rotate_from(self, index: int) -> None:
        """Move past key ``index`` (unless another thread already did)."""
        with self._key_lock:
            if self._key_index == index:
                self._key_index = (index + 1) % len(self._keys)

    def _headers(self, index: int) -> dict[str, str]:
        key = self._keys[index]
        return self._auth(key) if key else {}

    # ------------------------------------------------------------------ the call
    def post_json(self, url: str, body: dict[str, Any], *, deadline: Deadline | float) -> Any:
        """The parsed JSON of a 200 answer, or EmbeddingError naming the URL and the last
        problem. The whole call, retries and waits included, ends by ``deadline`` (a Deadline
        shared with other requests of the same call, or seconds from now)."""
        if not isinstance(deadline, Deadline):
            deadline = Deadline(deadline)
        timeout_s = deadline.seconds
        delay = self.backoff_s
        keys_tried: set[int] = set()
        last = "no attempt made"
        attempt = 0
        while True:
            if deadline.remaining() <= 0:
                raise EmbeddingError(
                    f"{url}: no usable answer within {timeout_s:g}s ({attempt} attempt(s)); "
                    f"last: {last}"
                )
            attempt += 1
            index = self._current_key()
            keys_tried.add(index)
            retry_after: float | None = None
            try:
                status, headers, data = self._send(url, body, index, deadline)
            except (httpx.TimeoutException, _DeadlinePassed):
                last = f"no complete answer within {timeout_s:g}s"
            except httpx.HTTPError as exc:
                last = f"connection failed ({type(exc).__name__}: {exc})"
            else:
                if status == 200:
                    return _json_body(url, data)
                message = _error_message(data)
                last = f"HTTP {status}: {message}"
                if status in (400, 404, 422) and _names_missing_model(status, message, self.model):
                    raise ModelNotFoundError(
                        f"the provider at {url} does not know embed.model={self.model!r} "
                        f"(HTTP {status}: {message}); set embed.model to a model it serves"
                    )
                rejected_key = _rejects_key(status, message)
                if (rejected_key or status == 429) and len(keys_tried) < len(self._keys):
                    # Another key may be valid or have quota left: switch at once, no sleep.
                    self._rotate_from(index)
                    log.warning(
                        "embedding request got HTTP %d; switching to the next API key", status
                    )
                    continue
                if status not in RETRYABLE:
                    hint = (
                        "; check embed.api_key / embed.api_keys" if rejected_key else _hint(status)
                    )
                    raise EmbeddingError(f"{url} answered {last}{hint}")
                retry_after = _retry_after(headers)
                self._rotate_from(index)
            if attempt >= self.max_attempts:
                raise EmbeddingError(
                    f"{url} failed {attempt} times; last: {last}; check the endpoint or raise "
                    "embed.max_attempts"
                )
            wait = max(delay, min(retry_after or 0.0, MAX_RETRY_AFTER_S))
            remaining = deadline.remaining()
            if remaining <= 0:
                continue  # the loop's head reports the deadline
            if wait >= remaining:
                raise EmbeddingError(
                    f"{url}: giving up after {attempt} attempt(s): the next would start after "
                    f"the {timeout_s:g}s deadline; last: {last}"
                )
            log.warning("embedding request failed (%s); retry %d in %.1fs", last, attempt, wait)
            time.sleep(wait)
            delay *= 2
            keys_tried = set()

    def _send(
        self, url: str, body: dict[str, Any], key_index: int, deadline: Deadline
    ) -> tuple[int, httpx.Headers, bytes]:
        """One attempt: status, headers and the whole body, or an exception. Every socket
        wait is bounded by the time left, and the body stops arriving at the deadline."""
        timeout = httpx.Timeout(max(deadline.remaining(), 0.001))
        with self._client.stream(
            "POST", url, json=body, headers=self._headers(key_index), timeout=timeout
        ) as response:
            chunks: list[bytes] = []
            for chunk in response.iter_bytes():
                chunks.append(chunk)
                if deadline.remaining() <= 0:
                    raise _DeadlinePassed
            return response.status_code, response.headers, b"".join(chunks)


def _json_body(url: str, data: bytes) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        shown = data[:80].decode("utf-8", "replace")
        raise EmbeddingError(
            f"{url} answered 200 with a body that is not JSON: {shown!r}"
        ) from None


def _error_message(data: bytes) -> str:
    try:
        payload = json.loads(data)
    except ValueError:
        return data.decode("utf-8", "replace").strip().replace("\n", " ")[:200] or "(empty body)"
    if isinstance(payload, dict):
        err = payload.get("error", payload)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail") or err
            return str(msg)[:300]
        return str(err)[:300]
    return str(payload)[:300]


def _names_missing_model(status: int, message: str, model: str) -> bool:
    """Whether an error answer says the model is unknown (OpenAI 'The model `x` does not
    exist', Ollama 'model "x" not found', Gemini 'models/x is not found ... or is not
    supported'), as opposed to another complaint that merely names the model."""
    text = message.lower()
    if model.lower() not in text:
        return False
    if any(p in text for p in ("not found", "does not exist", "unknown model", "invalid model")):
        return True
    return status == 404 and "not supported" in text


def _rejects_key(status: int, message: str) -> bool:
    """A revoked or wrong key: 401/403, or Google's 400 'API key not valid'."""
    return status in (401, 403) or (status == 400 and "api key not valid" in message.lower())


def _hint(status: int) -> str:
    if status == 404:
        return "; check embed.base_url (for openai it should end in /v1) and embed.model"
    if status in (400, 422):
        return "; check embed.model and embed.dimensions"
    return ""


def _retry_after(headers: httpx.Headers) -> float | None:
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None
