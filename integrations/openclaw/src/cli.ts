/**
 * `openclaw remem ...`: the management commands memory-lancedb-pro had as `openclaw memory-pro`
 * (status, search, list, forget), over the same REST API. They act with the plugin's `token`
 * (or as remem's local operator without tokens); remem's own CLI and web UI do the rest.
 */

import type { CliCommand } from "./openclaw-api.js";
import type { RememPluginConfig } from "./config.js";
import { RememClient } from "./client.js";
import { message } from "./hooks.js";

export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

interface RecordJson {
  id: string;
  text: string;
  scope: string;
  category?: string | null;
}

const defaultIo: CliIo = { out: (l) => console.log(l), err: (l) => console.error(l) };

export function registerCommands(
  program: CliCommand,
  client: RememClient,
  cfg: RememPluginConfig,
  io: CliIo = defaultIo,
): void {
  const opts = { token: cfg.token, timeoutMs: cfg.timeoutMs };
  const run = (fn: (...args: any[]) => Promise<void>) => async (...args: any[]) => {
    try {
      await fn(...args);
    } catch (err) {
      io.err(`remem: ${message(err)}`);
      process.exitCode = 1;
    }
  };
  const line = (r: RecordJson, score?: number) =>
    `${r.id}  [${r.scope}${r.category ? `/${r.category}` : ""}] ${r.text}` +
    (score === undefined ? "" : `  (${score.toFixed(3)})`);

  const remem = program.command("remem").description("remem long-term memory (the remem plugin)");
  remem
    .command("status")
    .description("remem's address, version and record counts")
    .action(
      run(async () => {
        const health = await client.get<{ version?: string }>("/healthz", opts);
        const stats = await client.get<Record<string, unknown>>("/v1/stats", opts);
        io.out(`remem ${health.version ?? "?"} at ${client.baseUrl}`);
        io.out(JSON.stringify(stats, null, 2));
      }),
    );
  remem
    .command("search <query>")
    .description("search the curated memories")
    .option("--limit <n>", "at most this many", "10")
    .option("--scope <scope>", "only this scope")
    .action(
      run(async (query: string, o: { limit: string; scope?: string }) => {
        const filters: Record<string, unknown> = { kind: "memory" };
        if (o.scope) filters.scope = o.scope;
        const out = await client.post<{ hits: Array<{ score: number; record: RecordJson }> }>(
          "/v1/search",
          { query, k: positive("--limit", o.limit), filters },
          opts,
        );
        if (out.hits.length === 0) io.out("no memory matches");
        for (const hit of out.hits) io.out(line(hit.record, hit.score));
      }),
    );
  remem
    .command("list")
    .description("the newest curated memories")
    .option("--limit <n>", "at most this many", "20")
    .option("--scope <scope>", "only this scope")
    .action(
      run(async (o: { limit: string; scope?: string }) => {
        const query = new URLSearchParams({ kind: "memory", limit: String(positive("--limit", o.limit)) });
        if (o.scope) query.set("scope", o.scope);
        const out = await client.get<{ records: RecordJson[] }>(`/v1/records?${query}`, opts);
        if (out.records.length === 0) io.out("no memories");
        for (const r of out.records) io.out(line(r));
      }),
    );
  remem
    .command("forget <id>")
    .description("delete one memory by its id")
    .action(
      run(async (id: string) => {
        await client.delete(`/v1/records/${encodeURIComponent(id)}`, opts);
        io.out(`forgot ${id}`);
      }),
    );
}

function positive(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`invalid ${flag}: ${JSON.stringify(value)}; use a whole number from 1`);
  return n;
}
