import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import { type Browser, chromium, type Page } from "@playwright/test";
import { build } from "vite";
import { startServerProcess } from "../../server/src/tests/server-process.js";
import { chromiumPath, WEB_DIST } from "../e2e/harness.js";
import { analyzeOverHttp, writeManyFiles } from "./seed.js";

/**
 * The console's performance bench (`pnpm --filter @vetted/web bench [--rows N]`, 100,000 rows by default):
 * builds the console, seeds a folder of N files, analyzes it over HTTP on a real server child process, then
 * drives Debian's Chromium (never a downloaded browser) through the review page and prints each figure
 * with its target and its ratio to a baseline measured in the same run (an empty console page).
 */
// `pnpm … bench -- --rows N` passes the `--` through: skip it.
const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"),
  options: { rows: { type: "string", default: "100000" } },
});
const ROWS = Number.parseInt(values.rows, 10);
if (!Number.isInteger(ROWS) || ROWS < 1)
  throw new Error(`--rows must be a positive integer, got ${values.rows}`);

/** Milliseconds from navigation start until `selector` is in the DOM, sampled every animation frame. */
async function timeToSelector(page: Page, url: string, selector: string): Promise<number> {
  await page.goto(url, { waitUntil: "commit" });
  const handle = await page.waitForFunction(
    (sel) => (document.querySelector(sel) !== null ? performance.now() : false),
    selector,
    { polling: "raf", timeout: 60_000 },
  );
  return (await handle.jsonValue()) as number;
}

/**
 * Loads `url` in a fresh context (no cache) and answers the gzipped bytes of every script it fetched, once
 * no script request has been in flight for 500 ms (not "network idle": the runs page keeps its live event
 * stream open).
 */
async function scriptBytes(browser: Browser, url: string, selector: string): Promise<number> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const pending: Array<Promise<number>> = [];
  let inFlight = 0;
  let lastChange = performance.now();
  page.on("request", (req) => {
    if (req.resourceType() !== "script") return;
    inFlight++;
    lastChange = performance.now();
  });
  page.on("response", (res) => {
    if (res.request().resourceType() !== "script") return;
    pending.push(res.body().then((b) => gzipSync(b).byteLength));
    inFlight--;
    lastChange = performance.now();
  });
  await timeToSelector(page, url, selector);
  await page.waitForLoadState("load");
  while (inFlight > 0 || performance.now() - lastChange < 500) await page.waitForTimeout(100);
  const sizes = await Promise.all(pending);
  await context.close();
  return sizes.reduce((a, b) => a + b, 0);
}

/** Scrolls the virtual table through `screens` screens (loading further pages) and answers the max row count. */
async function maxRowsWhileScrolling(page: Page, screens: number): Promise<{ max: number; loaded: number }> {
  let max = 0;
  for (let i = 0; i < screens; i++) {
    const count = await page.evaluate(async () => {
      const table = document.querySelector(".row-table");
      if (table === null) throw new Error("no .row-table on the review page");
      table.scrollTop += table.clientHeight;
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      return document.querySelectorAll("[data-row]").length;
    });
    max = Math.max(max, count);
    if (i % 10 === 9) await page.waitForTimeout(100);
  }
  const loaded = await page.evaluate(() => {
    const bar = document.querySelector(".selection-bar")?.textContent ?? "";
    return Number(/(\d+) rows loaded/.exec(bar)?.[1] ?? 0);
  });
  return { max, loaded };
}

/** Submits the text filter and answers the ms until the table shows only matching rows (in-page clock). */
async function filterRepaint(page: Page, text: string): Promise<number> {
  await page.getByLabel("Text").fill(text);
  return page.evaluate(async (needle) => {
    const button = [...document.querySelectorAll("button")].find((b) => b.textContent === "Filter");
    if (button === undefined) throw new Error("no Filter button");
    const t0 = performance.now();
    button.click();
    for (;;) {
      await new Promise((r) => requestAnimationFrame(r));
      const rows = [...document.querySelectorAll("[data-row]")];
      if (rows.length > 0 && rows.every((r) => r.textContent?.includes(needle)))
        return performance.now() - t0;
      if (performance.now() - t0 > 30_000) throw new Error("the filter never repainted");
    }
  }, text);
}

function line(name: string, value: number, unit: string, target: string, baseline: number): void {
  const ratio = baseline > 0 ? (value / baseline).toFixed(2) : "n/a";
  console.log(
    `${name.padEnd(34)} ${value.toFixed(unit === "ms" ? 0 : 0).padStart(9)} ${unit.padEnd(5)} target ${target.padEnd(10)} baseline ${baseline.toFixed(0).padStart(8)} ratio ${ratio}`,
  );
}

async function main(): Promise<void> {
  await build({ root: join(WEB_DIST, ".."), logLevel: "warn" });
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "vetted-web-bench-")));
  const dataDir = join(dir, "data");
  const root = join(dir, "root");
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(root, { recursive: true });
  const server = await startServerProcess(
    { VETTED_DATA_DIR: dataDir, VETTED_ALLOWED_ROOTS: root, VETTED_WEB_DIST: WEB_DIST, LOG_LEVEL: "warn" },
    60_000,
  );
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: ["--no-sandbox"] });
  try {
    const started = Date.now();
    const source = writeManyFiles(root, ROWS);
    const jobId = await analyzeOverHttp(server.url, source, join(root, "sorted"));
    console.log(`seeded and analyzed ${ROWS} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const empty = `${server.url}/runs`;
    const review = `${server.url}/files/jobs/${jobId}`;

    const basePage = await (await browser.newContext()).newPage();
    await timeToSelector(basePage, empty, "h1"); // warm the server's static files once
    const baseNav = await timeToSelector(basePage, empty, "h1");
    const page = await (await browser.newContext()).newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    const apiTimes: Array<{ start: number; took: number; path: string }> = [];
    page.on("requestfinished", (req) => {
      const t = req.timing();
      if (req.url().includes("/api/")) {
        const path = new URL(req.url()).pathname;
        apiTimes.push({ start: t.startTime + t.requestStart, took: t.responseEnd - t.requestStart, path });
      }
    });
    const firstRows = await timeToSelector(page, review, "[data-row]");
    // When each call left (ms after navigation start) and how long the server took to answer it.
    const origin = await page.evaluate(() => performance.timeOrigin);
    const calls = apiTimes.map(
      (a) => `sent at ${(a.start - origin).toFixed(0)} ms, answered in ${a.took.toFixed(0)} ms: ${a.path}`,
    );
    console.log(`API calls of the first review page load:\n  ${calls.join("\n  ")}`);
    const scroll = await maxRowsWhileScrolling(page, 60);
    const baseRows = await page.evaluate(() => document.querySelectorAll("[data-row]").length);
    const filter = await filterRepaint(page, "file-0001");
    const baseJs = await scriptBytes(browser, empty, "h1");
    const reviewJs = await scriptBytes(browser, review, "[data-row]");

    console.log(`\nconsole bench, ${ROWS} rows (baseline: navigation to the empty /runs page)`);
    line("navigation → first rows visible", firstRows, "ms", "≤ 1500", baseNav);
    line("max row elements while scrolling", scroll.max, "rows", "≤ 200", baseRows);
    console.log(`  (scrolled 60 screens, ${scroll.loaded} rows loaded; baseline = rows in DOM at rest)`);
    line("filter change repainted", filter, "ms", "≤ 300", baseNav);
    line("JS shipped for the first page (gz)", reviewJs / 1024, "kB", "≤ 250", baseJs / 1024);
  } catch (err) {
    // The server child's own words on why (a crash, a refused request), before the bench's error.
    console.error(`server stderr (last 4000 characters):\n${server.stderr().slice(-4000)}`);
    throw err;
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
