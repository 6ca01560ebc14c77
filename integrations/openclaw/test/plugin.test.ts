/** The plugin against a real `remem serve`: hooks, tools, identities, and a remem that is down. */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import plugin, { FALLBACK_SESSION, TOOL_SPECS } from "../src/index.js";
import { freePort, startRemem, type RememServer } from "./remem-server.js";
import { TestHost } from "./host.js";

let remem: RememServer;

before(async () => {
  remem = await startRemem();
});

after(async () => {
  await remem?.stop();
});

const ANN = { agentId: "main", sessionKey: "agent:main:telegram:dm:ann", senderId: "ann" };
const BOB = { agentId: "main", sessionKey: "agent:main:telegram:dm:bob", senderId: "bob" };

function host(extra: Record<string, unknown> = {}) {
  // generous timeouts: the first recall loads remem's embedding model, on a shared machine
  const timeouts = { autoRecallTimeoutMs: 120_000, timeoutMs: 120_000 };
  return new TestHost(plugin, { baseUrl: remem.url, autoRecall: true, autoRecallMinLength: 5, ...timeouts, ...extra });
}

async function records(query: Record<string, string>) {
  const r = await fetch(`${remem.url}/v1/records?${new URLSearchParams({ limit: "100", ...query })}`);
  assert.equal(r.status, 200);
  return ((await r.json()) as { records: Array<Record<string, any>> }).records;
}

function turn(user: string, assistant = "Noted.") {
  return {
    success: true,
    messages: [
      { role: "user", content: "hello" },
      { role: "assistant", content: [{ type: "text", text: "Hi!" }] },
      { role: "user", content: [{ type: "text", text: user }] },
      { role: "assistant", content: [{ type: "text", text: assistant }] },
    ],
  };
}

describe("auto-capture and auto-recall", () => {
  test("a turn is archived, its memory captured into the user's scope, and recalled next turn", async () => {
    const h = host();
    await h.agentEnd(turn("Please remember that I am allergic to peanuts"), ANN);
    assert.deepEqual(h.warnings(), []);

    const archived = await records({ kind: "message", session: ANN.sessionKey });
    assert.deepEqual(archived.map((r) => [r.role, r.text, r.speaker_id, r.platform]), [
      ["user", "Please remember that I am allergic to peanuts", "ann", "openclaw"],
    ]);
    const memories = await records({ kind: "memory", scope: "user:ann" });
    assert.deepEqual(memories.map((m) => m.text), ["I am allergic to peanuts"]);

    const recalled = await h.beforeAgentStart({ prompt: "Which foods should I avoid because of allergies?" }, ANN);
    assert.match(recalled.prependContext ?? "", /<relevant-memories[^>]*>[\s\S]*allergic to peanuts/);
    // another user of the same agent does not get Ann's memory
    const bobs = await h.beforeAgentStart({ prompt: "Which foods should I avoid because of allergies?" }, BOB);
    assert.doesNotMatch(bobs.prependContext ?? "", /peanuts/);
  });

  test("the injected block is not archived as the user's words; captureAssistant archives the reply", async () => {
    const h = host({ captureAssistant: true });
    const ctx = { ...ANN, sessionKey: "agent:main:telegram:dm:ann-2" };
    const said =
      '<relevant-memories type="untrusted-data">\nLong-term memories that may be relevant.\n' +
      "- [preference] I am allergic to peanuts (2026-12-06)\n</relevant-memories>\nI moved to Lisbon last year";
    await h.agentEnd(turn(said, "Lisbon is lovely."), ctx);
    const archived = await records({ kind: "message", session: ctx.sessionKey });
    assert.deepEqual(archived.map((r) => [r.role, r.text]).reverse(), [
      ["user", "I moved to Lisbon last year"],
      ["assistant", "Lisbon is lovely."],
    ]);
  });

  test("recallHook picks the hook auto-recall runs in", async () => {
    assert.deepEqual(host().hookNames(), ["agent_end", "before_prompt_build", "before_reset"]);
    const legacy = host({ recallHook: "before_agent_start" });
    assert.deepEqual(legacy.hookNames(), ["agent_end", "before_agent_start", "before_reset"]);
    const recalled = await legacy.beforeAgentStart({ prompt: "Which foods should I avoid because of allergies?" }, ANN);
    assert.match(recalled.prependContext ?? "", /allergic to peanuts/);
    assert.deepEqual(host({ autoRecall: false, autoCapture: false, sessionSummary: false }).hookNames(), []);
  });

  test("autoRecall off and short prompts ask remem nothing; a failed turn is not captured", async () => {
    const h = host({ autoRecall: false, autoRecallMinLength: 15 });
    assert.deepEqual(await h.beforeAgentStart({ prompt: "Which foods should I avoid?" }, ANN), {});
    const ctx = { ...ANN, sessionKey: "agent:main:telegram:dm:failed" };
    await h.agentEnd({ ...turn("Please remember that I like tea"), success: false }, ctx);
    assert.deepEqual(await records({ session: ctx.sessionKey }), []);
    const short = host({ autoRecallMinLength: 15 });
    assert.deepEqual(await short.beforeAgentStart({ prompt: "peanuts?" }, ANN), {});
  });
});

describe("session reset", () => {
  test("/new stores the session's summary in the session's identity, once", async () => {
    const h = host();
    const ctx = { ...ANN, sessionKey: "agent:main:telegram:dm:ann-reset" };
    await h.agentEnd(turn("Please remember that I water the ferns on Thursdays"), ctx);
    await h.beforeReset({ reason: "new", messages: [] }, ctx);
    assert.deepEqual(h.warnings(), []);
    const summaries = (await records({ kind: "memory", scope: "user:ann" })).filter((m) =>
      String(m.text).startsWith(`Summary of session ${ctx.sessionKey}`),
    );
    assert.equal(summaries.length, 1);
    assert.match(summaries[0].text, /ferns on Thursdays/);
    assert.ok(h.logs.some((l) => l.level === "info" && /summary is saved to memory/.test(l.message)));
    // a second /new on the same messages stores nothing new
    await h.beforeReset({ reason: "new" }, ctx);
    const again = (await records({ kind: "memory", scope: "user:ann" })).filter((m) =>
      String(m.text).startsWith(`Summary of session ${ctx.sessionKey}`),
    );
    assert.equal(again.length, 1);
  });

  test("sessionSummary off registers no reset hook; a reset without a session key summarises nothing", async () => {
    assert.ok(!host({ sessionSummary: false }).hookNames().includes("before_reset"));
    const fallbackSession = "openclaw:reset-without-identity"; // not the identities tests' session
    const h = host({ captureWithoutIdentity: true, fallbackSession });
    await h.agentEnd(turn("Please remember that the spare key is under the mat"), { agentId: "main" });
    assert.equal((await records({ kind: "message", session: fallbackSession })).length, 1);
    await h.beforeReset({ reason: "new" }, { agentId: "main" });
    assert.deepEqual(h.warnings(), []);
    const all = await records({ kind: "memory" });
    assert.ok(!all.some((m) => String(m.text).startsWith(`Summary of session ${fallbackSession}`)));
  });
});

describe("identities", () => {
  test("an event without an identity is archived under the fallback session, never under the last user's", async () => {
    const h = host();
    await h.agentEnd(turn("Please remember that I keep bees"), ANN); // the last identified user
    await h.agentEnd(turn("Please remember that I collect stamps"), {}); // no session, no sender
    const fallback = await records({ kind: "message", session: FALLBACK_SESSION });
    assert.deepEqual(fallback.map((r) => [r.text, r.speaker_id ?? null]), [
      ["Please remember that I collect stamps", null],
    ]);
    const annSaid = (await records({ kind: "message", session: ANN.sessionKey })).map((r) => r.text);
    assert.ok(!annSaid.some((t: string) => t.includes("stamps")), "filed in Ann's session");
    assert.ok(h.logs.some((l) => l.message.includes(`archived under ${FALLBACK_SESSION}`)));
    // no curated memory by default: it would go to the agent's scope, which Ann reads too
    const memories = async (word: string) =>
      (await records({ kind: "memory" })).filter((m) => m.text.includes(word));
    assert.deepEqual(await memories("stamps"), []);
    const recalled = await h.beforeAgentStart({ prompt: "What do I collect as a hobby, stamps?" }, ANN);
    assert.doesNotMatch(recalled.prependContext ?? "", /stamps/);

    // asked for, it is captured into the agent's own scope, not Ann's
    const opted = host({ captureWithoutIdentity: true });
    await opted.agentEnd(turn("Please remember that I collect coins"), { agentId: "main" });
    const coins = await memories("coins");
    assert.deepEqual(coins.map((m) => [m.scope, m.speaker_id ?? null]), [["agent:openclaw", null]]);
  });

  test("a configured fallbackSession is used instead", async () => {
    const h = host({ fallbackSession: "openclaw:anonymous-test" });
    await h.agentEnd(turn("Please remember that I like chess"), { agentId: "main" });
    const archived = await records({ kind: "message", session: "openclaw:anonymous-test" });
    assert.deepEqual(archived.map((r) => r.text), ["Please remember that I like chess"]);
  });
});

describe("memory tools", () => {
  test("the tools registered are remem's, with the same argument schemas", async () => {
    assert.deepEqual(host().toolNames(), [
      "conversation_recall",
      "memory_facts",
      "memory_forget",
      "memory_recall",
      "memory_store",
      "memory_update",
    ]);
    assert.deepEqual(host({ enableManagementTools: true }).toolNames().length, 8);
    const specs = (await (await fetch(`${remem.url}/v1/tools`)).json()) as Array<{
      name: string;
      input_schema: { properties: Record<string, unknown>; required?: string[] };
    }>;
    assert.deepEqual(specs.map((s) => s.name).sort(), Object.keys(TOOL_SPECS).sort());
    for (const spec of specs) {
      const mine = TOOL_SPECS[spec.name].parameters as { properties: object; required: string[] };
      assert.deepEqual(Object.keys(mine.properties).sort(), Object.keys(spec.input_schema.properties).sort(), spec.name);
      assert.deepEqual(mine.required, spec.input_schema.required ?? [], spec.name);
    }
  });

  test("store, recall, update, forget and conversation_recall round-trip through remem", async () => {
    const h = host();
    const ctx = { agentId: "main", sessionKey: "agent:main:discord:dm:cleo", senderId: "cleo" };
    const stored = await h.call("memory_store", ctx, { text: "Cleo's cat is called Miso", category: "entity" });
    const memory = (stored.details as any).memory;
    assert.equal((stored.details as any).stored, true);
    assert.equal(memory.scope, "user:cleo");

    const found = await h.call("memory_recall", ctx, { query: "what is the name of Cleo's cat" });
    assert.deepEqual((found.details as any).memories.map((m: any) => m.id), [memory.id]);
    assert.match(found.content[0].text, /Miso/);
    const others = await h.call("memory_recall", BOB, { query: "what is the name of Cleo's cat" });
    assert.deepEqual((others.details as any).memories, []);

    const updated = await h.call("memory_update", ctx, { memory_id: memory.id, text: "Cleo's cat is called Mochi" });
    const newId = (updated.details as any).memory.id;
    assert.equal((updated.details as any).replaced, memory.id);
    const after = await h.call("memory_recall", ctx, { query: "what is the name of Cleo's cat" });
    assert.deepEqual((after.details as any).memories.map((m: any) => m.text), ["Cleo's cat is called Mochi"]);

    const refused = await h.call("memory_forget", BOB, { memory_id: newId });
    assert.match(refused.content[0].text, /^memory_forget failed: .*400.*no memory/);
    const forgotten = await h.call("memory_forget", ctx, { memory_id: newId });
    assert.deepEqual((forgotten.details as any).forgotten.map((m: any) => m.id), [newId]);
    const gone = await h.call("memory_recall", ctx, { query: "what is the name of Cleo's cat" });
    assert.deepEqual((gone.details as any).memories, []);

    await h.agentEnd(turn("The vet appointment is on Friday at noon"), ctx);
    const chat = await h.call("conversation_recall", ctx, { query: "when is the vet appointment" });
    assert.match(chat.content[0].text, /vet appointment is on Friday/);
  });

  test("a refused call answers the model with remem's reason", async () => {
    const out = await host().call("memory_store", ANN, { text: "x", category: "gossip" });
    assert.match(out.content[0].text, /^memory_store failed: POST \/v1\/tools\/memory_store: remem answered 400: memory_store: category/);
  });
});

describe("a remem that is down", () => {
  test("hooks log a clear warning and the turn goes on; tools say why", async () => {
    const port = await freePort(); // nothing listens there
    const h = new TestHost(plugin, { baseUrl: `http://127.0.0.1:${port}`, autoRecall: true, autoRecallMinLength: 1 });
    const started = Date.now();
    assert.deepEqual(await h.beforeAgentStart({ prompt: "What do I like to eat?" }, ANN), {});
    await h.agentEnd(turn("Please remember that I like figs"), ANN);
    const warnings = h.warnings();
    assert.equal(warnings.length, 2);
    assert.match(warnings[0], new RegExp(`auto-recall skipped .*remem is not reachable at http://127.0.0.1:${port} \\(ECONNREFUSED\\).*remem serve`));
    assert.match(warnings[1], /auto-capture skipped .*not reachable/);
    const out = await h.call("memory_recall", ANN, { query: "figs" });
    assert.match(out.content[0].text, /^memory_recall failed: remem is not reachable/);
    await h.beforeReset({ reason: "new" }, ANN); // resolves: the host's /new goes on
    assert.equal(h.warnings().length, 3);
    assert.match(h.warnings()[2], /session summary skipped for this reset: remem is not reachable/);
    assert.ok(Date.now() - started < 5000, "a refused connection fails fast");
  });

  test("a remem that does not answer in time is given up on after autoRecallTimeoutMs", async () => {
    const { createServer } = await import("node:http");
    const silent = createServer(() => {}); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const h = new TestHost(plugin, {
        baseUrl: `http://127.0.0.1:${port}`,
        autoRecall: true,
        autoRecallMinLength: 1,
        autoRecallTimeoutMs: 300,
      });
      assert.deepEqual(await h.beforeAgentStart({ prompt: "What do I like to eat?" }, ANN), {});
      assert.match(h.warnings()[0], /no answer in 300 ms/);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
