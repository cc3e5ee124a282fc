import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type Page } from "@playwright/test";
import { type ServerProcess, startServerProcess } from "../../server/src/tests/server-process.js";

/** Debian's Chromium (or `VETTED_CHROMIUM_PATH`); Playwright never downloads one. */
export function chromiumPath(): string {
  return process.env.VETTED_CHROMIUM_PATH ?? "/usr/bin/chromium";
}

export const WEB_DIST = fileURLToPath(new URL("../dist", import.meta.url));
const RESULTS = fileURLToPath(new URL("../test-results", import.meta.url));

/** A real server child process over a temporary data dir, serving the built console. */
export interface TestServer {
  url: string;
  /** The server's data directory (its SQLite file lives here). */
  dataDir: string;
  /** A directory inside the allowed roots, for fileorg tests. */
  root: string;
  process: ServerProcess;
  /** Calls the API with JSON; throws on a non-2xx answer with the server's error envelope. */
  api<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<T>;
}

/** Extra server env for a spec file: `test.use({ serverEnv: { ... } })` (a new server per distinct env). */
export interface ServerOptions {
  serverEnv: Record<string, string>;
}

async function startTestServer(extraEnv: Record<string, string>): Promise<TestServer & { cleanup(): void }> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-web-e2e-")));
  const dataDir = join(dir, "data");
  const root = join(dir, "root");
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(root, { recursive: true });
  const proc = await startServerProcess(
    {
      VETTED_DATA_DIR: dataDir,
      VETTED_ALLOWED_ROOTS: root,
      VETTED_WEB_DIST: WEB_DIST,
      VETTED_CHROMIUM_PATH: chromiumPath(),
      VETTED_RUNS_LEASE_MS: "15000",
      VETTED_RUNS_POLL_MS: "100",
      LOG_LEVEL: "warn",
      ...extraEnv,
    },
    60_000,
  );
  const url = proc.url;
  return {
    url,
    dataDir,
    root,
    process: proc,
    async api<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const send = () =>
        fetch(new URL(path, url), {
          method,
          headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      // A GET on a kept-alive connection the server closed at that moment is sent again, once, on a new one
      // (a server that died answers the second try with ECONNREFUSED, and the test fails).
      const res = await send().catch((err: unknown) => {
        const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
        if (method === "GET" && cause?.code === "ECONNRESET") return send();
        throw err;
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
      return (text === "" ? undefined : JSON.parse(text)) as T;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * `test` with a worker-scoped `server` (one real server per worker and `serverEnv`) and `baseURL` set to it.
 * Specs: `import { test, expect } from "./harness.js"`, then `page.goto("/runs")`.
 */
export const test = base.extend<
  { serverEnv: Record<string, string> },
  { server: TestServer } & ServerOptions
>({
  serverEnv: [{}, { option: true, scope: "worker" }] as never,
  server: [
    async ({ serverEnv }, use) => {
      const s = await startTestServer(serverEnv);
      try {
        await use(s);
      } finally {
        await s.process.stop();
        s.cleanup();
      }
    },
    { scope: "worker", timeout: 90_000 },
  ],
  baseURL: async ({ server }, use) => use(server.url),
});

export { expect };

/** Axe check of the page: fails on any serious or critical violation (listing them). */
export async function expectAccessible(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes)`)).toEqual([]);
}

/** Saves a full-page screenshot to `apps/web/test-results/screenshots/<name>.png` (gitignored). */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  const path = join(RESULTS, "screenshots", `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Writes a file (creating directories) — for seeding folders and documents. */
export function writeFile(path: string, content: string | Buffer): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, content);
}

/** Aborts every request that leaves the machine; answers the list of what was tried. */
export async function cutOffNetwork(page: Page): Promise<string[]> {
  const external: string[] = [];
  await page.context().route("**/*", (route) => {
    const host = new URL(route.request().url()).hostname;
    if (host === "127.0.0.1" || host === "localhost" || host === "[::1]") return route.continue();
    external.push(route.request().url());
    return route.abort();
  });
  return external;
}
