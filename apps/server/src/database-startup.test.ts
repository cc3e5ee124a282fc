import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeCause, displayDatabaseUrl } from "./database-startup.js";
import { startServerProcess } from "./tests/server-process.js";

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A loopback HTTP server answering every request with `status`, and its port. */
async function listen(status: number): Promise<number> {
  const server = createServer((_req, res) => res.writeHead(status).end("not a database"));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** A loopback port nothing listens on (it did a moment ago). */
async function closedPort(): Promise<number> {
  const port = await listen(200);
  const server = servers.pop();
  await new Promise((resolve) => server?.close(resolve));
  return port;
}

/** Starts the real server process against `env`; answers its exit code and stderr, as it must not start. */
async function failedStart(env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "vetted-db-startup-"));
  dirs.push(dataDir);
  const error = await startServerProcess({ VETTED_DATA_DIR: dataDir, ...env }, 45_000).then(
    () => new Error("the server started"),
    (err: unknown) => err,
  );
  const match = /^server exited with code (\d+) before listening:\n([\s\S]*)$/.exec(
    String((error as Error).message),
  );
  if (match === null) throw error;
  return { code: Number(match[1]), stderr: match[2] ?? "" };
}

const TOKEN = "tok-3d1f9a";

describe("starting on an unusable database", { timeout: 60_000 }, () => {
  it("exits non-zero with one line naming the database, without its token, and the cause", async () => {
    const port = await closedPort();
    const { code, stderr } = await failedStart({
      DATABASE_URL: `libsql://127.0.0.1:${port}?authToken=${TOKEN}`,
      DATABASE_AUTH_TOKEN: TOKEN,
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `vetted: failed to start: cannot use the database libsql://127.0.0.1:${port}: fetch failed: connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
  });

  it("says what a server that is no database answered", async () => {
    const port = await listen(404);
    const { code, stderr } = await failedStart({ DATABASE_URL: `http://127.0.0.1:${port}` });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `vetted: failed to start: cannot use the database http://127.0.0.1:${port}: SERVER_ERROR: Server returned HTTP status 404: not a database\n`,
    );
  });

  it("names the cause of the port the issue tried (a port fetch refuses)", async () => {
    const { code, stderr } = await failedStart({ DATABASE_URL: "libsql://127.0.0.1:1" });
    expect(code).toBe(1);
    expect(stderr).toBe(
      "vetted: failed to start: cannot use the database libsql://127.0.0.1:1: fetch failed: bad port\n",
    );
  });
});

describe("the start-up error's parts", () => {
  it("shows a remote URL without user, password or query, and a file URL as it is", () => {
    expect(displayDatabaseUrl(`libsql://me:${TOKEN}@db.example.com/x?authToken=${TOKEN}`)).toBe(
      "libsql://db.example.com/x",
    );
    expect(displayDatabaseUrl("file:/var/lib/vetted/vetted.db")).toBe("file:/var/lib/vetted/vetted.db");
  });

  it("walks the cause chain on one line, leaving out the quoted SQL of a failed query", () => {
    const error = new Error(
      'Failed query: \n\tCREATE TABLE IF NOT EXISTS "__runs_migrations" (\n\t)\nparams: ',
      {
        cause: new TypeError("fetch failed", { cause: new Error("connect ECONNREFUSED 127.0.0.1:9") }),
      },
    );
    expect(describeCause(error)).toBe("fetch failed: connect ECONNREFUSED 127.0.0.1:9");
  });

  it("clips a long message (a server may answer with a whole page)", () => {
    const page = `<html>${"x".repeat(5000)}</html>`;
    expect(describeCause(new Error("bad answer", { cause: new Error(page) }))).toBe(
      `bad answer: ${page.slice(0, 300)}…`,
    );
  });
});
