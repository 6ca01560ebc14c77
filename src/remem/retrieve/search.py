"""Hybrid search: vector top-N + BM25 top-N -> fusion -> authoritative fetch -> hits."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import numpy as np

from remem.config import EmbedConfig, SearchConfig
from remem.embed.base import Embedder, embed_with_chunks
from remem.errors import RememError
from remem.index.exact import ExactIndex
from remem.retrieve.fusion import Candidate, rrf_fuse, weighted_fuse
from remem.text.tokenize import Tokenizer, fts_match_expression
from remem.types import Explain, Filters, Hit, SearchResult

log = logging.getLogger("remem.search")


class Searcher:
    def __init__(
        self,
        store,
        tokenizer: Tokenizer,
        config: SearchConfig,
        embed_config: EmbedConfig,
        embedder_factory: Callable[[], Embedder | None],
    ) -> None:
        self.store = store
        self.tokenizer = tokenizer
        self.config = config
        self.embed_config = embed_config
        self._embedder_factory = embedder_factory
        self._indexes: dict[str, ExactIndex] = {}

    def index_for(self, embedder: Embedder) -> ExactIndex:
        index = self._indexes.get(embedder.model_id)
        if index is None:
            index = self._indexes[embedder.model_id] = ExactIndex(
                self.store, embedder.model_id, embedder.dim
            )
        return index

    def embed_query(self, embedder: Embedder, query: str) -> np.ndarray:
        chunk = self.embed_config.chunk_chars
        return embed_with_chunks(
            embedder,
            [query],
            is_query=True,
            max_chars=embedder.default_chunk_chars if chunk is None else chunk,
            overlap=self.embed_config.chunk_overlap,
            batch_size=self.embed_config.batch_size,
        )[0]

    def search(
        self,
        query: str,
        k: int,
        filters: Filters | None,
        now: float | None,
        *,
        query_vector: np.ndarray | None = None,
        channels: tuple[str, ...] = ("vector", "lexical"),
    ) -> SearchResult:
        cfg = self.config
        result = SearchResult(query=query)
        pool = max(cfg.candidate_pool, k * cfg.candidate_factor)
        t0 = time.perf_counter()

        lexical: list[tuple[int, float]] = []
        if "lexical" in channels:
            match = fts_match_expression(self.tokenizer.query_tokens(query))
            lexical = self.store.lexical_search(match, filters, pool, now)
        t1 = time.perf_counter()

        vector: list[tuple[int, float]] = []
        t_embed = 0.0
        if "vector" in channels:
            vector = self._vector_channel(query, query_vector, pool, filters, now, result)
            t_embed = result.timings_ms.pop("_embed", 0.0)
        t2 = time.perf_counter()

        if cfg.fusion == "rrf":
            fused = rrf_fuse(
                vector,
                lexical,
                k=cfg.rrf_k,
                vector_weight=cfg.rrf_vector_weight,
                lexical_weight=cfg.rrf_lexical_weight,
            )
        else:
            fused = weighted_fuse(
                vector, lexical, vector_weight=cfg.vector_weight, lexical_weight=cfg.lexical_weight
            )
        result.hits = self._materialise(fused, k, filters, now, result.degraded, cfg.fusion)
        t3 = time.perf_counter()
        result.timings_ms.update(
            {
                "lexical": (t1 - t0) * 1000,
                "embed": t_embed,
                "vector": (t2 - t1) * 1000 - t_embed,
                "fuse_fetch": (t3 - t2) * 1000,
                "total": (t3 - t0) * 1000,
            }
        )
        return result

    def _vector_channel(
        self,
        query: str,
        query_vector: np.ndarray | None,
        pool: int,
        filters: Filters | None,
        now: float | None,
        result: SearchResult,
    ) -> list[tuple[int, float]]:
        try:
            embedder = self._embedder_factory()
        except RememError as exc:
            self._degrade(result, f"embedding model unavailable ({exc})")
            return []
        if embedder is None:
            result.degraded = True  # lexical-only by configuration: flag it, no warning
            return []
        if query_vector is None:
            start = time.perf_counter()
            try:
                query_vector = self.embed_query(embedder, query)
            except RememError as exc:
                self._degrade(result, f"query embedding failed ({exc})")
                return []
            finally:
                result.timings_ms["_embed"] = (time.perf_counter() - start) * 1000
        index = self.index_for(embedder)
        hits = index.search(query_vector, pool, filters, now)
        if index.size == 0 and self.store.count() > 0:
            self._degrade(
                result,
                f"no records have vectors for {embedder.model_id} yet; run `remem embed` "
                "(answered from the lexical index only)",
            )
        return hits

    @staticmethod
    def _degrade(result: SearchResult, why: str) -> None:
        result.degraded = True
        message = f"{why}; answered from the lexical index only"
        if message not in result.warnings:
            result.warnings.append(message)
            log.warning(message)

    def _materialise(
        self,
        fused: list[Candidate],
        k: int,
        filters: Filters | None,
        now: float | None,
        degraded: bool,
        fusion: str,
    ) -> list[Hit]:
        """Fetch records for the best candidates; the store re-applies the filters, and a
        candidate whose record vanished meanwhile is skipped, not returned."""
        hits: list[Hit] = []
        start = 0
        while len(hits) < k and start < len(fused):
            batch = fused[start : start + max(k * 2, 20)]
            start += len(batch)
            records = self.store.get_by_rowids([c.rowid for c in batch], filters, now)
            for cand in batch:
                record = records.get(cand.rowid)
                if record is None:
                    continue
                explain = Explain(
                    vector_rank=cand.vector_rank,
                    vector_score=cand.vector_score,
                    lexical_rank=cand.lexical_rank,
                    lexical_score=cand.lexical_score,
                    fused_score=cand.fused,
                    fusion=fusion,
                    stages=[("fusion", cand.fused)],
                    degraded=degraded,
                )
                hits.append(Hit(record=record, score=cand.fused, explain=explain))
                if len(hits) >= k:
                    break
        return hits
