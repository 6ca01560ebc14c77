"""Google's Gemini API: ``models/{model}:embedContent`` for one text and
``models/{model}:batchEmbedContents`` for several, with ``taskType`` (RETRIEVAL_QUERY /
RETRIEVAL_DOCUMENT by default) and ``outputDimensionality``. The key goes in the
``x-goog-api-key`` header. Vectors are labelled ``gemini:<model>[@dim]``.

Gemini truncates to ``outputDimensionality`` without re-normalising; every answer is
normalised here anyway.
"""

from __future__ import annotations

from typing import Any

from remem.embed.remote import Kind, RemoteEmbedder
from remem.embed.transport import Deadline

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"


class GeminiEmbedder(RemoteEmbedder):
    provider = "gemini"
    default_base_url = DEFAULT_BASE_URL
    default_tasks = ("RETRIEVAL_QUERY", "RETRIEVAL_DOCUMENT")

    @staticmethod
    def auth_headers(key: str) -> dict[str, str]:
        return {"x-goog-api-key": key}

    @property
    def _resource(self) -> str:
        return self.model if self.model.startswith("models/") else f"models/{self.model}"

    def _one(self, text: str, kind: Kind) -> dict[str, Any]:
        return {
            "content": {"parts": [{"text": text}]},
            **self._task_and_size(kind, "taskType", "outputDimensionality"),
        }

    def _request(self, texts: list[str], kind: Kind, deadline: Deadline) -> list[Any]:
        if len(texts) == 1:
            url = f"{self.base_url}/{self._resource}:embedContent"
            payload = self._post(url, self._one(texts[0], kind), deadline)
            try:
                return [payload["embedding"]["values"]]
            except (KeyError, TypeError):
                raise self._shape_error(url, "{'embedding': {'values': [...]}}") from None
        url = f"{self.base_url}/{self._resource}:batchEmbedContents"
        requests = [{"model": self._resource, **self._one(t, kind)} for t in texts]
        payload = self._post(url, {"requests": requests}, deadline)
        try:
            return [item["values"] for item in payload["embeddings"]]
        except (KeyError, TypeError):
            raise self._shape_error(url, "{'embeddings': [{'values': [...]}]}") from None
