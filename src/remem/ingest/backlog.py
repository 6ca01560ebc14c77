"""The background backlog, for `remem stats` and the web UI's overview: what waits for
vectors, latent terms and facts, how fast it shrinks, and which background jobs run now."""

from __future__ import annotations

import json
import time
from typing import Any

from remem.embed.fast_model import FAST_MODEL_ID
from remem.embed.query_first import SEARCHES
from remem.ingest.backfill import Backfill
from remem.ingest.facts_fill import FactsFill
from remem.ingest.fast_lane import FastLane
from remem.ingest.latent_fill import LatentTerms
from remem.ingest.queue import IndexQueue
from remem.store.base import FactStore, Store

RATE = ("indexing", "rate")  # meta key: the queue's recent embedding rate, for `remem stats`
RATE_STALE_S = 30.0  # an older rate means nobody is embedding now
# the jobs `running` names (the web UI translates each: i18n's "job." keys)
JOBS = ("vectors", "fast-lane vectors", "latent terms", "vectors (another process)")


def describe_backlog(
    store: Store,
    pending: int,
    queue: IndexQueue | None,
    backfill: Backfill | None,
    fast: FastLane | None,
    latent: LatentTerms,
    facts: FactsFill | None = None,
) -> dict[str, Any]:
    """``pending`` records (index status pending), how fast the queues of any process on this
    store embedded lately, the time that leaves, and this process's background jobs."""
    try:
        rate = json.loads(store.meta_get(*RATE) or "{}")
    except ValueError:
        rate = {}
    fresh = bool(rate) and time.time() - float(rate.get("at", 0)) < RATE_STALE_S
    per_s = float(rate.get("per_s", 0.0)) if fresh else 0.0
    data: dict[str, Any] = {
        "pending": pending,
        "per_second": per_s,
        "eta_s": round(pending / per_s, 1) if per_s > 0 and pending else None,
        # pending records a search finds by meaning meanwhile, through the fast model's
        # vectors (the fast lane's, or `remem import --fast`'s): at most all of them
        "fast_vectors": min(pending, store.vector_count(FAST_MODEL_ID)) if pending else 0,
    }
    if backfill is not None:
        data["backfill"] = backfill.stats()
    if fast is not None:  # this process's lane: fast vectors written, queue
        data["fast_lane"] = fast.stats()
    if latent.model_id() is not None:  # records whose latent terms are still owed
        data["latent_terms"] = latent.stats()
    # records whose facts are not read yet (the store's facts backlog, every process's)
    data["facts_waiting"] = store.count_awaiting_facts() if isinstance(store, FactStore) else 0
    jobs = []
    if (queue is not None and not queue.wait_idle(0)) or (
        backfill is not None and not backfill.settled()
    ):
        jobs.append("vectors")
    if fast is not None and not fast.wait_idle(0):
        jobs.append("fast-lane vectors")
    if data.get("latent_terms", {}).get("filling"):
        jobs.append("latent terms")
    if queue is None and per_s > 0:  # not this process (it has no queue): the store's rate
        jobs.append("vectors (another process)")
    data["running"] = jobs
    data["searches_first"] = SEARCHES.yielded  # background slices that let a search go first
    return data
