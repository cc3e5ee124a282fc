import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@vetted/store/database";
import type { RunsError } from "../kernel/errors.js";
import { createRunsEngine, type RunsEngineOptions } from "../platform.js";
import { migrate } from "../store/migrate.js";

/** Where tests cache the parsed local word vectors (shared across test files and runs: later loads are fast). */
export const TEST_CACHE_DIR = join(tmpdir(), "vetted-embeddings-cache");

/** The secrets key test engines use (every engine over one database needs the same key). */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 7);

/** An engine over `db` with the test key, a short lease and a fast poll (each overridable). */
function testEngineOver(db: RunsEngineOptions["db"], options: Partial<RunsEngineOptions>) {
  return createRunsEngine({ db, secretsKey: TEST_SECRETS_KEY, leaseMs: 1000, pollMs: 50, ...options });
}

/**
 * A migrated temporary SQLite file, opened as the server opens it (`@vetted/store`'s guarded client; another
 * process's write lock is waited out `busyTimeoutMs`), and an engine over it.
 */
export async function openTestEngine(options: Partial<RunsEngineOptions> = {}, busyTimeoutMs = 5000) {
  const dir = mkdtempSync(join(tmpdir(), "vetted-runs-"));
  const file = join(dir, "runs.db");
  const { db, client } = await openDatabase({ url: `file:${file}`, busyTimeoutMs });
  await migrate(db);
  const engine = testEngineOver(db, options);
  return {
    db,
    client,
    engine,
    file,
    async close() {
      await engine.stop();
      client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One request the fake shop received. */
export interface Received {
  method: string;
  path: string;
  body: unknown;
}

/** A `node:http` server on 127.0.0.1 playing a shop: `/cart` → id, `/pay` accepts OTP `123456` only. */
export async function startShop(): Promise<{
  url: string;
  received: Received[];
  server: Server;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let text = "";
    for await (const chunk of req) text += String(chunk);
    const body = text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    const path = req.url ?? "/";
    received.push({ method: req.method ?? "GET", path, body });
    res.setHeader("Content-Type", "application/json");
    if (path === "/cart") {
      res.end(JSON.stringify({ id: "cart_1" }));
    } else if (path === "/pay") {
      const ok = body?.otp === "123456";
      res.statusCode = ok ? 200 : 402;
      res.end(JSON.stringify({ paid: ok }));
    } else {
      res.end(JSON.stringify({ ok: true }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls `read` until `done` holds, or throws after `timeoutMs`. */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A second engine (its own connection, its own worker id) over the database file of another one. */
export async function openSecondEngine(file: string, options: Partial<RunsEngineOptions> = {}) {
  const { db, client } = await openDatabase({ url: `file:${file}`, busyTimeoutMs: 5000 });
  const engine = testEngineOver(db, options);
  return {
    engine,
    async close() {
      await engine.stop();
      client.close();
    },
  };
}

/** The `code` of the error `p` rejects with, or `undefined` when it resolves. */
export async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return (err as RunsError).code;
  }
}
