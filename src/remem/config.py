"""One typed configuration tree.

Layers, later wins: built-in defaults -> TOML file -> ``REMEM_*`` environment -> explicit
overrides (CLI flags, ``Memory(config=...)``). The loader remembers where every value came
from so ``remem config show`` can say it.

The TOML file is ``$REMEM_CONFIG`` if set, else ``<user config dir>/remem/config.toml`` when it
exists. Environment variables are ``REMEM_<SECTION>__<KEY>`` (for example
``REMEM_EMBED__PROVIDER=openai``), plus the shortcut ``REMEM_DB`` for ``store.path``.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic import ValidationError as PydanticValidationError

from remem.errors import ConfigError

APP_NAME = "remem"


# The embedding models that ship inside remem's dependencies (remem.embed.local loads them;
# a test keeps the two lists equal). Named here so validating a config loads no model code.
BUNDLED_MODELS: tuple[str, ...] = ("multilingual-e5-small", "use-multilingual-v3")


class _Section(BaseModel):
    # A typo in a config key must be an error, not a silently ignored setting.
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class StoreConfig(_Section):
    path: Path | None = Field(
        default=None,
        description="SQLite database file; default <user data dir>/remem/remem.db",
    )
    busy_timeout_ms: int = Field(default=10_000, ge=0, description="wait this long for a lock")

    def resolved_path(self) -> Path:
        if self.path is not None:
            return Path(self.path).expanduser()
        return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "remem.db"


class EmbedConfig(_Section):
    provider: Literal["local", "openai", "ollama", "gemini", "voyage", "jina", "none"] = Field(
        default="local",
        description="local = a bundled offline model; openai = any OpenAI-compatible "
        "/v1/embeddings endpoint; ollama = Ollama's /api/embed; gemini = Google's "
        "embedContent; voyage / jina = their embeddings APIs; none = lexical search only",
    )
    model: str = Field(
        default="multilingual-e5-small",
        description="local: multilingual-e5-small | use-multilingual-v3; others: the "
        "provider's model name",
    )
    base_url: str | None = Field(
        default=None,
        description="the API root (default: the provider's public one; ollama: "
        "http://127.0.0.1:11434), e.g. http://127.0.0.1:11434/v1 for openai",
    )
    api_key: str | None = Field(default=None, description="one key (or use api_keys)")
    api_keys: list[str] = Field(
        default_factory=list, description="keys rotated on HTTP 429 and 401/403"
    )
    dimensions: int | None = Field(default=None, gt=0, description="ask for this many dims")
    batch_size: int = Field(default=64, gt=0, le=4096)
    timeout_s: float = Field(
        default=120.0,
        gt=0,
        description="deadline for one embedding call, all attempts and waits included",
    )
    query_timeout_s: float = Field(
        default=5.0,
        gt=0,
        description="deadline for a search's query embedding; past it the search answers "
        "from the lexical index with a warning",
    )
    max_attempts: int = Field(default=5, ge=1, le=20, description="tries on 429 / 5xx")
    backoff_s: float = Field(default=0.5, ge=0, description="first retry delay, doubling")
    breaker_failures: int = Field(
        default=3,
        ge=0,
        description="remote providers: after this many failed calls in a row, calls fail "
        "at once (searches go lexical) for breaker_cooldown_s; 0 = no breaker",
    )
    breaker_cooldown_s: float = Field(
        default=30.0, gt=0, description="how long the breaker stays open before one trial"
    )
    chunk_chars: int | None = Field(
        default=None,
        ge=0,
        description="texts longer than this are split and their vectors averaged; "
        "None = the provider's default, 0 = never split (provider must handle length)",
    )
    chunk_overlap: int = Field(default=100, ge=0)
    threads: int = Field(default=2, gt=0, description="CPU threads for the local model")
    query_prefix: str = Field(default="", description="remote: prepended to queries")
    passage_prefix: str = Field(default="", description="remote: prepended to passages")
    query_task: str | None = Field(
        default=None,
        description="the provider's task for queries: openai/jina 'task', voyage "
        "'input_type', gemini 'taskType' (defaults: jina retrieval.query, voyage query, "
        'gemini RETRIEVAL_QUERY; "" sends none)',
    )
    passage_task: str | None = Field(
        default=None,
        description="the same for stored texts (jina retrieval.passage, voyage document, "
        "gemini RETRIEVAL_DOCUMENT)",
    )
    # Messages are embedded with their speaker label ("Alice: ..."), which measured better on
    # conversational data; memories are embedded as they are.
    with_speaker: bool = True

    @field_validator("model")
    @classmethod
    def _bundled_model(cls, value: str, info: ValidationInfo) -> str:
        # A local model that does not exist must stop the start, not degrade every search.
        if info.data.get("provider") == "local":
            if value not in BUNDLED_MODELS:
                raise ValueError(
                    f"not a bundled model; choose one of {', '.join(BUNDLED_MODELS)} (or set "
                    "embed.provider to a remote provider: openai, ollama, gemini, voyage, jina)"
                )
        elif info.data.get("provider") != "none" and not value.strip():
            raise ValueError("give the provider's embedding model name")
        return value

    def all_keys(self) -> list[str]:
        keys = list(self.api_keys)
        if self.api_key and self.api_key not in keys:
            keys.insert(0, self.api_key)
        return keys


class SearchConfig(_Section):
    fusion: Literal["rrf", "weighted"] = "weighted"
    rrf_k: int = Field(default=60, gt=0)
    rrf_vector_weight: float = Field(default=1.0, ge=0, description="vector channel in RRF")
    rrf_lexical_weight: float = Field(default=1.0, ge=0, description="lexical channel in RRF")
    vector_weight: float = Field(default=0.4, ge=0)
    lexical_weight: float = Field(default=0.6, ge=0)
    min_vector_span: float = Field(
        default=0.05,
        ge=0,
        le=2,
        description="weighted fusion: cosine gaps are scaled by at least this span",
    )
    candidate_pool: int = Field(default=50, gt=0, description="floor of each channel's top-N")
    candidate_factor: int = Field(default=4, gt=0, description="each channel fetches k x this")
    max_k: int = Field(default=1000, gt=0, description="largest k a caller may ask for")
    max_query_chars: int = Field(
        default=10_000, gt=0, description="longer queries are refused (the chat path trims)"
    )
    role_filter_factor: int = Field(
        default=8, gt=0, description="k x this per channel when a role filter will drop hits"
    )
    context_weight: float = Field(
        default=0.2, ge=0, description="BM25 weight of the context column (0 = own text only)"
    )
    lexical_max_df: float = Field(
        default=0.05,
        gt=0,
        le=1,
        description="in big stores, skip query words found in more than this share of records",
    )
    lexical_prune_min_docs: int = Field(
        default=20_000, ge=0, description="...only once the store holds this many records"
    )
    min_semantic: float = Field(
        default=0.0, ge=0, le=1, description="drop vector hits whose cosine is below (0 = off)"
    )
    min_score: float = Field(
        default=0.0, ge=0, description="drop hits whose final score is below (0 = off)"
    )


class IndexingConfig(_Section):
    mode: Literal["async", "sync"] = Field(
        default="async",
        description="async: ingest returns after the commit and a background queue embeds; "
        "sync: ingest also waits for the embedding",
    )
    concurrency: int = Field(default=10, description="queue workers (0 or less = unlimited)")
    max_queue: int = Field(
        default=500, description="pending items before the oldest is dropped (0 or less = no limit)"
    )
    batch_size: int = Field(default=32, gt=0, description="records per embedding batch")
    drain_timeout_s: float = Field(
        default=30.0, ge=0, description="on close, wait this long for queued embeddings"
    )


class ConversationConfig(_Section):
    cross_session: Literal["isolated", "user", "platform", "all"] = Field(
        default="isolated",
        description="whose past a turn may recall: this session only, every session (with "
        "the same-user boost), the same platform, or everything",
    )
    modes: dict[str, str] = Field(
        default_factory=dict,
        description='per-layer cross-session modes, e.g. {"group:123" = "isolated", '
        '"platform:qq" = "platform"}; narrowest layer wins, a broken value means isolated',
    )
    recall_roles: Literal["all", "others-only"] = Field(
        default="all", description="others-only: the bot's own replies are never hits"
    )
    recall_k: int = Field(default=5, gt=0, le=100, description="hits per turn")
    max_query_chars: int = Field(default=4000, gt=0, description="longer: earliest inputs go")
    window: int = Field(default=2, ge=0, le=50, description="messages each side of a hit")
    expand_other_sessions: bool = Field(
        default=True,
        description="hits from other sessions bring their windows too (off: only hits from "
        "the current session do; the others show alone)",
    )
    language: Literal["en", "zh"] = Field(default="en", description="rendering language")
    max_chars_per_item: int = Field(default=0, ge=0, description="0 = no limit")


class RerankConfig(_Section):
    provider: Literal["none", "jina", "cohere", "siliconflow", "voyage", "local"] = Field(
        default="none", description="a cross-encoder reranker; none by default"
    )
    base_url: str | None = Field(default=None, description="the rerank API root")
    model: str | None = None
    api_key: str | None = None
    local_path: Path | None = Field(
        default=None, description="local: a cross-encoder directory (ONNX or sentence-transformers)"
    )
    local_backend: Literal["auto", "onnx", "sentence-transformers"] = Field(
        default="auto", description="local: onnx when model.onnx + tokenizer.json exist"
    )
    max_length: int = Field(default=512, gt=0, description="local: tokens per (query, text) pair")
    threads: int = Field(default=1, gt=0, description="local onnx: intra-op threads")
    timeout_s: float = Field(default=5.0, gt=0)
    weight: float = Field(default=0.6, ge=0, le=1, description="final = w x rerank + (1-w) x fused")
    top_n: int = Field(default=30, gt=0, description="rerank this many of the best candidates")


class ScoringConfig(_Section):
    recency_weight: float = Field(default=0.0, ge=0, description="additive boost for new records")
    recency_half_life_days: float = Field(default=14.0, gt=0)
    importance: bool = Field(default=True, description="x (0.7 + 0.3 x importance)")
    length_anchor: int = Field(
        default=500, ge=0, description="texts longer than this are damped (0 = off)"
    )
    decay: bool = Field(default=False, description="x (0.5 + 0.5 x exp(-age / half-life))")
    decay_half_life_days: float = Field(default=60.0, gt=0)
    reinforcement_factor: float = Field(
        default=0.5, ge=0, description="each explicit recall stretches the half-life by this"
    )
    reinforcement_cap: float = Field(default=3.0, ge=1, description="at most this x half-life")
    access_debounce_s: float = Field(
        default=30.0, ge=0, description="explicit recalls are written at most this often"
    )
    time_weight: float = Field(
        default=0.0, ge=0, le=1, description="(1-w) x score + w x exp(-0.1 x days); 0 = off"
    )
    same_user_boost: float = Field(
        default=2.0, ge=1, description="x when the asking user wrote or is mentioned in it"
    )
    session_lift: float = Field(
        default=0.0, ge=0, le=1, description="share of a session's best score lent to its turns"
    )
    neighbour_lift: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="share of a hit's score given to the turns next to it in its session",
    )
    neighbour_window: int = Field(default=2, ge=0, le=5, description="turns each side")
    neighbour_top: int = Field(default=10, ge=0, description="lift the neighbours of this many")
    neighbour_cap: bool = Field(
        default=False,
        description="a lifted turn never scores above the hit that lifted it, unless it is "
        "another speaker's reply to it",
    )


class TimeIntentConfig(_Section):
    enabled: bool = True
    mode: Literal["boost", "filter"] = "boost"
    boost: float = Field(default=0.5, ge=0, description="added to hits inside the window")


class DiversityConfig(_Section):
    mode: Literal["off", "demote", "mmr"] = "demote"
    threshold: float = Field(default=0.95, gt=0, le=1, description="demote: cosine to a better hit")
    mmr_lambda: float = Field(default=0.7, ge=0, le=1, description="mmr: relevance vs novelty")
    session_coverage: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="a session missing from the top k gets a place for its best hit if it "
        "scores at least this share of the top score (0 = off)",
    )
    max_per_session: int = Field(
        default=0, ge=0, description="hits of one session beyond this move down (0 = off)"
    )
    aggregate_max_per_session: int = Field(
        default=2,
        ge=0,
        description="for questions that count, sum, compare or order things across occasions "
        "('how many', 'in total', 'which first', '一共', '几次'): hits of one session beyond "
        "this move down (0 = off)",
    )


class NoiseConfig(_Section):
    enabled: bool = Field(
        default=True, description="drop greetings, refusals, heartbeats and memory meta-talk"
    )


class TextConfig(_Section):
    cjk_mode: Literal["bigram", "words", "both"] = Field(
        default="bigram", description="how runs of Chinese characters become lexical tokens"
    )
    context_turns: int = Field(
        default=1,
        ge=0,
        le=5,
        description="index each message with the tokens of this many turns before it",
    )
    stem_english: bool = True
    drop_stopwords: bool = True
    traditional_to_simplified: bool = True


class ScopesConfig(_Section):
    agent: str | None = Field(
        default=None,
        description="this process's agent identity (the MCP server, `remem memory ...`); no "
        "default: without one, memory tools refuse",
    )
    mode: Literal["global", "session", "session+global"] = Field(
        default="global",
        description="global: an agent reads its access list; session: only the current "
        "session's memories; session+global: both",
    )
    agents: dict[str, list[str]] = Field(
        default_factory=dict,
        description='per-agent access lists, e.g. {bot = ["global", "agent:bot", "user:{user}"]}; '
        "{user} and {session} are filled in per call; agents not listed get "
        '["global", "agent:<id>"]',
    )
    allow_unknown_agents: bool = Field(
        default=True, description="an agent not listed gets the default list (else: refused)"
    )
    read_only: list[str] = Field(
        default_factory=list,
        description="scopes agents may read but never write (e.g. a global list the operator "
        "curates); the local operator is not limited",
    )

    @field_validator("agents")
    @classmethod
    def _lists(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        from remem.schemas import SCOPE_RE

        for agent, scopes in value.items():
            if not agent.strip():
                raise ValueError("an agent id must not be empty")
            for scope in scopes:
                probe = scope.replace("{user}", "u").replace("{session}", "s")
                if not SCOPE_RE.match(probe):
                    raise ValueError(
                        f"scopes.agents.{agent}: {scope!r} is not a scope (global, agent:<id>, "
                        "user:<id>, project:<id>, session:<id>, custom:<name>; {user} and "
                        "{session} may stand for the current ones)"
                    )
        return value


class CaptureConfig(_Section):
    enabled: bool = Field(default=True, description="capture memories after each LLM response")
    include_assistant: bool = Field(
        default=False, description="also consider the assistant's messages (stored as its own)"
    )
    max_per_turn: int = Field(default=3, ge=0, description="at most this many new memories a turn")
    dedup_similarity: float = Field(
        default=0.92, gt=0, le=1, description="cosine at or above which a memory is a duplicate"
    )
    scope: str = Field(
        default="agent:{agent}",
        description="where captured memories go in global mode ({agent}, {user}, {session}); "
        "session modes use session:<id>",
    )
    min_chars: int = Field(default=6, ge=1, description="shorter candidates are ignored")
    max_chars: int = Field(default=500, ge=20, description="longer sentences are not memories")
    supersede: bool = Field(
        default=True, description="a memory on the same subject closes the older one (valid_to)"
    )
    llm: bool = Field(
        default=False, description="extract with the configured chat endpoint (llm.*) instead"
    )
    session_summary: bool = Field(
        default=False, description="on a session reset, store one summary of its last messages"
    )
    summary_messages: int = Field(default=15, ge=1, description="messages a summary covers")


class AutoRecallConfig(_Section):
    enabled: bool = Field(default=True, description="inject relevant memories before each call")
    max_items: int = Field(default=3, ge=1, le=20, description="memories injected at most")
    min_chars_cjk: int = Field(default=6, ge=0, description="shorter CJK queries skip recall")
    min_chars: int = Field(default=15, ge=0, description="shorter other queries skip recall")
    min_margin: float = Field(
        default=0.02,
        ge=-1,
        le=1,
        description="a memory without a keyword match needs a cosine to the query at least "
        "this far above the query's cosine to neutral text",
    )
    keyword_match: bool = Field(
        default=True, description="a memory sharing a keyword with the message qualifies too"
    )
    dedup_turns: int = Field(
        default=0, ge=0, description="do not inject a memory again within N turns (0 = off)"
    )
    dedup_seconds: float = Field(
        default=0.0, ge=0, description="... or within this many seconds (0 = off)"
    )
    language: Literal["en", "zh"] = "en"


class LLMConfig(_Section):
    base_url: str | None = Field(
        default=None,
        description="an OpenAI-compatible chat API root, e.g. http://127.0.0.1:11434/v1",
    )
    model: str | None = None
    api_key: str | None = None
    timeout_s: float = Field(default=30.0, gt=0)


class ServerConfig(_Section):
    host: str = Field(default="127.0.0.1", description="where `remem serve` / `remem proxy` listen")
    port: int = Field(default=8765, ge=0, le=65535)
    tokens: dict[str, str] = Field(
        default_factory=dict,
        description="bearer token -> agent id; with none configured the servers only listen "
        "on loopback and act as scopes.agent",
    )
    max_body_bytes: int = Field(default=2_000_000, gt=0, description="larger requests get 413")
    max_k: int = Field(default=100, gt=0, description="largest k a request may ask for")
    upstream: str | None = Field(
        default=None, description="proxy: the OpenAI-compatible API to forward to"
    )
    upstream_api_key: str | None = Field(
        default=None,
        description="proxy: key for the upstream (default: the client's own Authorization "
        "header when no remem tokens are configured)",
    )
    upstream_timeout_s: float = Field(default=300.0, gt=0)

    @field_validator("tokens")
    @classmethod
    def _tokens(cls, value: dict[str, str]) -> dict[str, str]:
        for token, agent in value.items():
            if len(token) < 16:
                raise ValueError("server.tokens: every token needs at least 16 characters")
            if not agent or not agent.strip():
                raise ValueError("server.tokens: every token maps to a non-empty agent id")
        return value


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
    diversity: DiversityConfig = Field(default_factory=DiversityConfig)
    noise: NoiseConfig = Field(default_factory=NoiseConfig)
    scopes: ScopesConfig = Field(default_factory=ScopesConfig)
    capture: CaptureConfig = Field(default_factory=CaptureConfig)
    autorecall: AutoRecallConfig = Field(default_factory=AutoRecallConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)

    # Where each dotted key's value came from: "default", a file path, "env:NAME", "override".
    # Kept outside the model fields so it never appears in dumps.
    _sources: dict[str, str] = {}

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
        "diversity",
        "noise",
        mode="before",
    )
    @classmethod
    def _none_is_default(cls, value: Any) -> Any:
        return {} if value is None else value

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
                    value = [f"*** -> {agent}" for agent in value.values()]
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
        out.append(("store", "path", env["REMEM_DB"], "REMEM_DB"))
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
