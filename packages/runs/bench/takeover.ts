/**
 * Bench: a person's click on a taken-over page. A run waits at an approval gate on the test site's takeover
 * page; the bench takes control (with a live view open, as in the console) and sends N clicks through the
 * live-view input path (`engine.sendInput`: the run's checks, the recorded `takeover_input` event, the CDP
 * mouse events) ÷ the same click dispatched directly on the same page: the live view's CDP dispatch
 * (`dispatchInput`, the baseline) on a CDP session of its own, and Playwright's `page.mouse.click`. Each
 * click is timed from the moment it is sent to the moment the page's own click listener ran (the page's
 * clock: `performance.timeOrigin + now()`, the same system clock as this process's), and to the moment the
 * call returned. Clicks rotate between the three paths so a load change on a shared machine hits them
 * alike. Target: live-view p95 ≤ 150 ms. Before the clicks, `first-frame.ts` times the live view's first
 * frame after a run's gate opens (target ≤ 1 s). Run with `pnpm --filter @vetted/runs bench:takeover`
 * (BENCH_CLICKS, default 60; BENCH_FRAME_TRIALS, default 10).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import type { Page } from "playwright-core";
import { dispatchInput } from "../src/core/browser/live-view.js";
import {
  type BrowserHost,
  type BrowserLease,
  createBrowserHost,
  createRunsEngine,
  findChromium,
  migrate,
} from "../src/index.js";
import { startTestSite } from "../src/testing.js";
import { benchFirstFrame } from "./first-frame.js";

const CLICKS = Number(process.env.BENCH_CLICKS ?? 60);
const FRAME_TRIALS = Number(process.env.BENCH_FRAME_TRIALS ?? 10);
const WARMUP = 5;
/** Between clicks (ms): a person does not click faster, and the outbound check of a click settles. */
const GAP_MS = 40;
/** The takeover page's button, in page CSS pixels. */
const AT = { x: 200, y: 150 };

const site = await startTestSite();
const executablePath = findChromium(process.env);
if (executablePath === undefined) throw new Error("no Chromium: apt-get install -y chromium");
const realHost = createBrowserHost({ executablePath });
await realHost.warm();
// The host as the engine sees it, keeping each lease it hands out: the baseline clicks on the same page.
const leases: BrowserLease[] = [];
const host = new Proxy(realHost, {
  get(target, prop, receiver) {
    if (prop === "acquire") {
      return async (...args: Parameters<BrowserHost["acquire"]>) => {
        const lease = await target.acquire(...args);
        leases.push(lease);
        return lease;
      };
    }
    const value: unknown = Reflect.get(target, prop, receiver);
    return typeof value === "function" ? value.bind(target) : value;
  },
});
const dir = mkdtempSync(join(tmpdir(), "vetted-takeover-bench-"));
const client = createClient({ url: `file:${join(dir, "bench.db")}`, timeout: 5000 });
await client.execute("PRAGMA journal_mode = WAL");
const db = drizzle(client);
await migrate(db);
const engine = createRunsEngine({
  db,
  secretsKey: Buffer.alloc(32, 7),
  browser: host,
  dataDir: dir,
  pollMs: 20,
  outbound: { allow: ["127.0.0.1"] },
});
engine.start();

// First: how soon the live view shows a run that just reached its gate (see first-frame.ts).
await benchFirstFrame(engine, site.url, leases, FRAME_TRIALS);

const flow = await engine.createFlow({
  name: "takeover bench",
  steps: [
    { id: "open", type: "navigate", url: `${site.url}/takeover` },
    { id: "person", type: "approval_gate", prompt: "Click by hand" },
  ] as never,
});
const run = await engine.createRun({ flow_id: flow.id });
for (let i = 0; (await engine.getRun(run.id)).status !== "waiting_user"; i++) {
  if (i > 600) throw new Error("the bench run never reached its gate");
  await new Promise((resolve) => setTimeout(resolve, 50));
}
let frames = 0;
const view = await engine.openLiveView(run.id, () => {
  frames++;
});
await engine.takeControl(run.id, "bench");
const found = leases.find((l) => !l.signal.aborted && l.page.url().includes("/takeover"))?.page;
if (found === undefined) throw new Error("the run's page was not found among the host's leases");
const page: Page = found;
// Scripts as strings: this package is typed without the DOM. Each click the page handles, on its clock.
await page.evaluate(`window.handled = [];
document.addEventListener("click", () => window.handled.push(performance.timeOrigin + performance.now()), true);`);
const cdp = await page.context().newCDPSession(page);

/** Each path a click takes: the live view's, and the two direct ones. */
const paths = {
  live: () => engine.sendInput(run.id, "bench", { type: "click", ...AT }),
  playwright: () => page.mouse.click(AT.x, AT.y),
  // The live view's own CDP dispatch (move, press, release sent at once), called directly: its ratio to
  // the live view is what the engine adds (the run's checks and the recorded `takeover_input` event).
  cdp: () => dispatchInput(page, cdp, { type: "click", ...AT }),
} as const;
type PathName = keyof typeof paths;
const handledMs: Record<PathName, number[]> = { live: [], playwright: [], cdp: [] };
const returnedMs: Record<PathName, number[]> = { live: [], playwright: [], cdp: [] };

/** Sends one click along `name`: how long until the page handled it, and until the call returned. */
async function click(name: PathName): Promise<{ handled: number; returned: number }> {
  const before = await page.evaluate<number>("window.handled.length");
  const sent = performance.timeOrigin + performance.now();
  await paths[name]();
  const returned = performance.timeOrigin + performance.now() - sent;
  const at = await page.evaluate<number[]>(`window.handled.slice(${before})`);
  if (at.length !== 1) throw new Error(`a ${name} click reached the page ${at.length} times`);
  return { handled: (at[0] ?? sent) - sent, returned };
}

const order: PathName[] = ["live", "playwright", "cdp"];
for (let i = 0; i < WARMUP; i++) for (const name of order) await click(name);
for (let i = 0; i < CLICKS; i++) {
  // Rotated each round, so no path always follows the same one.
  for (let k = 0; k < order.length; k++) {
    const name = order[(i + k) % order.length] ?? "live";
    const { handled, returned } = await click(name);
    handledMs[name].push(handled);
    returnedMs[name].push(returned);
    await new Promise((resolve) => setTimeout(resolve, GAP_MS));
  }
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
const fmt = (ms: number) => `${ms.toFixed(1).padStart(6)} ms`;
const line = (label: string, name: PathName) =>
  console.log(
    `  ${label.padEnd(35)} handled p50 ${fmt(quantile(handledMs[name], 0.5))}  p95 ${fmt(quantile(handledMs[name], 0.95))}` +
      `   returned p50 ${fmt(quantile(returnedMs[name], 0.5))}  p95 ${fmt(quantile(returnedMs[name], 0.95))}`,
  );
console.log(`takeover click, ${CLICKS} clicks per path (live view open: ${frames} frames)`);
line("playwright page.mouse.click", "playwright");
line("CDP dispatch, same page (baseline)", "cdp");
line("live-view input (sendInput)", "live");
const ratio = (base: PathName, q: number) =>
  (quantile(handledMs[base], q) / quantile(handledMs.live, q)).toFixed(2);
console.log(`  ratio p50 (CDP ÷ live view):        ${ratio("cdp", 0.5)}`);
console.log(`  ratio p95 (CDP ÷ live view):        ${ratio("cdp", 0.95)}`);
console.log(`  ratio p95 (Playwright ÷ live view): ${ratio("playwright", 0.95)}`);
const p95 = quantile(handledMs.live, 0.95);
console.log(`  live-view p95 ${p95.toFixed(1)} ms: ${p95 <= 150 ? "within" : "OVER"} the 150 ms target`);

view.close();
await cdp.detach().catch(() => undefined);
await engine.handBack(run.id, "bench");
await engine.resumeRun(run.id, { kind: "approval", approved: false });
await engine.stop();
await realHost.close();
await site.close();
client.close();
rmSync(dir, { recursive: true, force: true });
