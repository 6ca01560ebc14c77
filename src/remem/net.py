"""One JSON POST to a remote API, with remem's one-line errors (rerankers, chat endpoints), and
the client of an OpenAI-compatible chat endpoint (``llm.*``) that capture and the facts use.

The embedding provider keeps its own loop (key rotation, backoff on 429/5xx); callers here make
one attempt and fall back on failure, so any failure is an error of the caller's type.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from remem.config import LLMConfig
from remem.errors import RememError

if TYPE_CHECKING:  # httpx (~0.2 s to import) loads when a client is made, not on import
    import httpx


def post_json(
    client: httpx.Client,
    url: str,
    body: dict[str, Any],
    error: type[RememError],
    headers: dict[str, str] | None = None,
) -> Any:
    """The parsed JSON of a 200 answer; a transport failure, another status or a body that is
    not JSON raises ``error`` naming the URL and what went wrong."""
    import httpx

    try:
        response = client.post(url, json=body, headers=headers)
    except httpx.HTTPError as exc:
        raise error(f"{url}: {type(exc).__name__}: {exc}") from None
    if response.status_code != 200:
        raise error(f"{url} answered HTTP {response.status_code}: {response.text[:200]}")
    try:
        return response.json()
    except ValueError:
        raise error(f"{url} answered 200 with a body that is not JSON") from None


class LLMError(RememError):
    """The chat endpoint (``llm.*``) failed or answered in another format; callers fall back
    to their rules."""


class ChatClient:
    """One OpenAI-compatible chat endpoint (``llm.base_url`` + ``/chat/completions``)."""

    def __init__(self, cfg: LLMConfig, transport: httpx.BaseTransport | None = None) -> None:
        if not cfg.base_url or not cfg.model:
            raise LLMError("llm.base_url and llm.model must be set to use an LLM")
        self.url = cfg.base_url.rstrip("/") + "/chat/completions"
        self.model = cfg.model
        headers = {"Authorization": f"Bearer {cfg.api_key}"} if cfg.api_key else {}
        import httpx

        self._client = httpx.Client(timeout=cfg.timeout_s, headers=headers, transport=transport)

    def complete(self, system: str, user: str, *, json_mode: bool = False) -> str:
        body: dict = {
            "model": self.model,
            "temperature": 0,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        }
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        payload = post_json(self._client, self.url, body, LLMError)
        try:
            return str(payload["choices"][0]["message"]["content"])
        except (KeyError, IndexError, TypeError):
            raise LLMError(f"{self.url} answered 200 without a chat completion") from None

    def close(self) -> None:
        self._client.close()


_FENCED = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


def json_answer(content: str, what: str) -> Any:
    """The JSON a chat model answered (a fenced ```json block too); LLMError naming ``what``
    was asked for when the answer is not JSON."""
    text = content.strip()
    fenced = _FENCED.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except ValueError:
        raise LLMError(f"the model did not answer with {what} JSON: {content[:120]!r}") from None
