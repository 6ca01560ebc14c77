"""The read pipeline.

query noise gate -> candidates (vector and lexical top-N) -> fusion -> authoritative fetch
(the store applies the filters again) -> gates (semantic floor, noise) -> rerank -> scoring
(recency, importance, length, decay, time, same user, session, neighbour and link lift, time
intent) -> relevance (calibrated, the "nothing relevant" floor) -> final-score floor ->
diversity -> aggregate spread -> top k.

Every stage is a small function over the candidate list (see the modules next to this one);
each writes its score into the candidate's trace, and every candidate a gate removes is
reported with the gate's name, so a search can always answer "why this?" and "why nothing?".
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Future
from datetime import tzinfo

import numpy as np

from remem.config import Config
from remem.embed.base import Embedder, chunk_limit, embed_with_chunks
from remem.embed.calibrations import LEXICAL_ONLY, NEUTRAL, calibration_for, shipped_neutral_vectors
from remem.errors import RememError
from remem.index.exact import blas_one_thread
from remem.index.filtered import FilteredVectorIndex
from remem.index.legacy import LegacyVectors, with_legacy
from remem.index.select import SearchIndex, open_index
from remem.search import diversity as diversity_stage
from remem.search import gates
from remem.search.candidates import Candidate, in_hit_order, pool_size, to_hit
from remem.search.chat_budget import chat_embed_budget, chat_name_tokens
from remem.search.context import Readers, Request, StageContext
from remem.search.fast_hits import FastHits
from remem.search.fusion import rrf_fuse, weighted_fuse
from remem.search.latent_reader import LatentReader
from remem.search.lexical import lexical_candidates, weigh_terms
from remem.search.query_embedding import QueryEmbeddings, VectorFound, vectors_of_other_models
from remem.search.query_names import SpeakerNames
from remem.search.query_terms import idf_from_stats, weigh_query
from remem.search.rerank import Reranker, make_reranker
from remem.search.scoped_terms import search_counts
from remem.search.stages import SCORE_STAGES
from remem.search.time_intent import read_time_words, with_window
from remem.search.translate import QueryTranslator, across_scripts
from remem.search.witness import CrossScriptWitness
from remem.store.base import Store
from remem.text.budget import embedded_query
from remem.text.dialogue import dialogue_messages
from remem.text.scripts import script_of
from remem.text.tokenize import Tokenizer
from remem.text.word_forms import other_forms
from remem.types import Filters, SearchResult

log = logging.getLogger("remem.search")


class Searcher:
    def __init__(
        self,
        store: Store,
        tokenizer: Tokenizer,
        config: Config,
        embedder_factory: Callable[[], Embedder | None],
    ) -> None:
        self.store = store
        self.tokenizer = tokenizer
        self.config = config
        self._embedder_factory = embedder_factory
        self._indexes: dict[str, SearchIndex] = {}
        self._reranker: Reranker | None = None
        self._reranker_loaded = False
        self._model_checked: set[str] = set()
        self._neutral: dict[str, np.ndarray] = {}
        self.legacy = LegacyVectors(store)
        self.speaker_names = SpeakerNames(store)
        self.translator = QueryTranslator(store, tokenizer, self.speaker_names)
        self.query_embeddings = QueryEmbeddings(embedder_factory, self.embed_query)
        self.fast_hits = FastHits(store, config, self.embed_query, self.neutral_vectors)
        self.witness = CrossScriptWitness(config.embed.threads, self.neutral_vectors)
        self.latent = LatentReader(store, embedder_factory)
        self.facts_ready: Callable[[], object] | None = None  # waits for owed facts (engine)

    def close(self) -> None:
        self.query_embeddings.close()

    def index_for(self, embedder: Embedder) -> SearchIndex:
        index = self._indexes.get(embedder.model_id)
        if index is None:
            index = self._indexes[embedder.model_id] = open_index(
                self.store,
                embedder.model_id,
                embedder.dim,
                auto_build=self.config.search.index_build == "background",
            )
        return index

    def embed_query(self, embedder: Embedder, query: str) -> np.ndarray:
        cfg, cfg_search = self.config.embed, self.config.search
        return embed_with_chunks(
            embedder,
            [embedded_query(query, cfg_search.query_embed_tokens, self.chat_budget(query))],
            is_query=True,
            max_chars=chunk_limit(embedder, cfg),
            overlap=cfg.chunk_overlap,
            batch_size=cfg.batch_size,
        )[0]

    def chat_budget(self, query: str) -> int:
        """search.chat_embed_tokens, or a question's budget for a chat of strangers
        (``chat_budget.py``)."""
        cfg = self.config.search
        if cfg.chat_embed_tokens == cfg.query_embed_tokens or not dialogue_messages(query):
            return cfg.chat_embed_tokens
        speakers = self.speaker_names.named(query, None)
        return chat_embed_budget(query, cfg, self.store, self.tokenizer, speakers)

    def neutral_vectors(self, embedder: Embedder) -> np.ndarray:
        """Vectors of the NEUTRAL sentences for this model: shipped for the bundled model,
        otherwise embedded once per model."""
        cached = self._neutral.get(embedder.model_id)
        if cached is None:
            cached = shipped_neutral_vectors(embedder.model_id)
            if cached is None:
                cached = np.asarray(embedder.embed_passages(list(NEUTRAL)), np.float32)
            self._neutral[embedder.model_id] = cached
        return cached

    def _baseline(self, query_vector: np.ndarray) -> float | None:
        """The query's cosine to the nearest neutral sentence (relevance calibration)."""
        try:
            embedder = self._embedder_factory()
            # Only a calibrated model uses the baseline: others (a remote API too) are not
            # asked to embed the neutral sentences at all.
            if embedder is None or calibration_for(embedder.model_id) is LEXICAL_ONLY:
                return None
            anchors = self.neutral_vectors(embedder)
        except RememError:
            return None  # no baseline: the relevance stage falls back to words only
        with blas_one_thread():
            return float(np.max(anchors @ np.asarray(query_vector, np.float32)))

    def reranker(self) -> Reranker | None:
        if not self._reranker_loaded:
            self._reranker = make_reranker(self.config.rerank)
            self._reranker_loaded = True
        return self._reranker

    # ------------------------------------------------------------------ search
    def search(
        self,
        query: str,
        k: int,
        filters: Filters | None,
        now: float,
        *,
        query_vector: np.ndarray | None = None,
        channels: tuple[str, ...] = ("vector", "lexical"),
        asker: str | None = None,
        same_user_boost: bool = False,
        disable: tuple[str, ...] | frozenset[str] = (),
        zone: tzinfo | None = None,  # whose calendar time words are read on (the config's)
    ) -> SearchResult:
        cfg = self.config
        ctx = self._context(query, k, filters, now, asker, same_user_boost)
        if (nothing := gates.noise_query(query, ctx, frozenset(disable))) is not None:
            return SearchResult(query=query, notes=[nothing], timings_ms={"total": 0.0})
        result = SearchResult(query=query)
        if self.facts_ready is not None:
            self.facts_ready()
        pool = self._pool(k, filters)
        t0 = time.perf_counter()
        within = read_time_words(ctx, zone, disable)
        vector_query, query_vector, translation = across_scripts(
            ctx, query_vector, channels, self.translator
        )
        side: Future[VectorFound] | None = None
        if "vector" in channels and "lexical" in channels:  # beside the keyword search
            side = self.query_embeddings.submit(
                self._vector_channel, vector_query, query_vector, pool, filters, now, within
            )
        more = translation.tokens if cfg.translate.keyword else []
        result.translated_tokens = list(more)
        lexical = self._lexical(ctx, pool, more, within) if "lexical" in channels else []
        t1 = time.perf_counter()

        found = VectorFound()
        if side is not None:
            found = side.result()  # what the worker raised is raised here
        elif "vector" in channels:
            found = self._vector_channel(vector_query, query_vector, pool, filters, now, within)
        found.report_to(result)
        vector, index, query_vector = found.hits, found.index, found.query_vector
        ctx.found.query_vector = query_vector
        if query_vector is not None and "relevance" not in disable:
            ctx.found.baseline = self._baseline(query_vector)
        t2 = time.perf_counter()

        # a question in Chinese or Japanese, not a chat (its notes are found by their words)
        cjk = script_of(query) == "cjk" and not dialogue_messages(query)
        cands = self._fetch(self._fuse(vector, lexical, cjk), filters, now, ctx)
        if index is not None and cands:
            ctx.found.vectors = index.vectors_for([c.rowid for c in cands])
            ctx.found.model_id = index.model_id
        t3 = time.perf_counter()

        cands = self._score(cands, ctx, disable)
        t4 = time.perf_counter()

        top = in_hit_order(cands[:k], self.config.search.hit_order)
        result.hits = [to_hit(c, self.config.search.fusion, result.degraded) for c in top]
        result.dropped = [d.to_dict() for d in ctx.report.dropped]
        result.notes += ctx.report.notes  # after what the vector channel noted
        result.warnings += [
            w for w in dict.fromkeys(ctx.report.warnings) if w not in result.warnings
        ]
        result.timings_ms.update(
            {
                "lexical": (t1 - t0) * 1000,
                "embed": found.embed_ms,
                "vector": found.search_ms,
                "fuse_fetch": (t3 - t2) * 1000,
                "stages": (t4 - t3) * 1000,
                "total": (t4 - t0) * 1000,
            }
        )
        return result

    def _context(
        self,
        query: str,
        k: int,
        filters: Filters | None,
        now: float,
        asker: str | None,
        same_user_boost: bool,
    ) -> StageContext:
        """What every stage of this search reads: the query, the store, the settings."""
        return StageContext(
            Request(
                query=query,
                now=now,
                k=k,
                config=self.config,
                asker=asker,
                same_user_boost=same_user_boost,
                filters=filters,
                include_superseded=filters is not None and filters.include_superseded is True,
            ),
            readers=Readers(store=self.store, tokenizer=self.tokenizer),
        )

    def _pool(self, k: int, filters: Filters | None) -> int:
        """Each channel's top-N for this k (larger when a role filter will drop hits)."""
        cfg = self.config.search
        role_filter = filters is not None and (
            filters.roles is not None or bool(filters.exclude_roles)
        )
        return pool_size(
            k,
            floor=cfg.candidate_pool,
            factor=cfg.candidate_factor,
            role_factor=cfg.role_filter_factor,
            role_filter=role_filter,
        )

    def _lexical(
        self, ctx: StageContext, pool: int, more: list[str], within: Filters | None = None
    ) -> list[tuple[int, float]]:
        """The lexical channel's top ``pool`` for the query's tokens and ``more`` (its
        translations), and its best inside a named time window (``within``); the query's term
        statistics are read once (the channel prunes, the relevance stage weighs with them)."""
        cfg = self.config.search
        own = self.tokenizer.query_tokens(ctx.request.query)
        # "did I buy" asks for "bought" too (text/word_forms.py)
        forms = other_forms(self.tokenizer, own, on=self.config.text.word_forms)
        more = [t for t in more if t not in own and t not in forms]
        tokens = own + list(forms) + more
        if not tokens:
            return []
        names = chat_name_tokens(ctx.request.query, self.tokenizer, own)
        translated_weight = self.config.translate.weight
        stats = self.store.term_stats(tokens)
        # a search narrowed to a part of the store counts that part (scoped_terms.py)
        scoped = search_counts(
            self.store, tokens, ctx.request.filters, ctx.request.now, cfg.context_weight, stats
        )
        # relevance weighs the question's own words (and their forms): counting its
        # translations as coverage too raised false hits on the no-answer probes by 6-8 points
        # for +0.003 recall@10 (remem-bench's floor-with-translation.json)
        weigh_query(ctx, own, forms, stats, scoped)
        ctx.understood.translated_weights = idf_from_stats(scoped or stats, more)

        def best(filters: Filters | None, n: int) -> list[tuple[int, float]]:
            found = lexical_candidates(
                self.store,
                tokens,
                filters,
                n,
                ctx.request.now,
                context_weight=cfg.context_weight,
                max_df=cfg.lexical_max_df,
                prune_min_docs=cfg.lexical_prune_min_docs,
                postings_budget=cfg.lexical_postings_budget,
                first_pass_budget=cfg.lexical_first_pass_budget,
                stats=stats,
                scoped=scoped,
            )
            # a dictionary sense weighs less than a word asked, a chat's people's names more
            for terms, weight in ((more, translated_weight), (names, cfg.chat_label_weight)):
                found = weigh_terms(self.store, found, terms, weight, cfg.context_weight, scoped)
            return found

        found = best(ctx.request.filters, pool)
        if within is not None:
            found = with_window(found, best(within, self.config.time_intent.candidates))
        return found

    def _fuse(
        self, vector: list[tuple[int, float]], lexical: list[tuple[int, float]], cjk: bool
    ) -> list[Candidate]:
        """The two channels' rankings as one; a question (not a chat) in Chinese or Japanese
        weighs the vector channel by search.cjk_vector_weight."""
        cfg = self.config.search
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
                vector,
                lexical,
                vector_weight=cfg.cjk_vector_weight if cjk else cfg.vector_weight,
                lexical_weight=cfg.lexical_weight,
                min_vector_span=cfg.min_vector_span,
            )
        for c in fused:
            c.stages.append((f"fusion ({cfg.fusion})", c.fused))
        return fused

    def _score(
        self, cands: list[Candidate], ctx: StageContext, disable: tuple[str, ...] | frozenset[str]
    ) -> list[Candidate]:
        """The scoring stages in order, then diversity and aggregate spread."""
        if "rerank" not in disable:
            ctx.readers.reranker = self.reranker()
        ctx.readers.witness = self.witness  # the relevance stage's second model across scripts
        ctx.readers.latent = self.latent  # and the best candidates' latent terms
        ctx.readers.speaker_names = self.speaker_names  # the people a hit names (link lift)
        for name, stage in SCORE_STAGES:
            if name not in disable and cands:
                cands = stage(cands, ctx)
        cands.sort(key=lambda c: (-c.score, c.rowid))
        if "diversity" not in disable:
            cands = diversity_stage.diversity(cands, ctx)
        if "aggregate_spread" not in disable:
            cands = diversity_stage.aggregate_spread(cands, ctx)
        return gates.current_only(cands, ctx)  # stages may bring records in

    def _fetch(
        self, fused: list[Candidate], filters: Filters | None, now: float, ctx: StageContext
    ) -> list[Candidate]:
        """Attach records; the store re-applies the filters and skips deleted records, so a
        lexical-only or cached vector hit is confirmed to still exist before it is used."""
        records = self.store.get_by_rowids([c.rowid for c in fused], filters, now)
        out = []
        for c in fused:
            c.record = records.get(c.rowid)
            if c.record is None:
                ctx.report.drop(c, "fetch", "deleted meanwhile or outside the filters")
            else:
                out.append(c)
        return gates.current_only(out, ctx)

    def _vector_channel(
        self,
        query: str,
        query_vector: np.ndarray | None,
        pool: int,
        filters: Filters | None,
        now: float,
        within: Filters | None = None,
    ) -> VectorFound:
        """The vector channel, with what it has to say kept apart in its own result (it may
        run on a worker thread while the keyword search runs; the caller reports it), and
        its best inside a named time window (``within``)."""
        start = time.perf_counter()
        result = SearchResult(query=query)
        if query_vector is not None:
            got = self.query_embeddings.given(query_vector)
        else:
            got = self.query_embeddings.embed(query)
        if got.failure:
            self._degrade(result, got.failure)
        if got.embedder is None:
            result.degraded = True  # lexical-only by configuration, or the failure above
            return VectorFound(embed_ms=got.ms, said=result)
        if got.vector is None:
            return VectorFound(embed_ms=got.ms, said=result)
        embedder, query_vector, t_embed = got.embedder, got.vector, got.ms
        index = self.index_for(embedder)
        legacy, warning = self.legacy.before_search(embedder.model_id, embedder.dim)
        if warning:
            result.warnings.append(warning)
        hits = index.search(query_vector, pool, filters, now)
        if legacy is not None and len(legacy.rowids):
            hits = with_legacy(hits, legacy, query_vector, pool)
        hits, waiting = self._with_waiting(hits, query, query_vector, pool, filters, now, index)
        if within is not None:  # after the two above: each keeps only the best ``pool``
            inside = index.search(query_vector, self.config.time_intent.candidates, within, now)
            hits = with_window(hits, inside)
        if waiting:
            result.notes.append(
                f"fast lane: {waiting} candidates still waiting for {embedder.model_id}, "
                "found by their fast vectors"
            )
        if index.size == 0 and self.store.count() > 0 and not waiting:
            others = [
                f"{m} ({n})" for m, _d, n in self.store.vector_stats() if m != embedder.model_id
            ]
            also = f" (other models: {', '.join(others)})" if others else ""
            self._degrade(
                result,
                f"no records have vectors for {embedder.model_id} yet{also}; run `remem embed`",
                log_it=embedder.model_id not in self._model_checked,
            )
            self._model_checked.add(embedder.model_id)  # every result says it; the log once
        else:
            self._check_models(embedder, index, result)
        if isinstance(index, FilteredVectorIndex) and index.vectors.behind():
            result.warnings.append(
                f"the vector index files are behind ({index.vectors.unsnapshotted} vectors "
                "read from the database on every start): `remem index` rebuilds them"
            )
        search_ms = (time.perf_counter() - start) * 1000 - t_embed
        return VectorFound(hits, index, query_vector, t_embed, search_ms, result)

    def _with_waiting(
        self,
        hits: list[tuple[int, float]],
        query: str,
        query_vector: np.ndarray,
        pool: int,
        filters: Filters | None,
        now: float,
        index: SearchIndex,
    ) -> tuple[list[tuple[int, float]], int]:
        """``hits`` with the records the main model has not reached yet, found by their
        fast-lane vectors and scored on its scale (``fast_hits.py``); and how many joined."""
        try:
            waiting = self.fast_hits.search(
                query,
                pool,
                filters,
                now,
                index,
                index.model_id,
                lambda: self._baseline(query_vector),
            )
        except RememError as exc:  # the fast model cannot load: the main hits still stand
            self.fast_hits.disable(str(exc))
            return hits, 0
        if not waiting:
            return hits, 0
        return sorted([*hits, *waiting], key=lambda h: -h[1])[:pool], len(waiting)

    def _check_models(self, embedder: Embedder, index: SearchIndex, result: SearchResult) -> None:
        """Vectors of other models are never compared; say how many records that leaves
        without a vector for the query's model, once per model per process."""
        if embedder.model_id in self._model_checked:
            return
        self._model_checked.add(embedder.model_id)
        if message := vectors_of_other_models(self.store, embedder.model_id, index.size):
            result.warnings.append(message)
            log.warning(message)

    @staticmethod
    def _degrade(result: SearchResult, why: str, log_it: bool = True) -> None:
        result.degraded = True
        message = f"{why}; answered from the lexical index only"
        if message not in result.warnings:
            result.warnings.append(message)
            if log_it:
                log.warning(message)
