"""Ollama's native API: ``POST {base_url}/api/embed`` with ``{"model", "input": [...]}``,
answered with ``{"embeddings": [[...], ...]}`` in input order.

Vectors are labelled ``ollama:<model>``. (Ollama reached through its OpenAI-compatible ``/v1``
with ``provider = "openai"`` keeps the ``openai:<model>`` label it always had.)
"""

from __future__ import annotations

from typing import Any

from remem.embed.remote import Kind, RemoteEmbedder
from remem.embed.transport import Deadline


class OllamaEmbedder(RemoteEmbedder):
    provider = "ollama"
    default_base_url = "http://127.0.0.1:11434"

    def _request(self, texts: list[str], kind: Kind, deadline: Deadline) -> list[Any]:
        url = f"{self.base_url}/api/embed"
        # Ollama's default truncation stays on: remem already splits long texts (see
        # embed.chunk_chars), and a piece still over a small model's context is better cut
        # than refused for ever (the record would stay pending).
        body: dict[str, Any] = {"model": self.model, "input": texts}
        if self.dimensions:
            body["dimensions"] = self.dimensions
        payload = self._post(url, body, deadline)
        embeddings = payload.get("embeddings") if isinstance(payload, dict) else None
        if not isinstance(embeddings, list):
            raise self._shape_error(url, "an Ollama embed body ({'embeddings': [[...]]})")
        return embeddings
