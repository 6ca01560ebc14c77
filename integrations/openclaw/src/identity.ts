/**
 * Who an OpenClaw event is for, in remem's terms, taken from that event's own context only.
 *
 * Nothing is carried over from an earlier event: a plugin that remembered "the current
 * session" would file a message without a session key under whichever user spoke last. An
 * event with no session key goes to the fallback session (`openclaw:no-identity` unless
 * configured) with no user, so remem files its memories under the agent's own scope
 * (`agent:<id>` with remem's default `capture.scope`), never under a `user:` scope.
 */

import type { AgentContext } from "./openclaw-api.js";
import type { RememPluginConfig } from "./config.js";

export interface Identity {
  session: string;
  user?: string;
  /** The OpenClaw agent (picks the token in `agentTokens`). */
  agent?: string;
  /** True when the event had no session key and went to the fallback session. */
  fallback: boolean;
}

export function identify(ctx: AgentContext | undefined, cfg: RememPluginConfig): Identity {
  const session = clean(ctx?.sessionKey) ?? clean(ctx?.sessionId);
  return {
    session: session ?? cfg.fallbackSession,
    user: clean(ctx?.senderId),
    agent: clean(ctx?.agentId),
    fallback: session === undefined,
  };
}

export function tokenFor(identity: Identity, cfg: RememPluginConfig): string | undefined {
  return (identity.agent && cfg.agentTokens[identity.agent]) || cfg.token;
}

function clean(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}
