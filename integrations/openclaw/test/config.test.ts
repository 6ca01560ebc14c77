/** Configuration parsing and turn extraction: no server needed. */

import assert from "node:assert/strict";
import { test } from "node:test";

import { ConfigError, DEFAULT_BASE_URL, lastTurn, parseConfig } from "../src/index.js";

test("defaults follow memory-lancedb-pro's", () => {
  const cfg = parseConfig(undefined);
  assert.equal(cfg.baseUrl, DEFAULT_BASE_URL);
  assert.equal(cfg.autoCapture, true);
  assert.equal(cfg.autoRecall, false);
  assert.equal(cfg.autoRecallMinLength, 15);
  assert.equal(cfg.sessionSummary, true);
});

test("a memory-lancedb-pro config is accepted, its moved keys named in warnings", () => {
  const warnings: string[] = [];
  const cfg = parseConfig(
    {
      embedding: { apiKey: "sk-x", model: "text-embedding-3-small" },
      dbPath: "~/.openclaw/memory/lancedb-pro",
      autoRecall: true,
      retrieval: { mode: "hybrid" },
      scopes: { default: "global" },
    },
    (m) => warnings.push(m),
  );
  assert.equal(cfg.autoRecall, true);
  assert.equal(warnings.length, 4);
  assert.match(warnings.find((w) => w.includes('"dbPath"')) ?? "", /remem migrate run/);
  assert.match(warnings.find((w) => w.includes('"scopes"')) ?? "", /scopes\.agents/);
});

test("bad values name the field, the value and the fix", () => {
  assert.throws(() => parseConfig({ autoRecall: "yes" }), (e: Error) => {
    return e instanceof ConfigError && /invalid autoRecall: "yes"; use true or false/.test(e.message);
  });
  assert.throws(() => parseConfig({ baseUrl: "ftp://x" }), /invalid baseUrl: "ftp:\/\/x"; use an http/);
  assert.throws(() => parseConfig({ timeoutMs: 5 }), /invalid timeoutMs: 5; use a whole number from 100/);
  assert.throws(() => parseConfig({ recallHook: "before_tool_call" }), /invalid recallHook: "before_tool_call"; use "before_prompt_build"/);
  assert.throws(() => parseConfig({ sessionSummary: "on" }), /invalid sessionSummary: "on"; use true or false/);
  assert.throws(() => parseConfig({ autoRecal: true }), /unknown config key "autoRecal"; the keys are/);
  assert.equal(parseConfig({ baseUrl: "http://10.0.0.2:8765/" }).baseUrl, "http://10.0.0.2:8765");
});

test("the last turn: its user message and, when asked, the replies after it", () => {
  const messages = [
    { role: "user", content: "first" },
    { role: "assistant", content: "one" },
    { role: "user", content: [{ type: "text", text: "second" }, { type: "image", data: "..." }] },
    { role: "toolResult", content: "ignored" },
    { role: "assistant", content: [{ type: "text", text: "two" }] },
  ];
  assert.deepEqual(lastTurn(messages, false), [{ role: "user", text: "second" }]);
  assert.deepEqual(lastTurn(messages, true), [
    { role: "user", text: "second" },
    { role: "assistant", text: "two" },
  ]);
  assert.deepEqual(lastTurn([{ role: "assistant", content: "only" }], true), []);
  assert.deepEqual(lastTurn(undefined, true), []);
});
