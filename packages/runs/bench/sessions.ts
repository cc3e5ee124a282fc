/**
 * Bench: session start from a warm browser. Each round opens N recording sessions through the sessions
 * engine (context with HAR recording and the recorder, navigation to the local test site's login page, a
 * row in SQLite) and, back to back, N bare playwright-core contexts that open the same page on the same
 * warm browser — the baseline. Prints p50/p95 of both and their ratio; the target is a session-start p95 of
 * at most 300 ms. Run with `pnpm --filter @vetted/runs bench:sessions`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { chromium } from "playwright-core";
import { createBrowserHost, createRunsEngine, findChromium, migrate } from "../src/index.js";
import { createSessionsEngine } from "../src/lanes/sessions/index.js";
import { startTestSite } from "../src/testing.js";

const N = Number(process.env.BENCH_SESSIONS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const executablePath = findChromium(process.env);
if (executablePath === undefined) throw new Error("no Chromium: apt-get install -y chromium");

const dir = mkdtempSync(join(tmpdir(), "vetted-sessions-bench-"));
const client = createClient({ url: `file:${join(dir, "bench.db")}`, timeout: 5000 });
await client.execute("PRAGMA journal_mode = WAL");
const db = drizzle(client);
await migrate(db);
const site = await startTestSite();
const host = createBrowserHost({ executablePath, maxContexts: 4 });
const runs = createRunsEngine({ db, secretsKey: Buffer.alloc(32, 7), browser: host, dataDir: dir });
const sessions = createSessionsEngine({ db, browser: host, dataDir: dir, createFlow: runs.createFlow });
const baselineBrowser = await chromium.launch({ executablePath, headless: true });
const url = `${site.url}/login`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function timeSession(): Promise<number> {
  const started = performance.now();
  const session = await sessions.startSession({ start_url: url });
  const ms = performance.now() - started;
  await sessions.finishSession(session.id);
  // A person drives a session for a while: by the next start the engine's spare context is open.
  await sessions.warmUp();
  return ms;
}

async function timeBaseline(): Promise<number> {
  const started = performance.now();
  const context = await baselineBrowser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(url, { waitUntil: "domcontentloaded" });
  const ms = performance.now() - started;
  await context.close();
  return ms;
}

// Warm both browsers first (launch, first page), so only session start is measured.
await host.warm();
await sessions.warmUp();
await timeSession();
await timeBaseline();

const engineMs: number[] = [];
const baselineMs: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < N; i++) engineMs.push(await timeSession());
  for (let i = 0; i < N; i++) baselineMs.push(await timeBaseline());
}

const fmt = (n: number) => n.toFixed(1);
const p95 = percentile(engineMs, 95);
const baseP95 = percentile(baselineMs, 95);
console.log(`session start, warm browser (${engineMs.length} sessions, ${ROUNDS} rounds)`);
console.log(`  engine   p50 ${fmt(percentile(engineMs, 50))} ms  p95 ${fmt(p95)} ms`);
console.log(
  `  baseline p50 ${fmt(percentile(baselineMs, 50))} ms  p95 ${fmt(baseP95)} ms (bare context + page + goto)`,
);
console.log(`  ratio baseline p95 / engine p95: ${(baseP95 / p95).toFixed(2)}`);
console.log(`  target p95 <= 300 ms: ${p95 <= 300 ? "met" : "NOT met"} (${fmt(p95)} ms)`);

await baselineBrowser.close();
await sessions.close();
await host.close();
await site.close();
client.close();
rmSync(dir, { recursive: true, force: true });
