"""Test doubles and helpers shared by the tests."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from importlib.resources import files
from typing import Any

import numpy as np


def sample_conversation() -> list[dict[str, Any]]:
    """The bundled sample conversation (the one `remem demo` ingests), as message dicts."""
    text = (files("remem") / "data" / "sample_conversation.jsonl").read_text("utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def memory_store_with(
    *texts: str, indexed: bool = False, extra: Sequence[dict[str, Any]] = ()
) -> tuple[Any, list[int]]:
    """An in-memory store holding one message per text (ids r0, r1 ...), and their rowids;
    ``indexed``: each text is also its own lexical tokens; ``extra``: more fields for each
    message, in order (a session, a speaker ...)."""
    from remem.schemas import content_hash
    from remem.store.memory import InMemoryStore

    store = InMemoryStore()
    rows = [
        (
            {
                "id": f"r{i}",
                "kind": "message",
                "text": t,
                "scope": "global",
                "created_at": 1.0 + i,
                "content_hash": content_hash(t),
                "importance": 0.5,
                **(extra[i] if i < len(extra) else {}),
            },
            t if indexed else "",
        )
        for i, t in enumerate(texts)
    ]
    return store, [r for r in store.insert_records(rows) if r is not None]


class HashEmbedder:
    """A deterministic stand-in for unit tests of plumbing (not of retrieval quality):
    bag-of-words hashed into 64 dims, so texts sharing words are similar."""

    provider = "test"
    model = "hash64"
    model_id = "test:hash64"
    dim = 64
    default_chunk_chars = 0

    def __init__(self) -> None:
        self.calls = 0
        self.fail = False
        self.seen: list[str] = []  # every text embedded, in order

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, np.float32)
        for word in text.lower().split():
            h = int(hashlib.md5(word.encode()).hexdigest(), 16)
            v[h % self.dim] += 1.0
        v[0] += 0.01
        return v / np.linalg.norm(v)

    def embed_queries(self, texts):
        return self.embed_passages(texts)

    def embed_passages(self, texts):
        from remem.errors import EmbeddingError

        self.calls += 1
        self.seen.extend(texts)
        if self.fail:
            raise EmbeddingError("test embedder is down")
        return np.stack([self._vec(t) for t in texts]) if texts else np.empty((0, self.dim))


class LocalJSONServer:
    """A real HTTP server on 127.0.0.1 for protocol tests. Subclasses implement
    ``respond(path, body, headers) -> (status, body bytes, extra headers)``; every request is
    recorded in ``requests``."""

    def __init__(self) -> None:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.requests: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                status, data, extra = outer.respond(self.path, body, self.headers)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def respond(self, path: str, body: dict, headers) -> tuple[int, bytes, dict[str, str]]:
        raise NotImplementedError

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def chat_completion(model: str, content: str | None) -> bytes:
    """The body of an OpenAI chat-completions answer saying ``content``."""
    import json

    answer = {
        "id": "c1",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
            }
        ],
    }
    return json.dumps(answer).encode()
