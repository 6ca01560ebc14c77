"""One typed configuration tree.

Layers, later wins: built-in defaults -> TOML file -> ``REMEM_*`` environment -> explicit
overrides (CLI flags, ``Memory(config=...)``). The loader remembers where every value came
from so ``remem config show`` can say it.

The TOML file is ``$REMEM_CONFIG`` if set, else ``<user config dir>/remem/config.toml`` when it
exists. Environment variables are ``REMEM_<SECTION>__<KEY>`` (for example
``REMEM_EMBED__PROVIDER=openai``), plus the shortcut ``REMEM_DB`` for ``store.path`` (or ``store.url``, for a PostgreSQL URL).
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

import platformdirs
from pydantic import Field, PrivateAttr, field_validator, model_validator
from pydantic import ValidationError as PydanticValidationError

from remem.config.agents import (
    AutoRecallConfig,
    CaptureConfig,
    FactsConfig,
    LLMConfig,
    ScopesConfig,
    ServerConfig,
    TokenGrant,
)
from remem.config.search import SearchConfig
from remem.config.sections import (
    APP_NAME,
    BUNDLED_MODELS,
    ConversationConfig,
    EmbedConfig,
    IndexingConfig,
    RerankConfig,
    StoreConfig,
    TextConfig,
    _Section,
    is_postgres_url,
)
from remem.config.stages import (
    CalendarConfig,
    DiversityConfig,
    NamesConfig,
    NoiseConfig,
    RecallConfig,
    ScoringConfig,
    TimeIntentConfig,
    TranslateConfig,
)
from remem.errors import ConfigError

__all__ = [
    "APP_NAME",
    "BUNDLED_MODELS",
    "AutoRecallConfig",
    "CalendarConfig",
    "CaptureConfig",
    "Config",
    "ConversationConfig",
    "DiversityConfig",
    "EmbedConfig",
    "FactsConfig",
    "IndexingConfig",
    "LLMConfig",
    "NamesConfig",
    "NoiseConfig",
    "RecallConfig",
    "RerankConfig",
    "ScopesConfig",
    "ScoringConfig",
    "SearchConfig",
    "ServerConfig",
    "StoreConfig",
    "TextConfig",
    "TimeIntentConfig",
    "TokenGrant",
    "TranslateConfig",
    "is_postgres_url",
]


class Config(_Section):
    store: StoreConfig = Field(default_factory=StoreConfig)
    embed: EmbedConfig = Field(default_factory=EmbedConfig)
    search: SearchConfig = Field(default_factory=SearchConfig)
    text: TextConfig = Field(default_factory=TextConfig)
    indexing: IndexingConfig = Field(default_factory=IndexingConfig)
    conversation: ConversationConfig = Field(default_factory=ConversationConfig)
    rerank: RerankConfig = Field(default_factory=RerankConfig)
    scoring: ScoringConfig = Field(default_factory=ScoringConfig)
    time_intent: TimeIntentConfig = Field(default_factory=TimeIntentConfig)
    recall: RecallConfig = Field(default_factory=RecallConfig)
    calendar: CalendarConfig = Field(default_factory=CalendarConfig)
    names: NamesConfig = Field(default_factory=NamesConfig)
    translate: TranslateConfig = Field(default_factory=TranslateConfig)
    diversity: DiversityConfig = Field(default_factory=DiversityConfig)
    noise: NoiseConfig = Field(default_factory=NoiseConfig)
    scopes: ScopesConfig = Field(default_factory=ScopesConfig)
    capture: CaptureConfig = Field(default_factory=CaptureConfig)
    facts: FactsConfig = Field(default_factory=FactsConfig)
    autorecall: AutoRecallConfig = Field(default_factory=AutoRecallConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)

    # Where each dotted key's value came from: "default", a file path, "env:NAME", "override".
    # Kept outside the model fields so it never appears in dumps.
    _sources: dict[str, str] = PrivateAttr(default_factory=dict)

    @field_validator(
        "store",
        "embed",
        "search",
        "text",
        "indexing",
        "conversation",
        "rerank",
        "scoring",
        "time_intent",
        "recall",
        "names",
        "translate",
        "diversity",
        "noise",
        mode="before",
    )
    @classmethod
    def _none_is_default(cls, value: Any) -> Any:
        return {} if value is None else value

    @model_validator(mode="after")
    def _facts_llm_has_an_endpoint(self) -> Config:
        if self.facts.llm and not (self.llm.base_url and self.llm.model):
            raise ValueError(
                "facts.llm is on but llm.base_url and llm.model are not both set: set them to an "
                "OpenAI-compatible chat endpoint, or turn facts.llm off"
            )
        return self

    @classmethod
    def load(
        cls,
        file: str | Path | None = None,
        *,
        env: dict[str, str] | None = None,
        overrides: dict[str, Any] | None = None,
    ) -> Config:
        """Build the effective config from all layers. Raises ConfigError with one clear line."""
        env = dict(os.environ) if env is None else env
        data: dict[str, dict[str, Any]] = {}
        sources: dict[str, str] = {}

        path = _config_file(file, env)
        if path is not None:
            for section, key, value in _flatten(_read_toml(path)):
                data.setdefault(section, {})[key] = value
                sources[f"{section}.{key}"] = str(path)

        for section, key, value, name in _env_values(env):
            data.setdefault(section, {})[key] = value
            sources[f"{section}.{key}"] = f"env:{name}"

        for dotted, value in (overrides or {}).items():
            if value is None:
                continue
            section, _, key = dotted.partition(".")
            if not key:
                raise ConfigError(f"override {dotted!r} must be written as section.key")
            data.setdefault(section, {})[key] = value
            sources[dotted] = "override"

        try:
            config = cls.model_validate(data)
        except PydanticValidationError as exc:
            raise ConfigError(_explain(exc, sources)) from None
        config._sources = sources
        return config

    def source_of(self, dotted: str) -> str:
        return self._sources.get(dotted, "default")

    def effective(self) -> list[tuple[str, Any, str]]:
        """(dotted key, value, source) for every setting; secrets masked."""
        rows = []
        for section_name in type(self).model_fields:
            section = getattr(self, section_name)
            for key in type(section).model_fields:
                dotted = f"{section_name}.{key}"
                value = getattr(section, key)
                if key in ("api_key", "api_keys", "upstream_api_key") and value:  # masked
                    value = "***" if isinstance(value, str) else ["***"] * len(value)
                if key == "tokens" and value:  # the tokens are secrets, the agents are not
                    value = [
                        f"*** -> {grant.agent}"
                        + (f" for {', '.join(grant.users)}" if grant.users else "")
                        for grant in value.values()
                    ]
                rows.append((dotted, value, self.source_of(dotted)))
        return rows


def _config_file(file: str | Path | None, env: dict[str, str]) -> Path | None:
    if file is not None:
        path = Path(file).expanduser()
        if not path.is_file():
            raise ConfigError(f"config file {str(path)!r} does not exist; check the path")
        return path
    if env.get("REMEM_CONFIG"):
        path = Path(env["REMEM_CONFIG"]).expanduser()
        if not path.is_file():
            raise ConfigError(
                f"REMEM_CONFIG points to {str(path)!r}, which does not exist; "
                "fix the path or unset REMEM_CONFIG"
            )
        return path
    default = Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / "config.toml"
    return default if default.is_file() else None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {str(path)!r} is not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {str(path)!r}: {exc.strerror}") from None


def _flatten(doc: dict[str, Any]) -> list[tuple[str, str, Any]]:
    out = []
    for section, table in doc.items():
        if not isinstance(table, dict):
            raise ConfigError(
                f"config key {section!r} must be a [section] table "
                f"(sections: {', '.join(Config.model_fields)})"
            )
        for key, value in table.items():
            out.append((section, key, value))
    return out


def _env_values(env: dict[str, str]) -> list[tuple[str, str, Any, str]]:
    out: list[tuple[str, str, Any, str]] = []
    if env.get("REMEM_DB"):
        # a file path, or a PostgreSQL URL (the store is chosen by what it names)
        key = "url" if is_postgres_url(env["REMEM_DB"]) else "path"
        out.append(("store", key, env["REMEM_DB"], "REMEM_DB"))
    for name, raw in env.items():
        if not name.startswith("REMEM_") or "__" not in name:
            continue
        section, _, key = name[len("REMEM_") :].lower().partition("__")
        out.append((section, key, _parse_env(raw), name))
    return out


def _parse_env(raw: str) -> Any:
    # Lists (api_keys) may be given as JSON or comma separated; scalars are left as strings
    # for pydantic to coerce, so "0.5" and "true" work.
    text = raw.strip()
    if text.startswith("["):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    return raw


def _explain(exc: PydanticValidationError, sources: dict[str, str]) -> str:
    parts = []
    for err in exc.errors():
        dotted = ".".join(str(p) for p in err["loc"])
        where = sources.get(dotted)
        value = err.get("input")
        origin = f" (from {where})" if where else ""
        if err["type"] == "extra_forbidden":
            section = str(err["loc"][0])
            known = (
                ", ".join(type(getattr(Config(), section)).model_fields)
                if section in Config.model_fields
                else ", ".join(Config.model_fields)
            )
            parts.append(f"unknown setting {dotted!r}{origin}; known keys: {known}")
        else:
            parts.append(f"setting {dotted}={value!r}{origin}: {err['msg']}")
    return "; ".join(parts)
