"""The bundled e5 runtime's sparse latent terms as relevance evidence for the best candidates.

e5's dense cosine puts an off-topic hit close to an answer (most pairs of texts sit between
0.75 and 0.9), so the relevance floor cannot tell them apart well. The runtime's sparse head
(``remem.embed.latent``) reads which of some 16,000 learned features a text switches on; the
cosine of a question's and a hit's features separates the two better. For the best
``search.latent_top`` candidates, the relevance stage asks for it and calibrates with it
(``relevance.LATENT_CALIBRATIONS``).

A candidate's terms are computed the first time it is among the best and kept in a
per-process cache keyed by its content, so a chat that keeps hitting the same records pays
once. Only a model with a sparse head (the bundled e5) has them; if they cannot be computed,
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
from remem.types import Record

log = logging.getLogger("remem.search")

CACHE_TEXTS = 20_000  # ~10 MB of packed terms


class LatentReader:
    """Per searcher: the latent-term cosines of a question against a few candidates."""

    def __init__(self, embedder_factory: Callable[[], Embedder | None]) -> None:
        self._factory = embedder_factory
        self._cache: OrderedDict[str, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._off: str | None = None

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
            codes = self._codes(terms, records)
        except (RememError, OSError, RuntimeError) as exc:
            self._off = str(exc)
            log.warning("relevance without latent terms: %s", exc)
            return None
        return [latent.cosine(question, code) for code in codes]

    def _question(self, terms: Callable[..., list[bytes]], query: str) -> bytes:
        key = "query: " + query  # kept apart from the records' content-hash keys
        with self._lock:
            known = self._cache.get(key)
        if known is None:
            known = terms([query], query=True)[0]
            with self._lock:
                self._cache[key] = known
        return known

    def _codes(self, terms: Callable[..., list[bytes]], records: Sequence[Record]) -> list[bytes]:
        keys = [r.content_hash or r.text for r in records]
        with self._lock:
            known = {k: self._cache[k] for k in keys if k in self._cache}
        missing = list(dict.fromkeys(k for k in keys if k not in known))
        if missing:
            text_of = {k: r.text for k, r in zip(keys, records, strict=True)}
            # a search's own work: it goes before the indexer's passages
            fresh = dict(
                zip(missing, terms([text_of[k] for k in missing], query=True), strict=True)
            )
            known.update(fresh)
            with self._lock:
                self._cache.update(fresh)
                while len(self._cache) > CACHE_TEXTS:
                    self._cache.popitem(last=False)
        with self._lock:
            for k in keys:
                if k in self._cache:
                    self._cache.move_to_end(k)
        return [known[k] for k in keys]
