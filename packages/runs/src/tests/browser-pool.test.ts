import { afterEach, describe, expect, it } from "vitest";
import type { RunsError } from "../kernel/errors.js";
import { codeOf, waitFor } from "./harness.js";
import { type Lanes, type LanesOptions, openLanes } from "./lanes-harness.js";

// Issue 25 item 8: computer-use pages and sessions held every context, browser runs waiting for one filled
// every worker slot, and a `set` run (no browser) waited minutes; a session start waited > 15 s.

const open: Lanes[] = [];
afterEach(async () => {
  for (const t of open.splice(0)) await t.close();
});

/** Lanes over a host of two contexts, two worker slots, no spare session context (unless asked). */
async function lanes(options: LanesOptions = {}): Promise<Lanes> {
  const t = await openLanes({
    ...options,
    host: { maxContexts: 2, ...options.host },
    engine: { concurrency: 2, outbound: { allow: ["127.0.0.1"] }, ...options.engine },
    sessions: { warmSpare: false, ...options.sessions },
  });
  open.push(t);
  return t;
}

/** A computer-use session previewing in a page of its own, which it then holds (the preview may not plan). */
async function holdByPreview(t: Lanes): Promise<string> {
  const cus = await t.cu.createSession({ instruction: "click Sign in" });
  await t.cu.preview(cus.id).catch((err: unknown) => {
    if ((err as RunsError).code !== "INSTRUCTION_NOT_UNDERSTOOD") throw err;
  });
  return cus.id;
}

async function runOf(t: Lanes, steps: unknown[]): Promise<string> {
  const flow = await t.engine.createFlow({ name: "pool", steps: steps as never });
  return (await t.engine.createRun({ flow_id: flow.id })).id;
}

const settled = (r: { status: string }) => !["queued", "running"].includes(r.status);

describe("bounded browser contexts (real Chromium)", { timeout: 90_000 }, () => {
  it("while previews hold every context, browser runs stay queued and a set run completes at once", async () => {
    const t = await lanes();
    await holdByPreview(t);
    await holdByPreview(t);
    expect(t.browser.status()).toMatchObject({ contexts: 2 });
    const nav = [{ id: "open", type: "navigate", url: `${t.site.url}/login` }];
    const browserRuns = [await runOf(t, nav), await runOf(t, nav)];
    const plain = await runOf(t, [{ id: "s", type: "set", vars: { a: 1 } }]);
    const started = Date.now();
    const done = await waitFor(() => t.engine.getRun(plain), settled, 5_000);
    expect(done.status).toBe("success");
    expect(Date.now() - started).toBeLessThan(5_000);
    // Not claimed: they wait in the queue, not in a worker slot (another process may take them).
    for (const id of browserRuns) expect((await t.engine.getRun(id)).status).toBe("queued");
    // Once the previews let go, the worker picks them up.
    await t.cu.close();
    for (const id of browserRuns) {
      const run = await waitFor(() => t.engine.getRun(id), settled, 20_000);
      expect(run.status, run.error ?? "").toBe("success");
    }
  });

  it("a run that reaches a browser step while every context is held frees its worker slot while it waits", async () => {
    const t = await lanes();
    await holdByPreview(t);
    await holdByPreview(t);
    const later = [
      { id: "pause", type: "wait", seconds: 0.2 },
      { id: "open", type: "navigate", url: `${t.site.url}/login` },
    ];
    const waiting = [await runOf(t, later), await runOf(t, later)];
    // Both worker slots are theirs before the set run exists.
    for (const id of waiting)
      await waitFor(
        () => t.engine.getRun(id),
        (r) => r.status === "running",
      );
    const plain = await runOf(t, [{ id: "s", type: "set", vars: { a: 1 } }]);
    const done = await waitFor(() => t.engine.getRun(plain), settled, 5_000);
    expect(done.status).toBe("success");
    await t.cu.close();
    for (const id of waiting) {
      const run = await waitFor(() => t.engine.getRun(id), settled, 20_000);
      expect(run.status, run.error ?? "").toBe("success");
    }
  });

  it("a session start while every context is held answers BROWSER_BUSY after the bounded wait, and starts once one is released", async () => {
    const t = await lanes({ host: { holding: { session: { waitMs: 400 } } } });
    await holdByPreview(t);
    await holdByPreview(t);
    const start = () => t.sessions.startSession({ start_url: `${t.site.url}/login`, mode: "manual" });
    const asked = Date.now();
    const err = (await start().catch((e: unknown) => e)) as RunsError & { retryAfterS: number };
    const waited = Date.now() - asked;
    expect(err.code).toBe("BROWSER_BUSY");
    expect(err.retryAfterS).toBeGreaterThan(0);
    expect(waited).toBeGreaterThanOrEqual(350);
    expect(waited).toBeLessThan(3_000);
    expect(t.browser.status()).toMatchObject({ contexts: 2, queued: 0 });
    await t.cu.close();
    const session = await start();
    expect(session.status).toBe("active");
    await t.sessions.finishSession(session.id);
  });

  it("a computer-use page idle past its timeout is closed, and the next preview opens a new one", async () => {
    // Longer than a preview's own use of the page on a loaded machine, far shorter than the default 60 s.
    const t = await lanes({ host: { holding: { "computer-use": { idleMs: 1_500 } } } });
    const cus = await holdByPreview(t);
    expect(t.browser.status().contexts).toBe(1);
    await waitFor(
      async () => t.browser.status(),
      (s) => s.contexts === 0,
      6_000,
    );
    await t.cu.preview(cus).catch((err: unknown) => {
      if ((err as RunsError).code !== "INSTRUCTION_NOT_UNDERSTOOD") throw err;
    });
    expect(t.browser.status().contexts).toBe(1);
  });

  it("a recording session idle past its timeout is closed and ends failed", async () => {
    const t = await lanes({ host: { holding: { session: { idleMs: 1_500 } } } });
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/login`, mode: "manual" });
    const failed = await waitFor(
      () => t.sessions.getSession(session.id),
      (s) => s.status !== "active",
      6_000,
    );
    expect(failed).toMatchObject({ status: "failed", error: expect.stringContaining("released") });
    await waitFor(
      async () => t.browser.status(),
      (s) => s.contexts === 0,
    );
  });

  it("a spare session context gives its slot to a preview that asks for one", async () => {
    const t = await lanes({
      host: { holding: { session: { waitMs: 400 }, "computer-use": { waitMs: 400 } } },
      sessions: { warmSpare: true },
    });
    const session = await t.sessions.startSession({ start_url: `${t.site.url}/login`, mode: "manual" });
    // The spare is opened after the start: both contexts are taken.
    await waitFor(
      async () => t.browser.status(),
      (s) => s.contexts === 2,
    );
    await holdByPreview(t);
    expect(t.browser.status()).toMatchObject({ contexts: 2, queued: 0 });
    // The spare is gone and every context is held: a second session is refused, not queued.
    expect(await codeOf(t.sessions.startSession({ start_url: `${t.site.url}/login`, mode: "manual" }))).toBe(
      "BROWSER_BUSY",
    );
    expect((await t.sessions.getSession(session.id)).status).toBe("active");
  });

  it("a session started on the spare keeps its context: a preview that finds every context held is refused", async () => {
    const t = await lanes({
      host: { holding: { session: { waitMs: 400 }, "computer-use": { waitMs: 400 } } },
      sessions: { warmSpare: true },
    });
    const start = () => t.sessions.startSession({ start_url: `${t.site.url}/login`, mode: "manual" });
    const first = await start();
    await waitFor(
      async () => t.browser.status(),
      (s) => s.contexts === 2,
    );
    const second = await start();
    expect(t.browser.status()).toMatchObject({ contexts: 2 });
    const cus = await t.cu.createSession({ instruction: "click Sign in" });
    expect(await codeOf(t.cu.preview(cus.id))).toBe("BROWSER_BUSY");
    expect((await t.sessions.getSession(first.id)).status).toBe("active");
    expect((await t.sessions.getSession(second.id)).status).toBe("active");
  });
});
