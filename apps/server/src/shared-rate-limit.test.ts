import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

const LIMIT = 8;
const SYNC_MS = 200;

describe("rate limits shared by two server processes on one database file", { timeout: 90_000 }, () => {
  let dir: string;
  let servers: ServerProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "vetted-shared-rate-"));
    const env = {
      VETTED_DATA_DIR: join(dir, "data"),
      VETTED_ALLOWED_ROOTS: dir,
      VETTED_JOURNAL_KEY: "a-test-journal-key-of-some-length",
      VETTED_RATE_LIMIT_PER_MINUTE: String(LIMIT),
      VETTED_RATE_LIMIT_SYNC_MS: String(SYNC_MS),
    };
    // One after the other: the second finds the database the first migrated.
    servers.push(await startServerProcess(env));
    servers.push(await startServerProcess(env));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    servers = [];
    rmSync(dir, { recursive: true, force: true });
  });

  const hit = async (server: ServerProcess) => {
    const res = await fetch(`${server.url}/healthz`);
    await res.arrayBuffer();
    return { status: res.status, remaining: res.headers.get("RateLimit-Remaining") };
  };
  const exchanged = () => new Promise((r) => setTimeout(r, SYNC_MS * 4));

  it("counts the hits of both: the limit holds in total, not per process", async () => {
    const [a, b] = servers;
    if (a === undefined || b === undefined) throw new Error("two servers expected");
    const first = [];
    for (let i = 0; i < LIMIT / 2; i++) first.push(await hit(a));
    expect(first.map((r) => r.status)).toEqual(first.map(() => 200));
    await exchanged();
    // B has seen A's hits: it has only the other half left.
    const second = [];
    for (let i = 0; i < LIMIT / 2; i++) second.push(await hit(b));
    expect(second.map((r) => r.status)).toEqual(second.map(() => 200));
    expect(second.at(-1)?.remaining).toBe("0");
    await exchanged();
    // The limit is spent on both servers (per process, each would still allow half of it).
    expect((await hit(a)).status).toBe(429);
    expect((await hit(b)).status).toBe(429);
  });
});
