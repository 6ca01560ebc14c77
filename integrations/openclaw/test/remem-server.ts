/**
 * A real `remem serve` for the tests: a temp SQLite store and config, a free 127.0.0.1 port,
 * started by the binary in $REMEM_BIN (default `remem` from PATH) and awaited on /healthz.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RememServer {
  url: string;
  dir: string;
  stop(): Promise<void>;
}

/** The remem config of these tests: OpenClaw's agent reads its users' scopes and captures
 * into the user's own (`user:{user}`), so a misfiled memory would show in its scope; a session
 * reset stores the session's summary (capture.session_summary). */
const CONFIG = `
[store]
path = "STORE"
[indexing]
mode = "sync"
[scopes]
agent = "openclaw"
[scopes.agents]
openclaw = ["global", "agent:openclaw", "user:{user}"]
[capture]
scope = "user:{user}"
session_summary = true
`;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `extra`: more TOML, appended to the config (e.g. a [server] section with tokens). */
export async function startRemem(extra = ""): Promise<RememServer> {
  const dir = mkdtempSync(join(tmpdir(), "remem-openclaw-"));
  const config = join(dir, "remem.toml");
  writeFileSync(config, CONFIG.replace("STORE", join(dir, "remem.db").replaceAll("\\", "/")) + extra);
  const bin = process.env.REMEM_BIN || "remem";
  let lastError = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    // a port found free can be taken before remem binds it: then try another one
    const port = await freePort();
    const child = spawn(bin, ["--config", config, "serve", "--host", "127.0.0.1", "--port", String(port)], {
      env: { ...process.env, OMP_WAIT_POLICY: "passive", REMEM_CONFIG: config },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const url = `http://127.0.0.1:${port}`;
    const up = await waitHealthy(url, child, 120_000);
    if (up) {
      return { url, dir, stop: () => stop(child, dir) };
    }
    lastError = `remem serve (${bin}) did not come up on ${url}: ${stderr.slice(-2000)}`;
    await stop(child);
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error(lastError + "\n(set REMEM_BIN to the remem binary)");
}

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<boolean> {
  const exited = new Promise<false>((resolve) => {
    child.once("exit", () => resolve(false));
    child.once("error", () => resolve(false));
  });
  const deadline = Date.now() + timeoutMs;
  const poll = (async () => {
    while (Date.now() < deadline && child.exitCode === null) {
      try {
        const r = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
        if (r.ok) return true;
      } catch {
        // not listening yet: the next poll waits on the connect attempt itself
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return false;
  })();
  return Promise.race([poll, exited]);
}

async function stop(child: ChildProcess, dir?: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await gone;
    clearTimeout(timer);
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}
