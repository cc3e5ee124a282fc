import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { findChromium } from "../browser/find-chromium.js";
import { type BrowserHost, createBrowserHost } from "../browser/host.js";
import { startTestSite, type TestSite } from "../testing.js";
import { loginSteps, target } from "./browser-flows.js";
import { openTestEngine, waitFor } from "./harness.js";

let site: TestSite;
let host: BrowserHost;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  site = await startTestSite();
  host = createBrowserHost({ executablePath: findChromium(process.env) });
  await host.warm();
});
afterAll(async () => {
  await host.close();
  await site.close();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe("a run's page belongs to one claim (real Chromium)", { timeout: 120_000 }, () => {
  it("a run past its lease while this process still executes it is not re-claimed here: its page lives on", async () => {
    // The engine's clock jumps past the lease mid-step, as a stalled event loop makes it look.
    let skew = 0;
    const leaseMs = 4000;
    const t = await openTestEngine({
      browser: host,
      dataDir: mkdtempSync(join(tmpdir(), "vetted-claims-")),
      outbound: { allow: ["127.0.0.1"] },
      clock: { now: () => Date.now() + skew },
      leaseMs,
      pollMs: 5,
    });
    t.engine.start();
    closers.push(t.close);
    const steps = [
      ...loginSteps(site),
      { id: "pause", type: "wait", seconds: 1.5 },
      { id: "who", type: "assert", target: target({ kind: "css", value: "#who" }), text: site.email },
    ];
    const flow = await t.engine.createFlow({ name: "stall", steps: steps as never });
    const tpl = await t.engine.createTemplate({
      name: "stall",
      flow_id: flow.id,
      params_schema: [
        { key: "email", type: "string", required: true },
        { key: "password", type: "secret", required: true },
      ],
    });
    const run = await t.engine.createRun({
      template_id: tpl.id,
      params: { email: site.email, password: site.password },
    });
    await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.current_step_id === "pause",
      30_000,
    );
    skew += 2 * leaseMs;
    const done = await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status !== "queued" && r.status !== "running",
      30_000,
    );
    expect(done.status, done.error ?? "").toBe("success");
    const events = (await t.engine.listEvents(run.id)).items;
    expect(events.filter((e) => e.type === "lease_expired")).toEqual([]);
  });
});
