/**
 * The part of OpenClaw's plugin API this plugin relies on, declared here rather than imported.
 *
 * The `openclaw` npm package does ship the real SDK types (`openclaw/plugin-sdk/*`), but it is
 * the whole gateway: it needs Node >= 24 and pulls some 60 runtime dependencies, native ones
 * included, so typing against it would make `npm ci` install a chat gateway to build a small
 * HTTP client (and would not install on Node 20). These are the shapes OpenClaw documents for
 * memory plugins (memory-lancedb, memory-lancedb-pro): narrower than the real API, and every
 * field the host may leave out is optional, because the plugin must work when it does.
 */

export interface PluginLogger {
  debug?: (message: string) => void;
  info: (message: string) => void;
  warn: (message: string) => void;
  error: (message: string) => void;
}

/** The context OpenClaw passes to agent hooks (`before_agent_start`, `agent_end`). */
export interface AgentContext {
  agentId?: string;
  sessionKey?: string;
  sessionId?: string;
  /** The person who sent the message, when the channel knows (newer OpenClaw releases). */
  senderId?: string;
  messageProvider?: string;
  channelId?: string;
  trigger?: string;
}

/** The context a tool factory gets: the same identity fields, for the call's session. */
export type ToolContext = AgentContext;

export interface BeforeAgentStartEvent {
  prompt: string;
  messages?: unknown[];
}

export interface BeforeAgentStartResult {
  systemPrompt?: string;
  prependContext?: string;
}

export interface AgentEndEvent {
  messages: unknown[];
  success: boolean;
  error?: string;
  durationMs?: number;
}

/** `before_reset`: the session is about to be cleared by `/new` or `/reset` (its context is
 * the session's AgentContext). */
export interface BeforeResetEvent {
  sessionFile?: string;
  messages?: unknown[];
  reason?: string;
}

export interface ToolResult {
  content: Array<{ type: "text"; text: string }>;
  details?: unknown;
}

export interface AgentTool {
  name: string;
  label?: string;
  description: string;
  /** JSON schema of the arguments. */
  parameters: Record<string, unknown>;
  execute: (toolCallId: string, params: Record<string, unknown>) => Promise<ToolResult>;
}

export interface HookHandlers {
  /** Where memory plugins inject context since OpenClaw 2026.3 (same event and result). */
  before_prompt_build: (
    event: BeforeAgentStartEvent,
    ctx: AgentContext,
  ) => Promise<BeforeAgentStartResult | void> | BeforeAgentStartResult | void;
  /** The older hook, kept by OpenClaw for plugins written before before_prompt_build. */
  before_agent_start: (
    event: BeforeAgentStartEvent,
    ctx: AgentContext,
  ) => Promise<BeforeAgentStartResult | void> | BeforeAgentStartResult | void;
  agent_end: (event: AgentEndEvent, ctx: AgentContext) => Promise<void> | void;
  /** A session reset (`/new`, `/reset`), before the gateway clears the session. */
  before_reset: (event: BeforeResetEvent, ctx: AgentContext) => Promise<void> | void;
}

/** The commander-style command OpenClaw hands a CLI registrar (`openclaw <name> ...`). */
export interface CliCommand {
  command(nameAndArgs: string): CliCommand;
  description(text: string): CliCommand;
  option(flags: string, description: string, defaultValue?: string): CliCommand;
  action(fn: (...args: any[]) => void | Promise<void>): CliCommand;
}

export interface OpenClawPluginApi {
  /** This plugin's `plugins.entries.<id>.config` block, unvalidated. */
  pluginConfig?: Record<string, unknown>;
  logger: PluginLogger;
  on<K extends keyof HookHandlers>(hook: K, handler: HookHandlers[K]): void;
  /** A tool, or a factory OpenClaw calls per session with that session's context. */
  registerTool(tool: AgentTool | ((ctx: ToolContext) => AgentTool), opts?: { name?: string }): void;
  /** Subcommands of the `openclaw` CLI; absent in hosts without one. */
  registerCli?(registrar: (ctx: { program: CliCommand }) => void, opts?: { commands: string[] }): void;
}

export interface OpenClawPlugin {
  id: string;
  name: string;
  description: string;
  kind: "memory";
  register(api: OpenClawPluginApi): void;
}
