/**
 * A throw-away npm registry on loopback for the consumer test: verdaccio, installed on demand with plain npm
 * into a cache folder outside the workspace (so no `pnpm install` pays for it), started with a temp storage
 * and a generated config: `@vetted/*` served only from this registry (anyone may publish), everything else
 * proxied to registry.npmjs.org. The npmrc it writes sends npm here for the `@vetted` scope only.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * The verdaccio version installed and started (pinned: the cache folder is named after it). The newest that
 * runs on Node 20 (6.9 and later require Node 22; our packages support Node 20.12).
 */
export const VERDACCIO_VERSION = "6.8.0";

/** The environment of a child npm/pnpm: ours minus every npm_config_* a parent pnpm set, plus `extra`. */
export function npmEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && !/^pnpm_/i.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

/** The folder verdaccio is installed into: `$XDG_CACHE_HOME/vetted/verdaccio-<version>` (or ~/.cache/…). */
function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "vetted", `verdaccio-${VERDACCIO_VERSION}`);
}

/**
 * The path of verdaccio's bin, installing it first when the cache folder lacks it. The install goes to a
 * sibling folder renamed into place when complete, so an interrupted install is never reused.
 */
export async function ensureVerdaccio(): Promise<{ bin: string; installed: boolean }> {
  const dir = cacheDir();
  const bin = join(dir, "node_modules", "verdaccio", "bin", "verdaccio");
  const manifest = join(dir, "node_modules", "verdaccio", "package.json");
  if (existsSync(bin) && existsSync(manifest)) {
    const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
    if (version === VERDACCIO_VERSION) return { bin, installed: false };
  }
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  // verdaccio asks for `node-fetch@cjs`, a dist-tag (2.7.0 on registry.npmjs.org) some mirrors lack.
  const manifestText = { private: true, overrides: { "node-fetch": "2.7.0" } };
  writeFileSync(join(staging, "package.json"), `${JSON.stringify(manifestText)}\n`);
  await run(
    "npm",
    [
      "install",
      `verdaccio@${VERDACCIO_VERSION}`,
      "--registry=https://registry.npmjs.org/",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    { cwd: staging, env: npmEnv(), timeout: 480_000, maxBuffer: 64 * 1024 * 1024 },
  );
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return { bin, installed: true };
}

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released for verdaccio to take). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function config(storage: string, port: number): string {
  return `storage: ${JSON.stringify(storage)}
auth:
  htpasswd:
    file: ${JSON.stringify(join(storage, "..", "htpasswd"))}
uplinks:
  npmjs:
    url: https://registry.npmjs.org/
    timeout: 60s
packages:
  "@vetted/*":
    access: $all
    publish: $all
    unpublish: $all
  "**":
    access: $all
    publish: $authenticated
    proxy: npmjs
server:
  keepAliveTimeout: 60
listen: 127.0.0.1:${port}
log: { type: stdout, format: pretty, level: error }
`;
}

/** A running registry: its URL, a publish token, and how to stop it. */
export interface Registry {
  url: string;
  token: string;
  /** The path of an npmrc pointing npm at this registry for `@vetted/*`, with the token (a `--userconfig`). */
  npmrc: string;
  stop(): Promise<void>;
}

async function waitUntilUp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(`${url}-/ping`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`verdaccio did not answer ${url}-/ping within 30 s:\n${output()}`);
}

/** Registers a user on the fresh registry and answers its token (what `npm adduser` does). */
async function addUser(url: string): Promise<string> {
  const name = "vetted-consumer-test";
  const response = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: "throw-away-password" }),
  });
  const body = (await response.json()) as { token?: unknown };
  if (!response.ok || typeof body.token !== "string")
    throw new Error(`verdaccio refused to add a user: ${response.status} ${JSON.stringify(body)}`);
  return body.token;
}

/** Starts verdaccio from `bin` with its storage and config under `workDir`; stopped by `stop()` or on exit. */
export async function startRegistry(bin: string, workDir: string): Promise<Registry> {
  const port = await freePort();
  const storage = join(workDir, "storage");
  mkdirSync(storage, { recursive: true });
  const configFile = join(workDir, "config.yaml");
  writeFileSync(configFile, config(storage, port));
  const child = spawn(process.execPath, [bin, "--config", configFile], {
    cwd: workDir,
    stdio: ["ignore", "pipe", "pipe"],
    env: npmEnv(),
  });
  let log = "";
  const collect = (chunk: Buffer) => {
    log = (log + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const kill = () => child.kill("SIGKILL");
  process.on("exit", kill);
  const stop = async () => {
    process.off("exit", kill);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    const timer = setTimeout(kill, 5_000);
    await exited;
    clearTimeout(timer);
  };
  const url = `http://127.0.0.1:${port}/`;
  try {
    await waitUntilUp(url, child, () => log);
    const token = await addUser(url);
    const npmrc = join(workDir, "npmrc");
    // npm asks this registry for @vetted/* only and npmjs for the rest itself (with its own cache): through
    // verdaccio's proxy, drizzle-orm's 72 MB packument alone takes ~25 s per install on a loaded machine.
    const lines = [
      "registry=https://registry.npmjs.org/",
      `@vetted:registry=${url}`,
      `//127.0.0.1:${port}/:_authToken=${token}`,
    ];
    writeFileSync(npmrc, `${lines.join("\n")}\n`);
    return { url, token, npmrc, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
