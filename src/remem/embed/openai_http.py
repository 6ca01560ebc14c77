"""Any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint, and the two providers that
speak the same shape with their own request fields (Jina, Voyage).

Works with OpenAI, Gemini's OpenAI endpoint, Ollama ``/v1``, vLLM, LM Studio, SiliconFlow.
Retries, key rotation and deadlines are the shared transport's (``remem.embed.transport``);
answers are checked by ``RemoteEmbedder`` before anything is written.
"""

from __future__ import annotations

from typing import Any

from remem.embed.remote import Kind, RemoteEmbedder
from remem.embed.transport import Deadline

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIEmbedder(RemoteEmbedder):
    provider = "openai"
    default_base_url = DEFAULT_BASE_URL

    def _body(self, texts: list[str], kind: Kind) -> dict[str, Any]:
        # "task" is Jina's field; OpenAI-compatible servers ignore or refuse it
        return {
            "model": self.model,
            "input": texts,
            "encoding_format": "float",
            **self._task_and_size(kind, "task", "dimensions"),
        }

    def _request(self, texts: list[str], kind: Kind, deadline: Deadline) -> list[Any]:
        url = f"{self.base_url}/embeddings"
        payload = self._post(url, self._body(texts, kind), deadline)
        try:
            items = sorted(payload["data"], key=lambda d: d.get("index", 0))
            return [item["embedding"] for item in items]
        except (KeyError, TypeError, AttributeError):
            raise self._shape_error(
                url,
                "an OpenAI embeddings body ({'data': [{'embedding': [...]}]}); is base_url "
                "the /v1 root?",
            ) from None


class JinaEmbedder(OpenAIEmbedder):
    """Jina AI: the OpenAI shape plus ``task`` (retrieval.query / retrieval.passage by default)
    and ``embedding_type``."""

    provider = "jina"
    default_base_url = "https://api.jina.ai/v1"
    default_tasks = ("retrieval.query", "retrieval.passage")

    def _body(self, texts: list[str], kind: Kind) -> dict[str, Any]:
        body = super()._body(texts, kind)
        del body["encoding_format"]
        body["embedding_type"] = "float"
        return body


class VoyageEmbedder(OpenAIEmbedder):
    """Voyage AI: the OpenAI answer shape; the request says ``input_type`` (query / document)
    and ``output_dimension`` instead of OpenAI's ``dimensions``."""

    provider = "voyage"
    default_base_url = "https://api.voyageai.com/v1"
    default_tasks = ("query", "document")

    def _body(self, texts: list[str], kind: Kind) -> dict[str, Any]:
        return {
            "model": self.model,
            "input": texts,
            **self._task_and_size(kind, "input_type", "output_dimension"),
        }
