import { afterEach, describe, expect, it } from "vitest";
import { openTestEngine, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const RUNS = 12;
const CONCURRENCY = 2;

describe("resumes and the worker's slots", () => {
  it(`a burst of ${RUNS} resumes never has more than concurrency (${CONCURRENCY}) runs running at once`, async () => {
    const t = await openTestEngine({ concurrency: CONCURRENCY, pollMs: 20 });
    cleanups.push(() => t.close());
    t.engine.start();
    const flow = await t.engine.createFlow({
      name: "gated, then held",
      steps: [
        { id: "go", type: "approval_gate", prompt: "Go on?" },
        // Holds its worker slot long enough for every resume of the burst to be decided meanwhile.
        { id: "hold", type: "wait", seconds: 0.3 },
      ],
    });
    const create = () => t.engine.createRun({ flow_id: flow.id, params: {} });
    const ids = (await Promise.all(Array.from({ length: RUNS }, create))).map((run) => run.id);
    await waitFor(
      () => t.engine.countRunsByStatus(),
      (counts) => counts.waiting_user === RUNS,
    );
    let most = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        most = Math.max(most, (await t.engine.countRunsByStatus()).running);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    // The resumes share commits: a resume hands its run to this worker in its own commit only while a slot
    // is free, and the slot must count as taken from that moment, before the commit and the launch.
    await Promise.all(ids.map((id) => t.engine.resumeRun(id, { kind: "approval", approved: true })));
    most = Math.max(most, (await t.engine.countRunsByStatus()).running);
    await waitFor(
      () => t.engine.countRunsByStatus(),
      (counts) => counts.success === RUNS,
      20_000,
    );
    watching = false;
    await watch;
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(CONCURRENCY);
  });
});
