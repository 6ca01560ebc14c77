"""Build the configured embedder."""

from __future__ import annotations

from typing import TYPE_CHECKING

from remem.embed.base import Embedder
from remem.errors import ConfigError

if TYPE_CHECKING:
    from remem.config import EmbedConfig
    from remem.embed.remote import RemoteEmbedder

# embed.provider -> the class that speaks its protocol (module, class name); imported on use.
REMOTE_PROVIDERS: dict[str, tuple[str, str]] = {
    "openai": ("remem.embed.openai_http", "OpenAIEmbedder"),
    "ollama": ("remem.embed.ollama", "OllamaEmbedder"),
    "gemini": ("remem.embed.gemini", "GeminiEmbedder"),
    "voyage": ("remem.embed.openai_http", "VoyageEmbedder"),
    "jina": ("remem.embed.openai_http", "JinaEmbedder"),
}


def model_id_for(config: EmbedConfig) -> str | None:
    """The model id the configured embedder will report, without loading or calling it."""
    if config.provider == "none":
        return None
    if config.provider == "local":
        return f"local:{config.model}"
    return f"{config.provider}:{config.model}" + (
        f"@{config.dimensions}" if config.dimensions else ""
    )


def make_embedder(config: EmbedConfig) -> Embedder | None:
    """The embedder for this config, or None for ``provider = "none"`` (lexical only).
    Remote embedders come wrapped in a circuit breaker unless ``embed.breaker_failures = 0``."""
    if config.provider == "none":
        return None
    if config.provider == "local":
        from remem.embed.local import LOCAL_MODELS, E5Embedder, USEEmbedder

        if config.model == "multilingual-e5-small":
            return E5Embedder(threads=config.threads)
        if config.model == "use-multilingual-v3":
            return USEEmbedder(threads=config.threads)
        raise ConfigError(
            f"embed.model={config.model!r} is not a bundled model; choose one of "
            f"{', '.join(LOCAL_MODELS)}, or set embed.provider to a remote provider"
        )
    remote = make_remote_embedder(config)
    if config.breaker_failures == 0:
        return remote
    from remem.embed.breaker import BreakerEmbedder, CircuitBreaker

    return BreakerEmbedder(
        remote, CircuitBreaker(config.breaker_failures, config.breaker_cooldown_s)
    )


# The embed.* settings a remote embedder takes as they are: its keyword arguments have the
# same names (the model is passed first, and the keys as ``all_keys()``).
REMOTE_SETTINGS = (
    "base_url",
    "dimensions",
    "timeout_s",
    "query_timeout_s",
    "max_attempts",
    "backoff_s",
    "query_prefix",
    "passage_prefix",
    "query_task",
    "passage_task",
)


def make_remote_embedder(config: EmbedConfig) -> RemoteEmbedder:
    import importlib

    try:
        module_name, class_name = REMOTE_PROVIDERS[config.provider]
    except KeyError:
        raise ConfigError(
            f"embed.provider={config.provider!r} is not a provider; use one of local, none, "
            f"{', '.join(REMOTE_PROVIDERS)}"
        ) from None
    cls: type[RemoteEmbedder] = getattr(importlib.import_module(module_name), class_name)
    settings = {name: getattr(config, name) for name in REMOTE_SETTINGS}
    return cls(config.model, api_keys=config.all_keys(), **settings)
