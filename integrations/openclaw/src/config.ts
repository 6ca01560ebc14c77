/**
 * The plugin's configuration: `plugins.entries.remem.config` in openclaw.json. Its keys follow
 * memory-lancedb-pro's where they mean the same thing (`autoRecall`, `autoCapture`,
 * `autoRecallMinLength`, `autoRecallTimeoutMs`, `captureAssistant`, `enableManagementTools`);
 * retrieval, embedding, scopes and storage live in remem's own configuration, so those keys of
 * memory-lancedb-pro are accepted with a warning that says where they went (a copied config
 * keeps working), and anything else is refused with the field's name.
 */

export const DEFAULT_BASE_URL = "http://127.0.0.1:8765";

/** The session an event without any identity is archived under: never a real user's. */
export const FALLBACK_SESSION = "openclaw:no-identity";

export interface RememPluginConfig {
  /** remem serve's address. */
  baseUrl: string;
  /** Bearer token for remem's `server.tokens` (it names the remem agent). */
  token?: string;
  /** Per OpenClaw agent id: the token to use for that agent (else `token`). */
  agentTokens: Record<string, string>;
  autoRecall: boolean;
  autoCapture: boolean;
  /** Prompts shorter than this (characters, trimmed) do not recall. */
  autoRecallMinLength: number;
  /** How long auto-recall may hold up a turn. */
  autoRecallTimeoutMs: number;
  /** The hook auto-recall runs in: before_prompt_build (OpenClaw 2026.3 and later) or
   * before_agent_start (older gateways; memory-lancedb-pro's original hook). */
  recallHook: "before_prompt_build" | "before_agent_start";
  /** Timeout of capture and tool calls. */
  timeoutMs: number;
  /** Also archive (and capture from) the assistant's reply, not only the user's message. */
  captureAssistant: boolean;
  /** Also capture curated memories from turns without a session key (they are archived
   * either way); off by default, because they would go to the agent's shared scope. */
  captureWithoutIdentity: boolean;
  /** On a session reset (`/new`, `/reset`), have remem store the session's summary memory
   * (`POST /v1/sessions/{session}/reset`; remem's capture.session_summary must be on). */
  sessionSummary: boolean;
  /** Offer memory_list and memory_stats too. */
  enableManagementTools: boolean;
  /** The session of events that carry no session key (see README: identities). */
  fallbackSession: string;
  /** The `platform` archived messages are labelled with. */
  platform: string;
}

/** memory-lancedb-pro keys that remem's own configuration replaces: where each one went. */
const MOVED: Record<string, string> = {
  embedding: "remem's [embed] section (the model runs inside remem)",
  dbPath: "remem's store.path / REMEM_DB (import the old table with `remem migrate run`)",
  retrieval: "remem's [search] and [rerank] sections",
  decay: "remem's [search] recency settings",
  tier: "remem's [search] settings",
  scopes:
    "remem's [scopes] section: scopes.agents (agentAccess), scopes.definitions, capture.scope (default)",
  llm: "remem's [llm] section (capture.llm = true for LLM extraction)",
  smartExtraction: "remem's capture.llm",
  extractMinMessages: "remem's [capture] section",
  extractMaxChars: "remem's [capture] section",
  autoRecallMaxItems: "remem's autorecall.max_items",
  autoRecallMaxChars: "remem's [autorecall] section",
  autoRecallPerItemMaxChars: "remem's [autorecall] section",
  autoRecallMaxQueryLength: "remem's [autorecall] section",
  autoRecallMinRepeated: "remem's [autorecall] section (cross-turn dedup)",
  maxRecallPerTurn: "remem's autorecall.max_items",
  recallMode: "autoRecall (on or off) and remem's [autorecall] section",
  sessionStrategy: "remem's conversation_recall over the archived chat",
  sessionMemory: "remem's conversation_recall over the archived chat",
  mdMirror: "`remem export` (JSONL)",
};

const INTEGER_BOUNDS: Record<string, [number, number]> = {
  autoRecallMinLength: [0, 10_000],
  autoRecallTimeoutMs: [100, 600_000],
  timeoutMs: [100, 600_000],
};

export class ConfigError extends Error {}

export function parseConfig(
  raw: Record<string, unknown> | undefined,
  warn: (message: string) => void = () => {},
): RememPluginConfig {
  const cfg: RememPluginConfig = {
    baseUrl: DEFAULT_BASE_URL,
    agentTokens: {},
    autoRecall: false, // memory-lancedb-pro's default: injecting context is opt-in
    autoCapture: true,
    autoRecallMinLength: 15,
    autoRecallTimeoutMs: 5000,
    recallHook: "before_prompt_build",
    timeoutMs: 10_000,
    captureAssistant: false,
    enableManagementTools: false,
    captureWithoutIdentity: false,
    sessionSummary: true,
    fallbackSession: FALLBACK_SESSION,
    platform: "openclaw",
  };
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (key in MOVED) {
      warn(`remem plugin: config key "${key}" is ignored here; it is now ${MOVED[key]}`);
      continue;
    }
    switch (key) {
      case "baseUrl":
        cfg.baseUrl = checkUrl(value);
        break;
      case "token":
      case "fallbackSession":
      case "platform":
        cfg[key] = nonEmpty(key, value);
        break;
      case "recallHook":
        if (value !== "before_prompt_build" && value !== "before_agent_start") {
          bad(key, value, 'use "before_prompt_build" or, on OpenClaw before 2026.3, "before_agent_start"');
        }
        cfg.recallHook = value;
        break;
      case "agentTokens":
        cfg.agentTokens = tokens(value);
        break;
      case "autoRecall":
      case "autoCapture":
      case "captureAssistant":
      case "enableManagementTools":
      case "captureWithoutIdentity":
      case "sessionSummary":
        if (typeof value !== "boolean") bad(key, value, "use true or false");
        cfg[key] = value as boolean;
        break;
      case "autoRecallMinLength":
      case "autoRecallTimeoutMs":
      case "timeoutMs": {
        const [lo, hi] = INTEGER_BOUNDS[key];
        if (!Number.isInteger(value) || (value as number) < lo || (value as number) > hi) {
          bad(key, value, `use a whole number from ${lo} to ${hi}`);
        }
        cfg[key] = value as number;
        break;
      }
      default:
        throw new ConfigError(
          `remem plugin: unknown config key "${key}"; the keys are baseUrl, token, agentTokens, ` +
            "autoRecall, autoCapture, autoRecallMinLength, autoRecallTimeoutMs, recallHook, timeoutMs, " +
            "captureAssistant, captureWithoutIdentity, sessionSummary, enableManagementTools, fallbackSession, platform",
        );
    }
  }
  return cfg;
}

function bad(key: string, value: unknown, fix: string): never {
  throw new ConfigError(`remem plugin: invalid ${key}: ${JSON.stringify(value)}; ${fix}`);
}

function nonEmpty(key: string, value: unknown): string {
  if (typeof value !== "string" || !value.trim()) bad(key, value, "use a non-empty string");
  return (value as string).trim();
}

function checkUrl(value: unknown): string {
  const text = nonEmpty("baseUrl", value);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    bad("baseUrl", value, "use an http(s) URL such as http://127.0.0.1:8765");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    bad("baseUrl", value, "use an http(s) URL such as http://127.0.0.1:8765");
  }
  return text.replace(/\/+$/, "");
}

function tokens(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    bad("agentTokens", value, 'use an object such as {"main": "<token>"}');
  }
  const out: Record<string, string> = {};
  for (const [agent, token] of Object.entries(value as Record<string, unknown>)) {
    out[agent] = nonEmpty(`agentTokens.${agent}`, token);
  }
  return out;
}
