"""The bundled e5 runtime's sparse latent terms as relevance evidence for the best candidates.

e5's dense cosine puts an off-topic hit close to an answer (most pairs of texts sit between
0.75 and 0.9), so the relevance floor cannot tell them apart well. The runtime's sparse head
(``remem.embed.latent``) reads which of some 16,000 learned features a text switches on; the
cosine of a question's and a hit's features separates the two better. For the best
``search.latent_top`` candidates, the relevance stage asks for it and calibrates with it
(``embed/calibrations.LATENT_CALIBRATIONS``).

A candidate's terms are read from the store, where the indexer keeps them beside its vectors
(``conversation/latent_fill.py``); a record the fill has not reached yet gets them computed
here. Either way they are kept in a per-process cache keyed by the record's content, so a chat
that keeps hitting the same records reads them once. The question's terms cost one model
pass. Only a model with a sparse head (the bundled e5) has them; if they cannot be computed,
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

    def cosines(self, query: str, records: Sequence[Record]) -> list[float] | None:
        """Each record's latent-term cosine to the query, or None (no sparse head, off)."""
        if self._off is not None or not records:
            return None
        try:
            embedder = self._factory()
            terms = getattr(embedder, "latent_terms", None)
            if terms is None:
                return None
            question = self._question(terms, query)
            codes = self._codes(terms, getattr(embedder, "latent_model_id", None), records)
            return [latent.cosine(question, code) for code in codes]
        except Exception as exc:  # evidence, not a requirement: the search goes on without
            self._off = str(exc)
            log.warning("relevance without latent terms: %s", exc, exc_info=True)
            return None

    def _question(self, terms: Callable[..., list[bytes]], query: str) -> bytes:
        # kept apart from the records' content-hash keys
        return self._cached(terms, ["query: " + query], [query])[0]

    def _codes(
        self, terms: Callable[..., list[bytes]], model_id: str | None, records: Sequence[Record]
    ) -> list[bytes]:
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
        return self._cached(terms, keys, [r.text for r in records], stored)

    def _cached(
        self,
        terms: Callable[..., list[bytes]],
        keys: list[str],
        texts: list[str],
        stored: Callable[[list[str]], dict[str, bytes]] | None = None,
    ) -> list[bytes]:
        """The terms of each text under its key: from the cache, else from the store, else
        computed (in one call, before the indexer's passages: it is a search's own work), and
        kept, least recently used first out."""
        with self._lock:
            known = {k: self._cache[k] for k in keys if k in self._cache}
        text_of = dict(zip(keys, texts, strict=True))
        missing = [k for k in dict.fromkeys(keys) if k not in known]
        if missing and stored is not None:
            known.update(stored(missing))
            missing = [k for k in missing if k not in known]
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
