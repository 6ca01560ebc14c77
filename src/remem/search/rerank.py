"""Optional reranking by a cross-encoder: an HTTP rerank API or a local model directory.

final = weight x rerank + (1 - weight) x fused score, over the ``top_n`` best candidates (the
rest keep their order below them). When the reranker fails, the stage falls back to cosine
similarity between the query and each candidate's stored vector, and says so in the explain
trace and the search warnings; a search never fails because of its reranker.

HTTP protocols (all ``POST``, JSON):
- Jina ``{base}/rerank`` and SiliconFlow ``{base}/rerank``: ``{model, query, documents,
  top_n}`` -> ``{results: [{index, relevance_score}]}``
- Cohere ``{base}/rerank`` (v2): same body and answer
- Voyage ``{base}/rerank``: ``{model, query, documents, top_k}`` -> ``{data: [{index,
  relevance_score}]}``
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from remem.config import RerankConfig
from remem.errors import ConfigError, RememError
from remem.net import post_json
from remem.search.candidates import Candidate
from remem.search.context import StageContext
from remem.search.cross_encoder import load_cross_encoder

if TYPE_CHECKING:  # httpx (~0.2 s to import) loads when a client is made, not on import
    import httpx

log = logging.getLogger("remem.rerank")


class RerankError(RememError):
    pass


class Reranker(Protocol):
    name: str
    # True when score() answers probabilities of relevance in [0, 1] (the hosted rerank APIs,
    # sentence-transformers' CrossEncoder); False for raw logits (an ONNX export), which the
    # relevance stage turns into probabilities with a sigmoid.
    probabilities: bool

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        """Relevance of each document to the query, higher is better (any scale)."""
        ...


_DEFAULT_URLS = {
    "jina": "https://api.jina.ai/v1",
    "cohere": "https://api.cohere.com/v2",
    "siliconflow": "https://api.siliconflow.cn/v1",
    "voyage": "https://api.voyageai.com/v1",
}
_DEFAULT_MODELS = {
    "jina": "jina-reranker-v2-base-multilingual",
    "cohere": "rerank-v3.5",
    "siliconflow": "BAAI/bge-reranker-v2-m3",
    "voyage": "rerank-2",
}


class HTTPReranker:
    def __init__(
        self,
        provider: str,
        *,
        base_url: str | None,
        model: str | None,
        api_key: str | None,
        timeout_s: float = 5.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.provider = provider
        self.name = f"{provider}:{model or _DEFAULT_MODELS[provider]}"
        self.probabilities = True  # every hosted API answers relevance_score in [0, 1]
        self.url = (base_url or _DEFAULT_URLS[provider]).rstrip("/") + "/rerank"
        self.model = model or _DEFAULT_MODELS[provider]
        self.api_key = api_key
        import httpx

        self._client = httpx.Client(timeout=httpx.Timeout(timeout_s), transport=transport)

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        body: dict = {"model": self.model, "query": query, "documents": list(documents)}
        body["top_k" if self.provider == "voyage" else "top_n"] = len(documents)
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        payload = post_json(self._client, self.url, body, RerankError, headers)
        try:
            items = payload["data" if self.provider == "voyage" else "results"]
            scores = [math.nan] * len(documents)
            for item in items:
                scores[int(item["index"])] = float(item["relevance_score"])
        except (ValueError, KeyError, TypeError, IndexError):
            raise RerankError(f"{self.url} answered 200 but not with a rerank body") from None
        if any(math.isnan(s) for s in scores):
            raise RerankError(f"{self.url} did not score every document")
        return scores

    def close(self) -> None:
        self._client.close()


def make_reranker(config: RerankConfig) -> Reranker | None:
    if config.provider == "none":
        return None
    if config.provider == "local":
        if config.local_path is None:
            raise ConfigError("rerank.provider=local needs rerank.local_path")
        return load_cross_encoder(
            config.local_path,
            config.local_backend,
            max_length=config.max_length,
            threads=config.threads,
        )
    return HTTPReranker(
        config.provider,
        base_url=config.base_url,
        model=config.model,
        api_key=config.api_key,
        timeout_s=config.timeout_s,
    )


def _normalise(values: list[float]) -> list[float]:
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        return [1.0 for _ in values]
    return [(v - lo) / (hi - lo) for v in values]


def rerank(cands: list[Candidate], ctx: StageContext) -> list[Candidate]:
    reranker: Reranker | None = ctx.readers.reranker
    if reranker is None or not cands:
        return cands
    cfg = ctx.request.config.rerank
    ordered = sorted(cands, key=lambda c: -c.score)
    head, tail = ordered[: cfg.top_n], ordered[cfg.top_n :]
    documents = [c.record.text if c.record else "" for c in head]
    label = f"rerank ({reranker.name})"
    try:
        scores = reranker.score(ctx.request.query, documents)
    except RememError as exc:
        scores = _cosine_scores(head, ctx)
        label = "rerank (cosine fallback)"
        message = f"reranker {reranker.name} failed ({exc}); used cosine similarity instead"
        ctx.report.warnings.append(message)
        log.warning(message)
        for c in head:
            c.notes.append(message)
    else:
        as_probability = bool(getattr(reranker, "probabilities", False))
        for c, s in zip(head, scores, strict=True):
            # the cross-encoder's own judgement of the pair: the relevance stage uses it
            c.rerank_relevance = min(1.0, max(0.0, s)) if as_probability else _sigmoid(s)
    w = cfg.weight
    for c, s in zip(head, _normalise(scores), strict=True):
        c.set(label, w * s + (1 - w) * c.score, always=True)
    return head + tail


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x))))


def _cosine_scores(head: list[Candidate], ctx: StageContext) -> list[float]:
    if ctx.found.query_vector is None:
        return [c.score for c in head]
    out = []
    for c in head:
        v = ctx.found.vectors.get(c.rowid)
        out.append(
            float(np.dot(v, ctx.found.query_vector)) if v is not None else (c.vector_score or 0.0)
        )
    return out
