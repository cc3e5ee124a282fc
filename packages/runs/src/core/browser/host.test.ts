import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BrowserBusyError, BrowserCrashedError, BrowserUnavailableError } from "../../kernel/errors.js";
import { startTestSite, type TestSite } from "../../testing.js";
import { findChromium } from "./find-chromium.js";
import { createBrowserHost } from "./host.js";
import type { BrowserHost, BrowserHostOptions } from "./host-api.js";

const chromium = findChromium(process.env);
let site: TestSite;
const hosts: BrowserHost[] = [];

beforeAll(async () => {
  site = await startTestSite();
});
afterAll(async () => {
  await site.close();
});
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

function host(options: Partial<BrowserHostOptions> = {}): BrowserHost {
  const h = createBrowserHost({ executablePath: chromium, ...options });
  hosts.push(h);
  return h;
}

describe("findChromium", () => {
  it("takes VETTED_CHROMIUM_PATH as the only candidate when it is set", () => {
    expect(findChromium({ VETTED_CHROMIUM_PATH: "/nonexistent/chromium" })).toBeUndefined();
    const notExecutable = join(mkdtempSync(join(tmpdir(), "vetted-chromium-")), "chromium");
    writeFileSync(notExecutable, "#!/bin/sh\n", { mode: 0o644 });
    expect(findChromium({ VETTED_CHROMIUM_PATH: notExecutable })).toBeUndefined();
    if (chromium !== undefined) expect(findChromium({ VETTED_CHROMIUM_PATH: chromium })).toBe(chromium);
  });

  it("finds the system Chromium in the usual places", () => {
    expect(chromium).toBeDefined();
  });
});

describe("a browser host without a browser", () => {
  it("refuses acquires with BROWSER_UNAVAILABLE and the install command, and says so in its status", async () => {
    const h = createBrowserHost({ executablePath: undefined, unavailableReason: "VETTED_CHROMIUM_PATH=/x" });
    hosts.push(h);
    const err = await h.acquire("run_1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrowserUnavailableError);
    expect((err as BrowserUnavailableError).code).toBe("BROWSER_UNAVAILABLE");
    expect((err as Error).message).toContain("apt-get install -y chromium");
    expect(h.status()).toMatchObject({ available: false, running: false, reason: "VETTED_CHROMIUM_PATH=/x" });
  });

  it("reports a Chromium that will not start as unavailable", async () => {
    const h = createBrowserHost({ executablePath: "/bin/false", launchTimeoutMs: 10_000 });
    hosts.push(h);
    const err = await h.acquire("run_1").catch((e: unknown) => e);
    expect((err as BrowserUnavailableError).code).toBe("BROWSER_UNAVAILABLE");
    expect(h.status()).toMatchObject({ available: false, reason: expect.stringContaining("/bin/false") });
  });
});

describe("the browser host", { timeout: 60_000 }, () => {
  it("gives each owner an isolated context, and a saved storage state logs the next one in", async () => {
    const h = host();
    const a = await h.acquire("sess_a");
    await a.page.goto(`${site.url}/login`);
    await a.page.getByLabel("Email").fill(site.email);
    await a.page.getByLabel("Password").fill(site.password);
    await a.page.getByRole("button", { name: "Sign in" }).click();
    await a.page.waitForURL(`${site.url}/account`);
    const state = await a.context.storageState();

    const b = await h.acquire("sess_b");
    await b.page.goto(`${site.url}/account`);
    expect(b.page.url()).toBe(`${site.url}/login`);

    const c = await h.acquire("sess_c", { storageState: state });
    await c.page.goto(`${site.url}/account`);
    expect(await c.page.locator("#who").textContent()).toContain(site.email);
    expect(h.status()).toMatchObject({ available: true, running: true, contexts: 3, queued: 0 });
    await Promise.all([a.release(), b.release(), c.release()]);
    expect(h.status().contexts).toBe(0);
  });

  it("queues acquires beyond maxContexts and hands a released slot to the first in line", async () => {
    const h = host({ maxContexts: 1 });
    const first = await h.acquire("run_1");
    let second: Awaited<ReturnType<BrowserHost["acquire"]>> | undefined;
    const waiting = h.acquire("run_2").then((l) => {
      second = l;
      return l;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(second).toBeUndefined();
    expect(h.status()).toMatchObject({ contexts: 1, queued: 1 });
    await first.release();
    const lease = await waiting;
    expect(lease.owner).toBe("run_2");
    expect(h.status()).toMatchObject({ contexts: 1, queued: 0 });
    await lease.release();
  });

  it("gives up waiting in line when the caller's signal aborts", async () => {
    const h = host({ maxContexts: 1 });
    const first = await h.acquire("run_1");
    const controller = new AbortController();
    const waiting = h.acquire("run_2", { signal: controller.signal });
    controller.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    expect(h.status().queued).toBe(0);
    await first.release();
  });

  it("an interactive acquire waits at most its purpose's waitMs for a slot, then BROWSER_BUSY; a run waits on", async () => {
    const h = host({ maxContexts: 1, holding: { session: { waitMs: 300 } } });
    const first = await h.acquire("run_1");
    expect(h.hasFreeSlot()).toBe(false);
    const asked = Date.now();
    const err = await h.acquire("ss_1", { purpose: "session" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrowserBusyError);
    expect(err).toMatchObject({ code: "BROWSER_BUSY", retryAfterS: 5, details: { max_contexts: 1 } });
    expect(Date.now() - asked).toBeGreaterThanOrEqual(250);
    expect(h.status().queued).toBe(0);
    expect(
      await h.acquire("cus_1", { purpose: "computer-use", waitMs: 0 }).catch((e: unknown) => e),
    ).toBeInstanceOf(BrowserBusyError);
    const run = h.acquire("run_2");
    await new Promise((r) => setTimeout(r, 400));
    expect(h.status().queued).toBe(1);
    await first.release();
    const lease = await run;
    expect(lease.owner).toBe("run_2");
    await lease.release();
    expect(h.hasFreeSlot()).toBe(true);
  });

  it("closes a spare for an acquire that would wait, and keeps it once adopted", async () => {
    const h = host({ maxContexts: 1 });
    const spare = await h.acquire("ss_spare", { purpose: "session", spare: true });
    expect(h.hasFreeSlot()).toBe(true);
    const run = await h.acquire("run_1");
    expect(spare.signal.aborted).toBe(true);
    await run.release();
    const kept = await h.acquire("ss_kept", { purpose: "session", spare: true });
    kept.adopt();
    expect(h.hasFreeSlot()).toBe(false);
    expect(
      await h.acquire("cus_1", { purpose: "computer-use", waitMs: 100 }).catch((e: unknown) => e),
    ).toBeInstanceOf(BrowserBusyError);
    expect(kept.signal.aborted).toBe(false);
    await kept.release();
  });

  it("closes each lease after its purpose's idle timeout", async () => {
    const h = host({ holding: { "computer-use": { idleMs: 200 } } });
    const cu = await h.acquire("cus_idle", { purpose: "computer-use" });
    const run = await h.acquire("run_busy");
    await new Promise((r) => setTimeout(r, 700));
    expect(cu.signal.aborted).toBe(true);
    expect(run.signal.aborted).toBe(false);
    await run.release();
  });

  it("closes a context left idle and frees its slot", async () => {
    const h = host({ idleMs: 200 });
    const lease = await h.acquire("sess_idle");
    await new Promise((r) => setTimeout(r, 700));
    expect(lease.signal.aborted).toBe(true);
    expect(h.status().contexts).toBe(0);
  });

  it("restarts a crashed browser: leases in flight end with BROWSER_CRASHED, the next acquire works", async () => {
    const h = host();
    await h.warm();
    const lease = await h.acquire("run_crash");
    await lease.page.goto(`${site.url}/login`);
    const cdp = await lease.context.browser()?.newBrowserCDPSession();
    await cdp?.send("Browser.crash").catch(() => undefined);
    await new Promise<void>((resolve) => {
      if (lease.signal.aborted) resolve();
      else lease.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    expect(lease.crashed).toBe(true);
    expect(lease.signal.reason).toBeInstanceOf(BrowserCrashedError);
    expect((lease.signal.reason as BrowserCrashedError).code).toBe("BROWSER_CRASHED");
    expect(h.status()).toMatchObject({ restarts: 1, contexts: 0 });
    const next = await h.acquire("run_after");
    await next.page.goto(`${site.url}/login`);
    expect(await next.page.getByRole("button", { name: "Sign in" }).count()).toBe(1);
    await next.release();
  });
});
