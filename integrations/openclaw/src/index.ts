/**
 * remem as an OpenClaw memory plugin: the hooks and tools of memory-lancedb-pro, with remem
 * (`remem serve`) doing the storing, the search and the scoping.
 */

import type { OpenClawPlugin, OpenClawPluginApi } from "./openclaw-api.js";
import { parseConfig } from "./config.js";
import { RememClient } from "./client.js";
import { autoCapture, autoRecall, sessionReset } from "./hooks.js";
import { makeTool, offered } from "./tools.js";
import { registerCommands } from "./cli.js";

export { parseConfig, FALLBACK_SESSION, DEFAULT_BASE_URL, ConfigError } from "./config.js";
export type { RememPluginConfig } from "./config.js";
export { RememClient, RememRequestError, RememUnavailableError } from "./client.js";
export { identify } from "./identity.js";
export { lastTurn } from "./hooks.js";
export { TOOL_SPECS } from "./tools.js";
export { registerCommands } from "./cli.js";
export type * from "./openclaw-api.js";

const plugin: OpenClawPlugin = {
  id: "remem",
  name: "Memory (remem)",
  description: "Long-term memory from a remem server: auto-recall, auto-capture and memory tools",
  kind: "memory",
  register(api: OpenClawPluginApi): void {
    const log = api.logger;
    const cfg = parseConfig(api.pluginConfig, (m) => log.warn(m));
    const client = new RememClient(cfg.baseUrl);
    for (const name of offered(cfg)) {
      api.registerTool((ctx) => makeTool(name, client, cfg, ctx), { name });
    }
    api.registerCli?.(({ program }) => registerCommands(program, client, cfg), { commands: ["remem"] });
    if (cfg.autoRecall) {
      api.on(cfg.recallHook, (event, ctx) => autoRecall(client, cfg, log, event, ctx));
    }
    if (cfg.autoCapture) {
      api.on("agent_end", async (event, ctx) => {
        await autoCapture(client, cfg, log, event, ctx);
      });
    }
    if (cfg.sessionSummary) {
      api.on("before_reset", async (event, ctx) => {
        await sessionReset(client, cfg, log, event, ctx);
      });
    }
    log.info(
      `remem: memory from ${cfg.baseUrl} (autoRecall ${cfg.autoRecall ? "on" : "off"}, ` +
        `autoCapture ${cfg.autoCapture ? "on" : "off"}, sessionSummary ${cfg.sessionSummary ? "on" : "off"})`,
    );
  },
};

export default plugin;
