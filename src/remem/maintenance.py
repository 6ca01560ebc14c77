"""Operator operations over an open Memory that its facade does not offer (yet).

Finding ids by prefix, counting what a bulk delete or a backfill would touch, deleting
everything, and the embedding-model cut-over behind `remem reembed`. They live here, as plain
functions of a Memory, so that no interface (the CLI, later the REST admin routes) reaches
into ``mem.store`` itself; each is a candidate for a method of the facade.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from remem.engine import make_filters
from remem.errors import ConfigError
from remem.types import Filters

if TYPE_CHECKING:
    from remem.engine import Memory

# Where a completed switch is recorded; Memory._follow_model_switch reads it back on open.
ACTIVE_MODEL_NAMESPACE = "embed"
ACTIVE_MODEL_KEY = "active-model"


def ids_with_prefix(mem: Memory, prefix: str, limit: int = 20) -> list[str]:
    """Ids starting with ``prefix``, at most ``limit`` of them."""
    return mem.store.ids_with_prefix(prefix, limit=limit)


def count_records(mem: Memory, filters: Filters | dict[str, Any] | None = None) -> int:
    """How many records pass the filters (all records without any)."""
    return mem.store.count(make_filters(filters))


def delete_all(mem: Memory) -> int:
    """Delete every record; returns how many there were."""
    return mem.delete(mem.store.ids_where(None))


def records_to_embed(mem: Memory, model_id: str, *, force: bool = False) -> int:
    """How many records a backfill with ``model_id`` would embed: those without its vector,
    or every record with ``force``."""
    return mem.store.count() if force else mem.store.count_missing_vectors(model_id)


def missing_local_vectors(mem: Memory) -> int | None:
    """Records without a vector from the configured bundled model, counted without loading
    it; None when the provider is not ``local``."""
    cfg = mem.config.embed
    if cfg.provider != "local":
        return None
    return mem.store.count_missing_vectors(f"local:{cfg.model}")


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
        mem.store.meta_set(ACTIVE_MODEL_NAMESPACE, ACTIVE_MODEL_KEY, embedder.model_id)
        if drop_old:
            dropped = _drop_other_models(mem, embedder.model_id)
    return ReembedReport(
        model_id=embedder.model_id,
        embedded=done["embedded"],
        failed=done["failed"],
        remaining=done["remaining"],
        complete=complete,
        dropped_old_vectors=dropped,
    )


def _drop_other_models(mem: Memory, keep: str) -> int:
    """Delete the vectors of every model but ``keep``; records stay indexed by ``keep``."""
    dropped = 0
    for model_id, _dim, _n in mem.store.vector_stats():
        if model_id != keep:
            dropped += mem.store.clear_vectors(model_id=model_id)
    # Clearing marked the records pending; they all hold a vector of ``keep``.
    mem.store.mark_indexed_with(keep)
    return dropped
