/**
 * A minimal OpenClaw host for the tests: it loads the plugin through the same API surface
 * OpenClaw gives it (pluginConfig, logger, on, registerTool) and fires the hooks the way the
 * gateway does, so the plugin's real code runs against a real remem.
 */

import type {
  AgentContext,
  AgentEndEvent,
  AgentTool,
  BeforeAgentStartEvent,
  CliCommand,
  BeforeAgentStartResult,
  BeforeResetEvent,
  HookHandlers,
  OpenClawPlugin,
  OpenClawPluginApi,
  ToolContext,
} from "../src/openclaw-api.js";

export class TestHost {
  readonly logs: Array<{ level: string; message: string }> = [];
  private hooks: { [K in keyof HookHandlers]?: HookHandlers[K][] } = {};
  private tools = new Map<string, (ctx: ToolContext) => AgentTool>();
  readonly cli: Array<{ registrar: (ctx: { program: CliCommand }) => void; commands: string[] }> = [];

  constructor(plugin: OpenClawPlugin, config: Record<string, unknown>) {
    const record = (level: string) => (message: string) => this.logs.push({ level, message });
    const api: OpenClawPluginApi = {
      pluginConfig: config,
      logger: { debug: record("debug"), info: record("info"), warn: record("warn"), error: record("error") },
      on: (hook, handler) => {
        (this.hooks[hook] ??= [] as never[]).push(handler as never);
      },
      registerCli: (registrar, opts) => {
        this.cli.push({ registrar, commands: opts?.commands ?? [] });
      },
      registerTool: (tool, opts) => {
        const factory = typeof tool === "function" ? tool : () => tool;
        const name = opts?.name ?? (tool as AgentTool).name;
        this.tools.set(name, factory);
      },
    };
    plugin.register(api);
  }

  hookNames(): string[] {
    return Object.keys(this.hooks).sort();
  }

  toolNames(): string[] {
    return [...this.tools.keys()].sort();
  }

  tool(name: string, ctx: ToolContext): AgentTool {
    const factory = this.tools.get(name);
    if (!factory) throw new Error(`no tool ${name}; registered: ${this.toolNames().join(", ")}`);
    return factory(ctx);
  }

  async call(name: string, ctx: ToolContext, params: Record<string, unknown>) {
    const result = await this.tool(name, ctx).execute("call-1", params);
    return result;
  }

  /** Like the gateway before a prompt: the before_prompt_build handlers, then the legacy
   * before_agent_start ones; their prependContexts are joined. */
  async beforeAgentStart(event: BeforeAgentStartEvent, ctx: AgentContext): Promise<BeforeAgentStartResult> {
    const parts: string[] = [];
    const handlers = [...(this.hooks.before_prompt_build ?? []), ...(this.hooks.before_agent_start ?? [])];
    for (const handler of handlers) {
      const out = await handler(event, ctx);
      if (out && out.prependContext) parts.push(out.prependContext);
    }
    return parts.length ? { prependContext: parts.join("\n\n") } : {};
  }

  async agentEnd(event: AgentEndEvent, ctx: AgentContext): Promise<void> {
    for (const handler of this.hooks.agent_end ?? []) await handler(event, ctx);
  }

  /** Like the gateway on `/new` or `/reset`, before it clears the session. */
  async beforeReset(event: BeforeResetEvent, ctx: AgentContext): Promise<void> {
    for (const handler of this.hooks.before_reset ?? []) await handler(event, ctx);
  }

  warnings(): string[] {
    return this.logs.filter((l) => l.level === "warn").map((l) => l.message);
  }
}
