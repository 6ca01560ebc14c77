"""The search every caller uses: its arguments checked, explicit recalls counted.

``Memory.search``, archived-chat recall, auto-recall and the tools all search through one
``CheckedSearch`` that ``Memory`` builds, so a feature that searches is handed this object and
never calls back into ``Memory``. The pipeline itself is ``Searcher`` (``search/pipeline.py``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from remem import arguments
from remem.config import Config
from remem.errors import ValidationError
from remem.schemas import check_encodable, make_filters
from remem.search.access_counts import AccessRecorder
from remem.search.pipeline import Searcher
from remem.search.stages import STAGE_NAMES
from remem.types import Filters, SearchResult

CHANNELS = ("vector", "lexical")


@dataclass(frozen=True, kw_only=True)
class SearchRequest:
    """One search as ``Memory.search`` takes it (each field is documented there), built once
    by the caller and checked by ``CheckedSearch.search``."""

    query: str
    k: int = 10
    filters: Filters | dict[str, Any] | None = None
    now: float | str | None = None
    asker: str | None = None
    same_user_boost: bool = False
    explicit: bool = False
    disable: tuple[str, ...] | frozenset[str] = ()
    channels: tuple[str, ...] = CHANNELS
    query_vector: np.ndarray | None = None
    timezone: str | None = None


class CheckedSearch:
    """Checks a search's arguments against the configuration, runs the pipeline and
    reinforces what a deliberate recall returned."""

    def __init__(self, config: Config, searcher: Searcher, access_counts: AccessRecorder) -> None:
        self.config = config
        self.searcher = searcher
        self.access_counts = access_counts

    def search(self, request: SearchRequest) -> SearchResult:
        """See ``Memory.search``."""
        r = request
        self._check_query(r.query)
        max_k = self.config.search.max_k
        if isinstance(r.k, bool) or not isinstance(r.k, int) or not 1 <= r.k <= max_k:
            raise ValidationError("k", r.k, f"use a whole number from 1 to {max_k}")
        arguments.choices("disable", r.disable, STAGE_NAMES)
        if not arguments.choices("channels", r.channels, CHANNELS):
            raise ValidationError("channels", r.channels, "use 'vector' and/or 'lexical'")
        arguments.name("asker", r.asker, optional=True)
        arguments.flag("same_user_boost", r.same_user_boost)
        arguments.flag("explicit", r.explicit)
        zone = arguments.zone("timezone", r.timezone) or self.config.calendar.zone()
        when = time.time() if r.now is None else arguments.moment("now", r.now, zone)
        result = self.searcher.search(
            r.query,
            r.k,
            make_filters(r.filters, zone),
            when,
            query_vector=r.query_vector,
            channels=tuple(r.channels),
            asker=r.asker,
            same_user_boost=r.same_user_boost,
            disable=frozenset(r.disable),
            zone=zone,
        )
        if r.explicit and result.hits:
            # Explicit recalls reinforce (debounced); automatic ones never do.
            self.access_counts.touch([h.record for h in result.hits], when)
        return result

    def _check_query(self, query: str) -> None:
        if not isinstance(query, str) or not query.strip():
            raise ValidationError("query", query, "give a non-empty query")
        check_encodable("query", query)
        limit = self.config.search.max_query_chars
        if len(query) > limit:
            raise ValidationError(
                "query",
                f"{query[:40]}... ({len(query)} characters)",
                f"use at most {limit} characters (search.max_query_chars)",
            )
