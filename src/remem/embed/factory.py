"""Build the configured embedder."""

from __future__ import annotations

from remem.config import EmbedConfig
from remem.embed.base import Embedder
from remem.errors import ConfigError


def make_embedder(config: EmbedConfig) -> Embedder | None:
    """The embedder for this config, or None for ``provider = "none"`` (lexical only)."""
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
            f"{', '.join(LOCAL_MODELS)}, or set embed.provider=openai for a remote model"
        )
    if config.provider == "openai":
        from remem.embed.openai_http import OpenAIEmbedder

        return OpenAIEmbedder(
            config.model,
            base_url=config.base_url,
            api_keys=config.all_keys(),
            dimensions=config.dimensions,
            timeout_s=config.timeout_s,
            max_attempts=config.max_attempts,
            backoff_s=config.backoff_s,
            query_prefix=config.query_prefix,
            passage_prefix=config.passage_prefix,
            query_task=config.query_task,
            passage_task=config.passage_task,
        )
    raise ConfigError(f"embed.provider={config.provider!r}: use local, openai or none")
