"""Operator operations over an open Memory, composed from its public methods: what a
backfill would touch, one scope's statistics behind `remem stats --scope`, and the
embedding-model switch behind `remem reembed`. Interfaces (the
CLI, the web UI) call these and the facade; none reaches into the store."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from remem.config import Config
from remem.embed.factory import make_embedder
from remem.errors import ConfigError, ValidationError
from remem.ingest.indexing import active_model, expected_model_id, followed_model
from remem.schemas import SCOPE_RE
from remem.store.base import Store
from remem.types import Filters

if TYPE_CHECKING:
    from remem.engine import Memory


def records_to_embed(mem: Memory, model_id: str, *, force: bool = False) -> int:
    """How many records a backfill with ``model_id`` would embed: those without its vector,
    or every record with ``force``."""
    return mem.count() if force else mem.missing_vectors(model_id)


def query_vector(mem: Memory, query: str) -> Any:
    """The vector ``mem.search(query)`` would embed the query to (None without a model), so a
    caller can time the embedding apart and pass it as ``query_vector`` to several searches."""
    embedder = mem.get_embedder()
    return None if embedder is None else mem.searcher.embed_query(embedder, query)


def latent_terms_to_store(mem: Memory) -> int:
    """How many records lack the latent terms the relevance stage reads (0 when they are off,
    ``search.latent_top`` = 0, or the model has none)."""
    return mem.indexer.latent.count_missing()


def store_latent_terms(mem: Memory, *, progress: Callable[[int], None] | None = None) -> int:
    """Store the latent terms of every record lacking them now, instead of in the background
    (``remem embed``; the benchmark suite). Returns how many were written."""
    return mem.indexer.latent.fill_all(progress=progress)


def missing_local_vectors(mem: Memory) -> int | None:
    """Records without a vector from the configured bundled model, counted without loading
    it; None when the provider is not ``local``."""
    if mem.config.embed.provider != "local":
        return None
    return mem.missing_vectors()


def scope_stats(mem: Memory, scope: str) -> dict[str, Any]:
    """One scope's records counted by kind, role, category and index status, its current and
    superseded memories, sessions and time span, and its declared description (if any)."""
    if not isinstance(scope, str) or not SCOPE_RE.match(scope):
        raise ValidationError(
            "scope",
            scope,
            "use global, agent:<id>, user:<id>, project:<id>, session:<id> or custom:<name>",
        )
    counts: dict[str, Counter[str]] = {k: Counter() for k in ("kind", "role", "category", "status")}
    sessions: set[str] = set()
    current = superseded = 0
    first = last = None
    now = time.time()
    for rec in mem.store.iter_records(Filters(scopes=[scope])):
        counts["kind"][rec.kind] += 1
        counts["role"][rec.role or "(none)"] += 1
        counts["category"][rec.category or "(none)"] += 1
        counts["status"][rec.index_status] += 1
        if rec.session:
            sessions.add(rec.session)
        if rec.kind == "memory":
            closed = rec.valid_to is not None and rec.valid_to <= now
            superseded, current = superseded + closed, current + (not closed)
        first = rec.created_at if first is None else min(first, rec.created_at)
        last = rec.created_at if last is None else max(last, rec.created_at)
    return {
        "scope": scope,
        "description": mem.config.scopes.definitions.get(scope),
        "records": sum(counts["kind"].values()),
        "by_kind": dict(counts["kind"].most_common()),
        "by_role": dict(counts["role"].most_common()),
        "by_category": dict(counts["category"].most_common()),
        "index_status": dict(counts["status"].most_common()),
        "memories": {"current": current, "superseded": superseded},
        "sessions": len(sessions),
        "oldest": first,
        "newest": last,
    }


@dataclass
class ReembedReport:
    model_id: str
    embedded: int
    failed: int
    remaining: int
    complete: bool  # every record has a vector of model_id, so it became the active model
    dropped_old_vectors: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def reembed(
    mem: Memory,
    *,
    drop_old: bool = False,
    batch_size: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> ReembedReport:
    """Give every record a vector of the model ``mem`` is configured with, beside the vectors
    it already has, then cut over: once coverage is complete the store records that model as
    active (so a Memory opened with the default model follows it) and, with ``drop_old``,
    other models' vectors are deleted. Resumable: a rerun embeds only what is still missing.
    """
    embedder = mem.get_embedder()
    if embedder is None:
        raise ConfigError("reembed needs a real model; embed.provider 'none' has none")
    done = mem.embed_pending(batch_size=batch_size, progress=progress)
    complete = done["remaining"] == 0
    dropped = 0
    if complete:
        dropped = mem.switch_model(drop_old=drop_old)
    return ReembedReport(
        model_id=embedder.model_id,
        embedded=done["embedded"],
        failed=done["failed"],
        remaining=done["remaining"],
        complete=complete,
        dropped_old_vectors=dropped,
    )


def open_for_switch(config: Config) -> Memory:
    """A Memory over the configured store that embeds with ``config``'s model, for `remem
    reembed`. The embedder is handed over ready-made, so opening neither follows an earlier
    switch nor warns that the new model has no vectors yet (the switch is what adds them)."""
    from remem.engine import Memory

    embedder = make_embedder(config.embed)
    if embedder is None:
        raise ConfigError("reembed needs a real model; embed.provider 'none' has none")
    return Memory(config=config, embedder=embedder)


def model_in_use(config: Config, store: Store) -> str | None:
    """The model id a Memory opened over ``store`` with ``config`` searches with: the
    configured model, or the one the store was switched to while embed.model is unset."""
    followed = followed_model(config, active_model(store))
    return f"local:{followed}" if followed else expected_model_id(config.embed)


def effective_settings(config: Config) -> list[tuple[str, Any, str]]:
    """``config.effective()`` as the configured store (the file, or ``store.url``) will be used: when that store was
    switched to another bundled model with `remem reembed` and embed.model is not set, the
    row for embed.model shows the switched-to model, from source "store". A store that does
    not exist is not created."""
    rows = config.effective()
    if config.store.url is None and not config.store.resolved_path().exists():
        return rows
    from remem.store.open import open_store  # the backend the configuration names

    store = open_store(config.store)
    try:
        followed = followed_model(config, active_model(store))
    finally:
        store.close()
    if followed is None:
        return rows
    return [(k, followed, "store") if k == "embed.model" else (k, v, s) for k, v, s in rows]


@dataclass
class IndexReport:
    """What `remem index` did: whether it built a snapshot, of how many vectors, with or
    without an HNSW graph, its files' size and the time it took. ``reason`` says why there is
    nothing to build for stores that keep no index files."""

    model_id: str
    built: bool
    vectors: int
    graph: bool
    file_bytes: int
    seconds: float
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def build_vector_index(mem: Memory, *, force: bool = False) -> IndexReport:
    """Bring the configured model's vector index up to date now, in this process: build the
    snapshot (and from 20k vectors its graph) when one is due, or always with ``force``.
    Searches build it in the background on their own; this is for the end of a bulk write
    and for short-lived processes, which exit before a background build would finish."""
    from remem.index.filtered import FilteredVectorIndex
    from remem.index.store_side import StoreSideIndex

    embedder = mem.get_embedder()
    if embedder is None:
        raise ConfigError("embed.provider is 'none': there are no vectors to index")
    index = mem.searcher.index_for(embedder)
    start = time.perf_counter()
    if not isinstance(index, FilteredVectorIndex):
        index.sync()
        reason = (
            "the database server builds and keeps its own vector index"
            if isinstance(index, StoreSideIndex)
            else "this store has no file: its vectors are searched in memory"
        )
        return IndexReport(embedder.model_id, False, index.size, False, 0, 0.0, reason)
    built = index.vectors.refresh(force=force)
    index.sync()  # also saves the filter columns beside the new snapshot (columns_file.py)
    info = index.vectors.snapshot_info
    return IndexReport(
        model_id=embedder.model_id,
        built=built,
        vectors=index.size,
        graph=bool(info and info.has_graph),
        file_bytes=sum(info.sizes.values()) if info else 0,
        seconds=round(time.perf_counter() - start, 2),
        reason="" if built or info else "fewer vectors than a snapshot needs: searches scan them",
    )
