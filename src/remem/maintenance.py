"""Operator operations over an open Memory, composed from its public methods: what a
backfill would touch, and the embedding-model switch behind `remem reembed`. Interfaces (the
CLI, the web UI) call these and the facade; none reaches into the store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from remem.errors import ConfigError

if TYPE_CHECKING:
    from remem.engine import Memory


def records_to_embed(mem: Memory, model_id: str, *, force: bool = False) -> int:
    """How many records a backfill with ``model_id`` would embed: those without its vector,
    or every record with ``force``."""
    return mem.count() if force else mem.missing_vectors(model_id)


def missing_local_vectors(mem: Memory) -> int | None:
    """Records without a vector from the configured bundled model, counted without loading
    it; None when the provider is not ``local``."""
    if mem.config.embed.provider != "local":
        return None
    return mem.missing_vectors()


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
