"""The settings of the store, embedding, indexing and the chat path: one pydantic model per
section of the configuration tree (the search section in ``search.py``, the read pipeline's
stages in ``stages.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from remem.config.fields import (
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    Share,
    setting,
)

APP_NAME = "remem"


# The embedding models that ship inside remem's dependencies (remem.embed.local loads them;
# a test keeps the two lists equal). Named here so validating a config loads no model code.
BUNDLED_MODELS: tuple[str, ...] = ("multilingual-e5-small", "use-multilingual-v3")


POSTGRES_URL_PREFIXES = ("postgresql://", "postgres://")


def is_postgres_url(target: object) -> bool:
    """A PostgreSQL URL (the store it names is a server, not a SQLite file)."""
    return isinstance(target, str) and target.startswith(POSTGRES_URL_PREFIXES)


class _Section(BaseModel):
    # A typo in a config key must be an error, not a silently ignored setting.
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class StoreConfig(_Section):
    path: Path | None = setting(
        None, "SQLite database file; default <user data dir>/remem/remem.db"
    )
    busy_timeout_ms: NonNegativeInt = setting(10_000, "wait this long for a lock")
    group_commit: bool = setting(
        True,
        "writes that land together share a commit; each is still acknowledged only once "
        "it is durable. SQLite: they share one fsync (threads and processes alike); false: "
        "every commit fsyncs on its own (synchronous=FULL), and Windows keeps FULL. "
        "PostgreSQL: one process's messages written while store.pg_writes_in_flight others "
        "run go out together as one statement; false: each is a transaction of its own",
    )
    group_commit_window_ms: float = Field(
        default=0.0,
        ge=0,
        le=100,
        description="SQLite group commit: how long the writer about to fsync waits for more "
        "commits to share it, in ms (0: share only what landed meanwhile). Adds up to this "
        "much to each write's acknowledgement",
    )
    cache_mb: int = Field(
        default=64,
        ge=1,
        le=65_536,
        description="the SQLite file's page cache, in MB (SQLite's own default is 2 MB, which "
        "a big store's keyword search overflows on every query); memory is taken only as "
        "pages are read",
    )
    url: str | None = setting(
        None,
        "a PostgreSQL store instead of the SQLite file: postgresql://user:pass@host"
        "/db (needs `pip install 'remem[postgres]'`); wins over path",
    )
    pg_schema: str = Field(
        default="remem",
        pattern=r"^[a-z_][a-z0-9_]{0,62}$",
        description="the PostgreSQL schema holding the store's tables (one store per schema)",
    )
    pool_size: int = Field(
        default=4, ge=1, le=100, description="PostgreSQL connections per process"
    )
    pg_writes_in_flight: int = Field(
        default=2,
        ge=1,
        le=100,
        description="PostgreSQL group commit: how many of one process's message writes run "
        "at once; the writes that arrive meanwhile wait and share the next transaction "
        "(one statement and one commit for all of them)",
    )

    @field_validator("url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        if value is not None and not is_postgres_url(value):
            raise ValueError(
                f"store.url {value!r} is not a PostgreSQL URL; write postgresql://user:password"
                "@host:port/database (or use store.path for a SQLite file)"
            )
        return value or None

    def resolved_path(self) -> Path:
        if self.path is not None:
            return Path(self.path).expanduser()
        return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "remem.db"


class EmbedConfig(_Section):
    provider: Literal["local", "openai", "ollama", "gemini", "voyage", "jina", "none"] = setting(
        "local",
        "local = a bundled offline model; openai = any OpenAI-compatible "
        "/v1/embeddings endpoint; ollama = Ollama's /api/embed; gemini = Google's "
        "embedContent; voyage / jina = their embeddings APIs; none = lexical search only",
    )
    model: str = setting(
        "multilingual-e5-small",
        "local: multilingual-e5-small | use-multilingual-v3; others: the provider's model name",
    )
    base_url: str | None = setting(
        None,
        "the API root (default: the provider's public one; ollama: "
        "http://127.0.0.1:11434), e.g. http://127.0.0.1:11434/v1 for openai",
    )
    api_key: str | None = setting(None, "one key (or use api_keys)")
    api_keys: list[str] = Field(
        default_factory=list, description="keys rotated on HTTP 429 and 401/403"
    )
    dimensions: int | None = Field(default=None, gt=0, description="ask for this many dims")
    batch_size: int = Field(default=64, gt=0, le=4096, description="texts per embedding call")
    timeout_s: PositiveFloat = setting(
        120.0, "deadline for one embedding call, all attempts and waits included"
    )
    query_timeout_s: PositiveFloat = setting(
        5.0,
        "deadline for a search's query embedding; past it the search answers "
        "from the lexical index with a warning",
    )
    max_attempts: int = Field(default=5, ge=1, le=20, description="tries on 429 / 5xx")
    backoff_s: NonNegativeFloat = setting(0.5, "first retry delay, doubling")
    breaker_failures: NonNegativeInt = setting(
        3,
        "remote providers: after this many failed calls in a row, calls fail "
        "at once (searches go lexical) for breaker_cooldown_s; 0 = no breaker",
    )
    breaker_cooldown_s: PositiveFloat = setting(
        30.0, "how long the breaker stays open before one trial"
    )
    chunk_chars: int | None = Field(
        default=None,
        ge=0,
        description="texts longer than this are split and their vectors averaged; "
        "None = the provider's default, 0 = never split (provider must handle length)",
    )
    chunk_overlap: NonNegativeInt = setting(
        100, "characters shared by neighbouring chunks of a long text"
    )
    threads: PositiveInt = setting(2, "CPU threads for the local model")
    query_prefix: str = setting("", "remote: prepended to queries")
    passage_prefix: str = setting("", "remote: prepended to passages")
    query_task: str | None = setting(
        None,
        "the provider's task for queries: openai/jina 'task', voyage "
        "'input_type', gemini 'taskType' (defaults: jina retrieval.query, voyage query, "
        'gemini RETRIEVAL_QUERY; "" sends none)',
    )
    passage_task: str | None = setting(
        None,
        "the same for stored texts (jina retrieval.passage, voyage document, "
        "gemini RETRIEVAL_DOCUMENT)",
    )
    # Messages are embedded with their speaker label ("Alice: ..."), which measured better on
    # conversational data; memories are embedded as they are.
    with_speaker: bool = setting(True, "embed messages as `Speaker: text`")

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


class IndexingConfig(_Section):
    mode: Literal["async", "sync"] = setting(
        "async",
        "async: ingest returns after the commit and a background queue embeds; "
        "sync: ingest also waits for the embedding",
    )
    concurrency: int = setting(10, "queue workers (0 or less = unlimited)")
    max_queue: int = setting(
        500, "queued items before the oldest is left to the backfill (0 or less = no limit)"
    )
    backfill: bool = setting(
        True,
        "async mode: a background loop embeds records left pending (queue full, "
        "crash, provider down) as the queue has room, backing off while the provider fails",
    )
    backfill_max_backoff_s: PositiveFloat = setting(
        300.0, "longest wait between retries while embedding fails"
    )
    backfill_check_s: NonNegativeFloat = setting(
        300.0,
        "while idle, look this often whether the store has records left pending "
        "that no event announced (another process killed mid-ingest): a count comparison, and a "
        "scan only when it changed (0 = only on events)",
    )
    batch_size: PositiveInt = setting(32, "records per embedding batch")
    background_nice: int = Field(
        default=10,
        ge=0,
        le=19,
        description="Linux: the threads that run the bundled models' background slices (the "
        "queue's, the fast lane's, the latent fill's, a backfill's) run this much lower in "
        "priority (nice), so a chat's search and recall get the CPU first while a burst is "
        "indexed; once lowered, a model's background thread stays lowered (0 = the chat's priority)",
    )
    fast_lane: bool = setting(
        True,
        "async mode, SQLite, bundled e5: records that wait for e5 (a burst, a "
        "backlog) get a vector of the bundled USE model at once (~10x faster) and are searched "
        "by meaning with it until their e5 vector is written",
    )
    drain_timeout_s: NonNegativeFloat = setting(
        30.0, "on close, wait this long for queued embeddings"
    )
    # A claim outlives a crashed worker by this long; a live worker finishes a batch well
    # inside it (one batch of the bundled model takes well under a second), so the floor of
    # 1 s only keeps a typo from making every claim expire before its batch is written.
    claim_lease_s: float = Field(
        default=300.0,
        ge=1,
        le=86_400,
        description="PostgreSQL store: how long a backfill (`remem embed`) holds the records "
        "it claimed before another process may take them over (a killed run's wait this long)",
    )


class ConversationConfig(_Section):
    cross_session: Literal["isolated", "user", "platform", "all"] = setting(
        "isolated",
        "whose past a turn may recall: this session only, every session (with "
        "the same-user boost), the same platform, or everything",
    )
    modes: dict[str, str] = Field(
        default_factory=dict,
        description='per-layer cross-session modes, e.g. {"group:123" = "isolated", '
        '"platform:qq" = "platform"}; narrowest layer wins, a broken value means isolated',
    )
    recall_roles: Literal["all", "others-only"] = setting(
        "all", "others-only: the bot's own replies are never hits"
    )
    recall_k: int = Field(default=5, gt=0, le=100, description="hits per turn")
    max_query_chars: PositiveInt = setting(4000, "longer: earliest inputs go")
    window: int = Field(default=2, ge=0, le=50, description="messages each side of a hit")
    expand_other_sessions: bool = setting(
        True,
        "hits from other sessions bring their windows too (off: only hits from "
        "the current session do; the others show alone)",
    )
    language: Literal["en", "zh"] = setting("en", "rendering language")
    max_chars_per_item: NonNegativeInt = setting(0, "0 = no limit")


class RerankConfig(_Section):
    provider: Literal["none", "jina", "cohere", "siliconflow", "voyage", "local"] = setting(
        "none", "a cross-encoder reranker; none by default"
    )
    base_url: str | None = setting(None, "the rerank API root")
    model: str | None = setting(None, "HTTP providers: the rerank model name")
    api_key: str | None = setting(None, "HTTP providers: the API key")
    local_path: Path | None = setting(
        None, "local: a cross-encoder directory (ONNX or sentence-transformers)"
    )
    local_backend: Literal["auto", "onnx", "sentence-transformers"] = setting(
        "auto", "local: onnx when model.onnx + tokenizer.json exist"
    )
    max_length: PositiveInt = setting(512, "local: tokens per (query, text) pair")
    threads: PositiveInt = setting(1, "local onnx: intra-op threads")
    timeout_s: PositiveFloat = setting(
        5.0,
        "deadline for one rerank call; past it the search falls back to the "
        "cosine order and says so",
    )
    weight: Share = setting(0.6, "final = w x rerank + (1-w) x fused")
    top_n: PositiveInt = setting(30, "rerank this many of the best candidates")


class TextConfig(_Section):
    cjk_mode: Literal["bigram", "words", "both"] = setting(
        "bigram", "how runs of Chinese characters become lexical tokens"
    )
    context_turns: int = Field(
        default=1,
        ge=0,
        le=5,
        description="index each message with the tokens of this many turns before it",
    )
    stem_english: bool = setting(True, "index and search English words by their stems (Snowball)")
    drop_stopwords: bool = setting(
        True,
        "leave stop words, a question's question words (when, where, 什么时候, 哪里, "
        "いつ, 언제 ...) and Chinese particles standing alone out of its keyword query",
    )
    traditional_to_simplified: bool = setting(
        True, "index and search Traditional Chinese as Simplified, so the two meet"
    )
    # LoCoMo +0.004 recall@10 and MRR, LongMemEval +0.001 / +0.003, zh_groupchat -0.003 / -0.001
    # (one cross-lingual question; remem-bench's word-forms.json)
    word_forms: bool = setting(
        True,
        "a question's keywords also ask for the irregular forms of its English "
        "words (buy: bought, went: go; text/word_forms.py), and a line holding one holds the word",
    )
