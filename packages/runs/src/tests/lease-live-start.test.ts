import { afterEach, describe, expect, it } from "vitest";
import { openTestEngine, waitFor } from "./harness.js";
import { startSink } from "./sink.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("a step's start that rides on the commit before it", () => {
  it("is written only while the worker's lease is live: past it, the run is claimed again before the next step starts", async () => {
    // The engine's clock jumps past the lease while step `a`'s request is answered, as a worker stalled
    // that long (a long GC pause, a suspended VM) would see it; no other worker has claimed the run yet.
    let skew = 0;
    const sink = await startSink((_req, res) => {
      skew = 120_000;
      res.end("{}");
    });
    cleanups.push(sink.close);
    const t = await openTestEngine({ leaseMs: 30_000, clock: { now: () => Date.now() + skew } });
    cleanups.push(t.close);
    const flow = await t.engine.createFlow({
      name: "stalled",
      steps: [
        { id: "a", type: "http", url: `${sink.url}/a`, expect: { status: [200] } },
        // A `wait` starts early: its start would ride on `a`'s commit, renewing the lease.
        { id: "b", type: "wait", seconds: 0 },
      ],
    });
    const run = await t.engine.createRun({ flow_id: flow.id });
    t.engine.start();
    const done = await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status === "success" || r.status === "failed",
    );
    expect(done.status, done.error ?? "").toBe("success");
    const types = (await t.engine.listEvents(run.id)).items.map((e) =>
      e.type === "step_started" ? `step_started:${String(e.data.step_id)}` : e.type,
    );
    // `a`'s commit went through (its lease owner had not changed), but `b` did not start with it on an
    // expired lease: the run was claimed again (lease_expired), and only then did `b` start.
    const expired = types.indexOf("lease_expired");
    expect(expired, types.join(", ")).toBeGreaterThan(types.indexOf("step_started:a"));
    expect(types.indexOf("step_started:b"), types.join(", ")).toBeGreaterThan(expired);
    expect(sink.received).toHaveLength(1);
  });
});
