/** The plugin against a remem with `server.tokens`: each OpenClaw agent acts as its own remem
 * agent through `agentTokens`, and a missing or wrong token is reported, not fatal. */

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import plugin from "../src/index.js";
import { startRemem, type RememServer } from "./remem-server.js";
import { TestHost } from "./host.js";

const MAIN = "main-token-0123456789abcdef0123456789";
const WORK = "work-token-0123456789abcdef0123456789";

let remem: RememServer;

before(async () => {
  remem = await startRemem(`
[server]
tokens = { "${MAIN}" = "main-bot", "${WORK}" = "work-bot" }
`);
});

after(async () => {
  await remem?.stop();
});

function host(extra: Record<string, unknown>) {
  const timeouts = { autoRecallTimeoutMs: 120_000, timeoutMs: 120_000 };
  return new TestHost(plugin, { baseUrl: remem.url, autoRecall: true, autoRecallMinLength: 5, ...timeouts, ...extra });
}

const ANN_MAIN = { agentId: "main", sessionKey: "agent:main:dm:ann", senderId: "ann" };
const ANN_WORK = { agentId: "work", sessionKey: "agent:work:dm:ann", senderId: "ann" };

test("each OpenClaw agent uses its own token, so its memories stay in its own remem agent's scope", async () => {
  const h = host({ agentTokens: { main: MAIN, work: WORK } });
  const stored = await h.call("memory_store", ANN_MAIN, { text: "The release train leaves on Thursdays" });
  assert.equal((stored.details as any).memory.scope, "agent:main-bot");
  const mine = await h.call("memory_recall", ANN_MAIN, { query: "when does the release train leave" });
  assert.deepEqual((mine.details as any).memories.map((m: any) => m.scope), ["agent:main-bot"]);
  const theirs = await h.call("memory_recall", ANN_WORK, { query: "when does the release train leave" });
  assert.deepEqual((theirs.details as any).memories, []);

  await h.agentEnd(
    { success: true, messages: [{ role: "user", content: "Please remember that I prefer dark mode" }] },
    ANN_WORK,
  );
  assert.deepEqual(h.warnings(), []);
  const recalled = await h.beforeAgentStart({ prompt: "Which colour theme do I prefer in my editor?" }, ANN_WORK);
  assert.match(recalled.prependContext ?? "", /dark mode/);
  const elsewhere = await h.beforeAgentStart({ prompt: "Which colour theme do I prefer in my editor?" }, ANN_MAIN);
  assert.doesNotMatch(elsewhere.prependContext ?? "", /dark mode/);
});

test("an agent without a token falls back to `token`; none at all is remem's 401, reported", async () => {
  const fallback = host({ token: WORK, agentTokens: { main: MAIN } });
  // Ann's first-person memory goes to Ann (issue 48): the fallback token, asked for her
  const out = await fallback.call(
    "memory_recall",
    { agentId: "other", sessionKey: "s1", senderId: "ann" },
    { query: "dark mode" },
  );
  assert.deepEqual((out.details as any).memories.map((m: any) => m.scope), ["agent:work-bot"]);

  const none = host({});
  const refused = await none.call("memory_recall", ANN_MAIN, { query: "release train" });
  assert.match(refused.content[0].text, /^memory_recall failed: .*remem answered 401: missing bearer token/);
  assert.deepEqual(await none.beforeAgentStart({ prompt: "When does the release train leave?" }, ANN_MAIN), {});
  assert.match(none.warnings()[0], /auto-recall skipped .*401/);
});

test("/new summarises the session as the OpenClaw agent's own remem agent (its token, its scope)", async () => {
  const h = host({ agentTokens: { main: MAIN, work: WORK } });
  const ctx = { ...ANN_WORK, sessionKey: "agent:work:dm:ann-reset" };
  await h.agentEnd({ success: true, messages: [{ role: "user", content: "Please remember that the standup is at nine" }] }, ctx);
  await h.beforeReset({ reason: "new" }, ctx);
  assert.deepEqual(h.warnings(), []);
  const summaries = async (token: string) => {
    const r = await fetch(`${remem.url}/v1/records?kind=memory&limit=100`, { headers: { authorization: `Bearer ${token}` } });
    const texts: string[] = ((await r.json()) as any).records.map((m: any) => m.text);
    return texts.filter((t) => t.startsWith(`Summary of session ${ctx.sessionKey}`));
  };
  assert.equal((await summaries(WORK)).length, 1);
  assert.deepEqual(await summaries(MAIN), []); // another remem agent does not see it

  const untokened = host({});
  await untokened.beforeReset({ reason: "new" }, ctx);
  assert.match(untokened.warnings()[0], /session summary skipped for this reset: .*401/);
});
