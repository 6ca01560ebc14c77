"""Operator operations over an open Memory, composed from its public methods: what a
backfill would touch, and the embedding-model switch behind `remem reembed`. Interfaces (the
CLI, the web UI) call these and the facade; none reaches into the store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from remem.config import Config
from remem.conversation.indexing import active_model, expected_model_id, followed_model
from remem.embed.factory import make_embedder
from remem.errors import ConfigError
from remem.store.base import Store

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
    """``config.effective()`` as the store at store.path will be used: when that store was
    switched to another bundled model with `remem reembed` and embed.model is not set, the
    row for embed.model shows the switched-to model, from source "store". A store that does
    not exist is not created."""
    rows = config.effective()
    if not config.store.resolved_path().exists():
        return rows
    from remem.store.sqlite import SQLiteStore

    store = SQLiteStore(config.store.resolved_path(), busy_timeout_ms=config.store.busy_timeout_ms)
    try:
        followed = followed_model(config, active_model(store))
    finally:
        store.close()
    if followed is None:
        return rows
    return [(k, followed, "store") if k == "embed.model" else (k, v, s) for k, v, s in rows]
