"""The settings of curated memories and their surfaces: scopes, capture, auto-recall, the LLM
used for extraction, and the servers."""

from __future__ import annotations

import ipaddress
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from remem.config.fields import (
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    setting,
)
from remem.config.sections import _Section


class ScopesConfig(_Section):
    agent: str | None = setting(
        None,
        "this process's agent identity (the MCP server, `remem memory ...`); no "
        "default: without one, memory tools refuse",
    )
    mode: Literal["global", "session", "session+global"] = setting(
        "global",
        "global: an agent reads its access list; session: only the current "
        "session's memories; session+global: both",
    )
    agents: dict[str, list[str]] = Field(
        default_factory=dict,
        description='per-agent access lists, e.g. {bot = ["global", "agent:bot", "user:{user}"]}; '
        "{user} and {session} are filled in per call; agents not listed get "
        '["global", "agent:<id>"]',
    )
    allow_unknown_agents: bool = setting(
        True, "an agent not listed gets the default list (else: refused)"
    )
    read_only: list[str] = Field(
        default_factory=list,
        description="scopes agents may read but never write (e.g. a global list the operator "
        "curates); the local operator is not limited",
    )

    definitions: dict[str, str] = Field(
        default_factory=dict,
        description='declared scopes and what they hold, e.g. {"project:apollo" = "the Apollo '
        'launch team"}; shown by `remem stats` and memory_stats',
    )
    management_tools: bool = setting(
        True,
        "offer agents memory_forget, memory_list and memory_stats (false: only "
        "recall, store and update; calling a hidden tool is an error)",
    )

    @field_validator("definitions")
    @classmethod
    def _definitions(cls, value: dict[str, str]) -> dict[str, str]:
        from remem.schemas import SCOPE_RE

        for scope, text in value.items():
            if not SCOPE_RE.match(scope):
                raise ValueError(
                    f"scopes.definitions: {scope!r} is not a scope (global, agent:<id>, "
                    "user:<id>, project:<id>, session:<id>, custom:<name>)"
                )
            if not text.strip():
                raise ValueError(f"scopes.definitions.{scope}: give a short description")
        return value

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
    enabled: bool = setting(True, "capture memories after each LLM response")
    include_assistant: bool = setting(
        False, "also consider the assistant's messages (stored as its own)"
    )
    max_per_turn: NonNegativeInt = setting(3, "at most this many new memories a turn")
    dedup_similarity: float = Field(
        default=0.92, gt=0, le=1, description="cosine at or above which a memory is a duplicate"
    )
    scope: str = setting(
        "agent:{agent}",
        "where captured memories go in global mode ({agent}, {user}, {session}); "
        "session modes use session:<id>",
    )
    min_chars: int = Field(default=6, ge=1, description="shorter candidates are ignored")
    max_chars: int = Field(default=500, ge=20, description="longer sentences are not memories")
    supersede: bool = setting(True, "a memory on the same subject closes the older one (valid_to)")
    llm: bool = setting(False, "extract with the configured chat endpoint (llm.*) instead")
    session_summary: bool = setting(
        False, "on a session reset, store one summary of its last messages"
    )
    summary_messages: int = Field(default=15, ge=1, description="messages a summary covers")


class FactsConfig(_Section):
    enabled: bool = setting(
        True,
        "keep the facts (who lives, works ... where, since when) current as records "
        "are indexed and curated memories change; off: only `remem facts rebuild` derives them",
    )
    llm: bool = setting(
        False,
        "also ask the chat endpoint (llm.base_url, llm.model) for the facts each "
        "record states; it adds what the rules did not read and only values written in the "
        "record; a failed call leaves the rules' facts (off: rules only, no network)",
    )
    quiet_ms: NonNegativeFloat = setting(
        100.0,
        "facts are read out of new records after the write is acknowledged, in batches, once "
        "this process's writes pause this long (a burst is not slowed by them); a search or "
        "`remem facts` in the same process reads them at once",
    )
    max_wait_s: NonNegativeFloat = setting(
        5.0,
        "during a burst that never pauses, a new record's facts are read within about this long",
    )


class AutoRecallConfig(_Section):
    enabled: bool = setting(True, "inject relevant memories before each call")
    max_items: int = Field(default=3, ge=1, le=20, description="memories injected at most")
    min_chars_cjk: NonNegativeInt = setting(6, "shorter CJK queries skip recall")
    min_chars: NonNegativeInt = setting(15, "shorter other queries skip recall")
    min_margin: float = Field(
        default=0.02,
        ge=-1,
        le=1,
        description="a memory without a keyword match needs a cosine to the query at least "
        "this far above the query's cosine to neutral text",
    )
    keyword_match: bool = setting(True, "a memory sharing a keyword with the message qualifies too")
    dedup_turns: NonNegativeInt = setting(
        0, "do not inject a memory again within N turns (0 = off)"
    )
    dedup_seconds: NonNegativeFloat = setting(0.0, "... or within this many seconds (0 = off)")
    language: Literal["en", "zh"] = setting(
        "en", "the wording of the injected memory block (en or zh)"
    )


class LLMConfig(_Section):
    base_url: str | None = setting(
        None, "an OpenAI-compatible chat API root, e.g. http://127.0.0.1:11434/v1"
    )
    model: str | None = setting(None, "the chat model's name")
    api_key: str | None = setting(None, "the chat API's key")
    timeout_s: PositiveFloat = setting(30.0, "deadline for one chat call")


_USER_RE = re.compile(r"^[^\s\x00-\x1f\x7f:][^\s\x00-\x1f\x7f]{0,180}\Z")


class TokenGrant(BaseModel):
    """What one bearer token stands for: an agent and, when bound, the users it acts for.

    Unbound (``users`` unset), the caller vouches for the user it names; bound, it acts only
    for these users and a request naming another is refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: str = Field(description="the agent id the token's requests act as")
    users: tuple[str, ...] | None = setting(
        None,
        "the only users this token may act for (None: the caller vouches for the user it names)",
    )

    @field_validator("agent")
    @classmethod
    def _agent(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("server.tokens: every token maps to a non-empty agent id")
        return value

    @field_validator("users")
    @classmethod
    def _users(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is None:
            return None
        if not value:
            raise ValueError(
                "server.tokens: users = [] binds a token to nobody; list its users or leave "
                "users out"
            )
        for user in value:
            if not _USER_RE.match(user):
                raise ValueError(
                    f"server.tokens: user {user!r} is not a user id (1-180 characters "
                    "without spaces or a leading ':')"
                )
        return value


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


class ServerConfig(_Section):
    host: str = setting("127.0.0.1", "where `remem serve` / `remem proxy` listen")
    port: int = Field(
        default=8765, ge=0, le=65535, description="where `remem serve` and `remem proxy` listen"
    )
    tokens: dict[str, TokenGrant] = Field(
        default_factory=dict,
        description='bearer token -> agent id ("bot"), or -> {agent = "bot", users = ["ann"]} '
        "to bind the token to the users it may act for; with none configured the servers "
        "only listen on loopback and act as scopes.agent",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="host names (besides 127.0.0.1, localhost, ::1) the servers answer to in "
        "the Host and Origin headers, e.g. a reverse proxy's name; every other name is refused "
        "(DNS rebinding). Checked when listening on loopback, or on any address once set",
    )
    allow_unauthenticated_bind: bool = setting(
        False,
        "let a server without server.tokens listen beyond loopback: everyone who "
        "can reach the address may then read, write and delete every record",
    )
    max_body_bytes: PositiveInt = setting(2_000_000, "larger requests get 413")
    max_k: PositiveInt = setting(100, "largest k a request may ask for")
    upstream: str | None = setting(None, "proxy: the OpenAI-compatible API to forward to")
    upstream_api_key: str | None = setting(
        None,
        "proxy: key for the upstream (default: the client's own Authorization "
        "header when no remem tokens are configured)",
    )
    upstream_timeout_s: PositiveFloat = setting(300.0, "the proxy: deadline for one upstream call")
    proxy_tools: bool = setting(
        False,
        "proxy: offer the model the memory tools (conversation_recall, "
        "memory_recall ...) and run its calls to them inside the proxy",
    )
    proxy_tool_rounds: int = Field(
        default=3,
        ge=1,
        le=10,
        description="proxy: at most this many rounds of tool calls a request",
    )

    @field_validator("tokens", mode="before")
    @classmethod
    def _grants(cls, value: object) -> object:
        """A plain agent id is an unbound grant."""
        if not isinstance(value, dict):
            return value
        return {t: {"agent": g} if isinstance(g, str) else g for t, g in value.items()}

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        """Host names compare without case; a port or scheme in the list is a mistake."""
        for name in value:
            if not name or any(c in name for c in "/ ") or (":" in name and not _is_ip(name)):
                raise ValueError(
                    f"server.allowed_hosts: {name!r} is not a host name; give the bare name "
                    'without scheme or port, e.g. "memory.lan"'
                )
        return [name.lower().strip("[]") for name in value]

    @field_validator("tokens")
    @classmethod
    def _tokens(cls, value: dict[str, TokenGrant]) -> dict[str, TokenGrant]:
        for token in value:
            if len(token) < 16:
                raise ValueError("server.tokens: every token needs at least 16 characters")
        return value
