import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { listenFailure, warnUnusableRoots } from "./startup.js";
import { type ServerProcess, serverCommand, startServerProcess } from "./tests/server-process.js";

const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));
const dirs: string[] = [];
const servers: ServerProcess[] = [];
const blockers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.kill();
  for (const b of blockers.splice(0)) await new Promise((r) => b.close(r));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-startup-")));
  dirs.push(dir);
  return dir;
}

/**
 * Runs the server (its build when current, else `src/main.ts` through tsx: {@link serverCommand}) until it
 * exits on its own; answers its exit code and what it wrote to stderr.
 */
async function runUntilExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, serverCommand(), {
    cwd: SERVER_DIR,
    env: { ...process.env, HOST: "127.0.0.1", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 40_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stderr };
}

describe("starting the server process", { timeout: 60_000 }, () => {
  it("says in one line that the port is taken, naming host:port, and exits with code 1", async () => {
    const blocker = createServer();
    blockers.push(blocker);
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const address = blocker.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const { code, stderr } = await runUntilExit({
      VETTED_DATA_DIR: join(tempDir(), "data"),
      PORT: String(address.port),
    });
    expect(code).toBe(1);
    const lines = stderr.trim().split("\n");
    expect(lines).toEqual([
      `vetted: cannot listen on 127.0.0.1:${address.port}: the address is already in use (EADDRINUSE); stop the other process or choose another PORT.`,
    ]);
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it("warns once per allowed root that is missing or not a folder, and still starts", async () => {
    const dir = tempDir();
    const present = join(dir, "present");
    mkdirSync(present);
    writeFileSync(join(dir, "a-file"), "x");
    const missing = [join(dir, "gone-1"), join(dir, "gone-2")];
    const server = await startServerProcess({
      VETTED_DATA_DIR: join(dir, "data"),
      VETTED_ALLOWED_ROOTS: [present, ...missing, join(dir, "a-file")].join(","),
    });
    servers.push(server);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const warnings = () =>
      server
        .stderr()
        .split("\n")
        .filter((line) => line.includes("allowed root"));
    for (let i = 0; i < 100 && warnings().length < 3; i++) await new Promise((r) => setTimeout(r, 20));
    const messages = warnings().map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(messages.map((m) => m.level)).toEqual(["warn", "warn", "warn"]);
    expect(messages[0]?.msg).toContain(`${missing[0]} does not exist`);
    expect(messages[1]?.msg).toContain(`${missing[1]} does not exist`);
    expect(messages[2]?.msg).toContain(`${join(dir, "a-file")} is not a folder`);
    expect(server.stderr()).not.toContain(`allowed root ${present}`);
  });
});

describe("start-up helpers", () => {
  it("names the address of every listen failure, bracketing IPv6 hosts", () => {
    const err = Object.assign(new Error("listen EACCES"), { code: "EACCES" });
    expect(listenFailure(err, "::1", 80)).toBe(
      "vetted: cannot listen on [::1]:80: permission denied (EACCES); choose a PORT above 1023.",
    );
  });

  it("answers the roots it warned about and stays silent about existing folders", () => {
    const dir = tempDir();
    const said: string[] = [];
    const warned = warnUnusableRoots([dir, join(dir, "nope")], { warn: (msg) => said.push(msg) });
    expect(warned).toEqual([join(dir, "nope")]);
    expect(said).toHaveLength(1);
  });
});
