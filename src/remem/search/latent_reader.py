"""The bundled e5 runtime's sparse latent terms as relevance evidence for the best candidates.

e5's dense cosine puts an off-topic hit close to an answer (most pairs of texts sit between
0.75 and 0.9), so the relevance floor cannot tell them apart well. The runtime's sparse head
(``remem.embed.latent``) reads which of some 16,000 learned features a text switches on; the
cosine of a question's and a hit's features separates the two better. For the best
``search.latent_top`` candidates, the relevance stage asks for it and calibrates with it
(``embed/calibrations.LATENT_CALIBRATIONS``).

A candidate's terms are read from the store, where the indexer keeps them beside its vectors
(``ingest/latent_fill.py``: ingest, import, copy and ``remem embed`` store them, the
background fill catches up on the rest). A record the fill has not reached yet has no latent
evidence: it is judged by its dense cosine, as the candidates past ``search.latent_top`` are.
Computing its terms here cost a chat's recall a model pass per unseen candidate: on a 100k
store made by ``remem import`` (no terms yet), pre-turn recall took p50 508 ms, p95 1,080 ms,
10x the floor of embedding the question and an exact search (issue 47). Read terms are kept in
a per-process cache keyed by the record's content, so a chat that keeps hitting the same
records reads them once. The question's terms cost one model pass. Only a model with a sparse head (the bundled e5) has them; if they cannot be computed,
the reader switches itself off (logged once) and relevance goes on without them.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

from remem.embed import latent
from remem.embed.base import Embedder
from remem.errors import RememError
from remem.store.base import Store
from remem.types import Record

log = logging.getLogger("remem.search")

CACHE_TEXTS = 20_000  # ~10 MB of packed terms


class LatentReader:
    """Per searcher: the latent-term cosines of a question against a few candidates."""

    def __init__(self, store: Store, embedder_factory: Callable[[], Embedder | None]) -> None:
        self.store = store
        self._factory = embedder_factory
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._off: str | None = None

    def is_on(self) -> bool:
        """Whether latent terms can be read: the model has a sparse head and it has not failed
        (the model is loaded by then: a search embedded its question)."""
        if self._off is not None:
            return False
        try:
            return getattr(self._factory(), "latent_terms", None) is not None
        except (RememError, OSError, RuntimeError):
            return False

    def cosines(self, query: str, records: Sequence[Record]) -> list[float | None] | None:
        """Each record's latent-term cosine to the query (None for a record whose terms the
        store does not hold yet), or None (no sparse head, off)."""
        if self._off is not None or not records:
            return None
        try:
            embedder = self._factory()
            terms = getattr(embedder, "latent_terms", None)
            if terms is None:
                return None
            codes = self._codes(terms, getattr(embedder, "latent_model_id", None), records)
            if all(code is None for code in codes):  # nothing to compare: spare the model pass
                return [None] * len(codes)
            question = self._question(terms, query)
            return [None if code is None else latent.cosine(question, code) for code in codes]
        except Exception as exc:  # evidence, not a requirement: the search goes on without
            self._off = str(exc)
            log.warning("relevance without latent terms: %s", exc, exc_info=True)
            return None

    def _question(self, terms: Callable[..., list[bytes]], query: str) -> bytes:
        # kept apart from the records' content-hash keys
        return self._cached(terms, ["query: " + query], [query])[0]

    def _codes(
        self, terms: Callable[..., list[bytes]], model_id: str | None, records: Sequence[Record]
    ) -> list[bytes | None]:
        def stored(keys: list[str]) -> dict[str, bytes]:
            """The store's current terms of the records under these keys."""
            rowid_of = {r.content_hash: r.rowid for r in records if r.rowid is not None}
            wanted = {rowid_of[k]: k for k in keys if k in rowid_of}
            if model_id is None or not wanted:
                return {}
            try:
                found = self.store.latent_terms_of(model_id, list(wanted))
            except Exception as exc:  # a busy or unreachable store: compute them instead
                log.debug("latent terms not read from the store: %s", exc)
                return {}
            # a malformed entry (not 4 bytes a term) is computed again instead of trusted
            return {wanted[r]: code for r, code in found.items() if len(code) % 4 == 0}

        keys = [r.content_hash or r.text for r in records]
        return self._kept(keys, stored)

    def _kept(
        self, keys: list[str], stored: Callable[[list[str]], dict[str, bytes]]
    ) -> list[bytes | None]:
        """The terms under each key: from the cache, else from the store (then cached), else
        None. Never computed: that is the fill's work, off the search's path."""
        with self._lock:
            known = {k: self._cache[k] for k in keys if k in self._cache}
        missing = [k for k in dict.fromkeys(keys) if k not in known]
        if missing:
            known.update(stored(missing))
        with self._lock:
            for k in keys:
                if k in known:
                    self._cache[k] = known[k]
                    self._cache.move_to_end(k)
            while len(self._cache) > CACHE_TEXTS:
                self._cache.popitem(last=False)
        return [known.get(k) for k in keys]

    def _cached(
        self, terms: Callable[..., list[bytes]], keys: list[str], texts: list[str]
    ) -> list[bytes]:
        """The terms of each text (the question) under its key: from the cache, else computed
        (in one call, before the indexer's passages: it is a search's own work), and kept,
        least recently used first out."""
        with self._lock:
            known = {k: self._cache[k] for k in keys if k in self._cache}
        text_of = dict(zip(keys, texts, strict=True))
        missing = [k for k in dict.fromkeys(keys) if k not in known]
        if missing:
            known.update(
                zip(missing, terms([text_of[k] for k in missing], query=True), strict=True)
            )
        with self._lock:
            for k in keys:
                self._cache[k] = known[k]
                self._cache.move_to_end(k)
            while len(self._cache) > CACHE_TEXTS:
                self._cache.popitem(last=False)
        return [known[k] for k in keys]
