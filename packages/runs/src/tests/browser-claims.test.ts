import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loginSteps, target } from "./browser-flows.js";
import { useBrowserSuite } from "./browser-suite.js";
import { openTestEngine, waitFor } from "./harness.js";

const suite = useBrowserSuite("vetted-claims-");

describe("a run's page belongs to one claim (real Chromium)", { timeout: 120_000 }, () => {
  it("a run past its lease while this process still executes it is not re-claimed here: its page lives on", async () => {
    // The engine's clock jumps past the lease mid-step, as a stalled event loop makes it look.
    let skew = 0;
    const leaseMs = 4000;
    const t = await openTestEngine({
      browser: suite.host,
      dataDir: mkdtempSync(join(tmpdir(), "vetted-claims-")),
      outbound: { allow: ["127.0.0.1"] },
      clock: { now: () => Date.now() + skew },
      leaseMs,
      pollMs: 5,
    });
    t.engine.start();
    suite.onClose(t.close);
    const steps = [
      ...loginSteps(suite.site),
      { id: "pause", type: "wait", seconds: 2.5 },
      { id: "who", type: "assert", target: target({ kind: "css", value: "#who" }), text: suite.site.email },
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
      params: { email: suite.site.email, password: suite.site.password },
    });
    await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.current_step_id === "pause",
      30_000,
    );
    // Mid-step: once the wait is under way (a jump before it starts would end the wait at once, at a commit
    // that finds the lease lapsed, and the run would be given up as lost). The 2 s of the wait left hold at
    // least one heartbeat (every leaseMs / 3), which renews the lease on the jumped clock.
    await new Promise((resolve) => setTimeout(resolve, 500));
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
