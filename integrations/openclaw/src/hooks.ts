/**
 * The lifecycle hooks: auto-recall before the prompt is built (remem's
 * `<relevant-memories>` block as `prependContext`), auto-capture after it ends (the turn is archived, then
 * remem captures its durable memories), and the session summary on a reset (`/new`). None may
 * break the host: a remem that is down or refuses costs a warning in the log and the host goes
 * on without memory.
 */

import type {
  AgentContext,
  AgentEndEvent,
  BeforeAgentStartEvent,
  BeforeAgentStartResult,
  BeforeResetEvent,
  PluginLogger,
} from "./openclaw-api.js";
import type { RememPluginConfig } from "./config.js";
import { RememClient } from "./client.js";
import { identify, tokenFor } from "./identity.js";

/** remem caps a query at 10,000 characters; longer prompts are cut, not refused. */
const MAX_QUERY = 10_000;
/** The block auto-recall injects: it is the host's text, not the user's, so it is not archived. */
const INJECTED = /<relevant-memories\b[^>]*>[\s\S]*?<\/relevant-memories>/g;

export interface TurnMessage {
  role: "user" | "assistant";
  text: string;
}

export async function autoRecall(
  client: RememClient,
  cfg: RememPluginConfig,
  log: PluginLogger,
  event: BeforeAgentStartEvent,
  ctx: AgentContext,
): Promise<BeforeAgentStartResult | void> {
  const prompt = typeof event?.prompt === "string" ? event.prompt.trim() : "";
  if (prompt.length < Math.max(1, cfg.autoRecallMinLength)) return;
  const who = identify(ctx, cfg);
  try {
    const out = await client.post<{ block?: string; skipped_reason?: string | null }>(
      "/v1/recall-memories",
      { query: prompt.slice(0, MAX_QUERY), session: who.session, user: who.user },
      { token: tokenFor(who, cfg), timeoutMs: cfg.autoRecallTimeoutMs },
    );
    if (out.block) return { prependContext: out.block };
    log.debug?.(`remem: nothing to recall (${out.skipped_reason ?? "no relevant memory"})`);
  } catch (err) {
    log.warn(`remem: auto-recall skipped for this turn: ${message(err)}`);
  }
}

export interface CaptureOutcome {
  archived: string[];
  stored: unknown[];
}

export async function autoCapture(
  client: RememClient,
  cfg: RememPluginConfig,
  log: PluginLogger,
  event: AgentEndEvent,
  ctx: AgentContext,
): Promise<CaptureOutcome | void> {
  if (!event?.success) return;
  const turn = lastTurn(event.messages, cfg.captureAssistant);
  if (turn.length === 0) return;
  const who = identify(ctx, cfg);
  const token = tokenFor(who, cfg);
  try {
    const items = turn.map((m) => ({
      session: who.session,
      role: m.role,
      text: m.text,
      platform: cfg.platform,
      ...(m.role === "user" && who.user ? { speaker_id: who.user } : {}),
    }));
    const ingested = await client.post<{ ingested: Array<{ id: string }> }>("/v1/ingest", items, {
      token,
      timeoutMs: cfg.timeoutMs,
    });
    const ids = ingested.ingested.map((r) => r.id);
    if (who.fallback) {
      log.info(`remem: a turn without a session key was archived under ${who.session}`);
      // its memories would land in the agent's own scope, which every user of the agent
      // reads: only when the operator asked for it
      if (!cfg.captureWithoutIdentity) return { archived: ids, stored: [] };
    }
    const captured = await client.post<{ stored?: unknown[] }>(
      "/v1/capture-after-turn",
      { messages: ids, session: who.session, user: who.user },
      { token, timeoutMs: cfg.timeoutMs },
    );
    return { archived: ids, stored: captured.stored ?? [] };
  } catch (err) {
    log.warn(`remem: auto-capture skipped for this turn: ${message(err)}`);
  }
}

export interface ResetOutcome {
  session: string;
  summary: { id: string; text: string } | null;
  duplicate_of: string | null;
  skipped_reason: string | null;
}

/** `/new` or `/reset`: remem stores the summary of the session's archived messages (what the
 * Python API's Memory.session_reset does), in the identity of that session. */
export async function sessionReset(
  client: RememClient,
  cfg: RememPluginConfig,
  log: PluginLogger,
  _event: BeforeResetEvent,
  ctx: AgentContext,
): Promise<ResetOutcome | void> {
  const who = identify(ctx, cfg);
  // a reset without a session key names no session: summarising the shared fallback session
  // would mix every identity-less turn into one memory
  if (who.fallback) return;
  try {
    const out = await client.post<ResetOutcome>(
      `/v1/sessions/${encodeURIComponent(who.session)}/reset`,
      who.user ? { user: who.user } : {},
      { token: tokenFor(who, cfg), timeoutMs: cfg.timeoutMs },
    );
    if (out.summary) log.info(`remem: session ${who.session} reset; its summary is saved to memory`);
    else log.debug?.(`remem: session ${who.session} reset; no summary saved (${out.skipped_reason})`);
    return out;
  } catch (err) {
    log.warn(`remem: session summary skipped for this reset: ${message(err)}`);
  }
}

/** The last user message and, with `withAssistant`, the assistant's replies after it. */
export function lastTurn(messages: unknown, withAssistant: boolean): TurnMessage[] {
  if (!Array.isArray(messages)) return [];
  const turn: TurnMessage[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown } | null;
    const role = m?.role;
    if (role !== "user" && role !== "assistant") continue;
    const text = textOf(m?.content).replace(INJECTED, " ").trim();
    if (role === "assistant") {
      if (withAssistant && text) turn.unshift({ role, text });
      continue;
    }
    if (text) turn.unshift({ role, text });
    break; // the user message that started the turn
  }
  return turn.some((m) => m.role === "user") ? turn : [];
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => {
      const p = part as { type?: unknown; text?: unknown } | null;
      return p?.type === "text" && typeof p.text === "string" ? p.text : "";
    })
    .filter(Boolean)
    .join("\n");
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
