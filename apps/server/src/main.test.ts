import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ServerProcess, startServerProcess } from "./tests/server-process.js";

const dirs: string[] = [];
const servers: ServerProcess[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.kill();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "vetted-main-"));
  dirs.push(dir);
  return dir;
}

// Each test starts real server processes (tsx compiles on start-up), slow on a loaded 2-core machine.
describe("the server process", { timeout: 60_000 }, () => {
  it("starts on an ephemeral loopback port, creates its database and answers /healthz", async () => {
    const dataDir = join(tempDir(), "data");
    const server = await startServerProcess({ VETTED_DATA_DIR: dataDir });
    servers.push(server);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok", database: { ok: true } });
    expect(existsSync(join(dataDir, "vetted.db"))).toBe(true);
    expect(await server.stop()).toBe(0);
  });

  it("starts again on the same database file", async () => {
    const dataDir = tempDir();
    const first = await startServerProcess({ VETTED_DATA_DIR: dataDir });
    servers.push(first);
    expect(await first.stop()).toBe(0);
    const second = await startServerProcess({ VETTED_DATA_DIR: dataDir });
    servers.push(second);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
    expect(await second.stop()).toBe(0);
  });

  it("refuses to start with a bad configuration and says why", async () => {
    await expect(startServerProcess({ VETTED_DATA_DIR: tempDir(), PORT: "nope" })).rejects.toThrow(
      /PORT must be a number/,
    );
  });

  it("serves the OpenAPI document and the docs page", async () => {
    const server = await startServerProcess({ VETTED_DATA_DIR: tempDir() });
    servers.push(server);
    expect((await fetch(`${server.url}/api/openapi.json`)).status).toBe(200);
    expect((await fetch(`${server.url}/api/docs`)).status).toBe(200);
  });
});
