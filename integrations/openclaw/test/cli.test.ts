/** `openclaw remem ...`, parsed by commander (OpenClaw's CLI library) against a real remem. */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Command } from "commander";

import plugin, { parseConfig, RememClient, registerCommands } from "../src/index.js";
import { freePort, startRemem, type RememServer } from "./remem-server.js";
import { TestHost } from "./host.js";

let remem: RememServer;

before(async () => {
  remem = await startRemem();
});

after(async () => {
  await remem?.stop();
});

async function run(baseUrl: string, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const program = new Command().exitOverride();
  const cfg = parseConfig({ baseUrl, timeoutMs: 120_000 });
  registerCommands(program, new RememClient(cfg.baseUrl), cfg, { out: (l) => out.push(l), err: (l) => err.push(l) });
  const before = process.exitCode;
  await program.parseAsync(["remem", ...args], { from: "user" });
  const failed = process.exitCode === 1;
  process.exitCode = before;
  return { out, err, failed };
}

test("the plugin registers `openclaw remem`", () => {
  const h = new TestHost(plugin, { baseUrl: remem.url });
  assert.deepEqual(h.cli.map((c) => c.commands), [["remem"]]);
  const program = new Command();
  h.cli[0].registrar({ program });
  const remem_ = program.commands.find((c) => c.name() === "remem");
  assert.deepEqual(remem_?.commands.map((c) => c.name()), ["status", "search", "list", "forget"]);
});

test("status, search, list and forget round-trip through remem", async () => {
  const h = new TestHost(plugin, { baseUrl: remem.url, timeoutMs: 120_000 });
  const ctx = { agentId: "main", sessionKey: "agent:main:dm:dora", senderId: "dora" };
  const stored = await h.call("memory_store", ctx, { text: "Dora waters the ferns on Sundays" });
  const id = (stored.details as any).memory.id as string;

  const status = await run(remem.url, "status");
  assert.match(status.out[0], new RegExp(`^remem \\S+ at ${remem.url}$`));
  assert.match(status.out[1], /"records"/);

  const found = await run(remem.url, "search", "who waters the ferns", "--limit", "3");
  assert.match(found.out[0], new RegExp(`^${id}  \\[user:dora/fact\\] Dora waters the ferns on Sundays  \\(\\d\\.\\d{3}\\)$`));
  const listed = await run(remem.url, "list", "--scope", "user:dora");
  assert.deepEqual(listed.out, [`${id}  [user:dora/fact] Dora waters the ferns on Sundays`]);

  assert.deepEqual((await run(remem.url, "forget", id)).out, [`forgot ${id}`]);
  assert.deepEqual((await run(remem.url, "list", "--scope", "user:dora")).out, ["no memories"]);
  const again = await run(remem.url, "forget", id);
  assert.ok(again.failed);
  assert.match(again.err[0], /^remem: DELETE .* remem answered 404/);
});

test("bad options and a remem that is down fail with one line and exit code 1", async () => {
  const bad = await run(remem.url, "list", "--limit", "zero");
  assert.ok(bad.failed);
  assert.deepEqual(bad.err, ['remem: invalid --limit: "zero"; use a whole number from 1']);
  const port = await freePort();
  const down = await run(`http://127.0.0.1:${port}`, "status");
  assert.ok(down.failed);
  assert.match(down.err[0], /^remem: remem is not reachable at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
});
