import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { openSecondEngine, openTestEngine, waitFor } from "./harness.js";
import { startSink } from "./sink.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * Worker A sends the request and the sink holds it; worker B (its own connection, its clock 5 s ahead, so
 * A's lease has expired for it) re-claims the run while the request is in flight.
 */
async function reclaimMidRequest(step: { method: "POST" | "GET"; idempotent?: boolean }) {
  const held: ServerResponse[] = [];
  const sink = await startSink((_req, res) => {
    held.push(res);
  });
  cleanups.push(async () => {
    for (const res of held) res.end("{}");
    await sink.close();
  });
  const a = await openTestEngine({ leaseMs: 1000 });
  cleanups.push(a.close);
  const flow = await a.engine.createFlow({
    name: "charge",
    steps: [{ id: "charge", type: "http", url: `${sink.url}/charge`, expect: { status: [200] }, ...step }],
  });
  const run = await a.engine.createRun({ flow_id: flow.id });
  a.engine.start();
  await waitFor(
    async () => sink.received.length,
    (n) => n === 1,
  );
  const b = await openSecondEngine(a.file, { clock: { now: () => Date.now() + 5_000 } });
  cleanups.push(b.close);
  b.engine.start();
  return { a, b, sink, held, run };
}

describe("a run re-claimed while a request was in flight", () => {
  it("does not send a POST again: the step is in doubt and the run waits for a person", async () => {
    const { a, b, sink, held, run } = await reclaimMidRequest({ method: "POST" });
    const paused = await waitFor(
      () => b.engine.getRun(run.id),
      (r) => r.status === "waiting_user",
    );
    expect(paused.wait_context).toMatchObject({
      reason_code: "step_outcome_unknown",
      at_step_id: "charge",
      resume_from_step_id: "charge",
      allowed_resume_kinds: ["approval"],
    });
    for (const res of held) res.end("{}");
    await new Promise((r) => setTimeout(r, 300));
    expect(sink.received.filter((r) => r.method === "POST")).toHaveLength(1);
    const events = await b.engine.listEvents(run.id);
    expect(events.items.some((e) => e.type === "step_finished" && e.data.outcome === "in_doubt")).toBe(true);

    // Worker A is gone for good (B's clock would see every lease of A's as expired).
    await a.engine.stop();
    // A person checked the far side and approves: the step is sent again, once.
    await b.engine.resumeRun(run.id, { kind: "approval", approved: true });
    await waitFor(
      async () => sink.received.length,
      (n) => n === 2,
    );
    for (const res of held) if (!res.writableEnded) res.end("{}");
    const done = await waitFor(
      () => b.engine.getRun(run.id),
      (r) => r.status === "success",
    );
    expect(done.reason).toBeNull();
  });

  it("ends the run when the person rejects re-sending the in-doubt step", async () => {
    const { b, sink, held, run } = await reclaimMidRequest({ method: "POST" });
    await waitFor(
      () => b.engine.getRun(run.id),
      (r) => r.status === "waiting_user",
    );
    const cancelled = await b.engine.resumeRun(run.id, { kind: "approval", approved: false });
    expect(cancelled).toMatchObject({ status: "cancelled", reason: "approval_rejected" });
    for (const res of held) res.end("{}");
    await new Promise((r) => setTimeout(r, 200));
    expect(sink.received).toHaveLength(1);
  });

  const resent: Array<[string, { method: "POST" | "GET"; idempotent?: boolean }]> = [
    ["sends a GET again: it is idempotent", { method: "GET" }],
    ["sends a POST declared idempotent again", { method: "POST", idempotent: true }],
  ];
  for (const [name, step] of resent) {
    it(name, async () => {
      const { b, sink, held, run } = await reclaimMidRequest(step);
      await waitFor(
        async () => sink.received.length,
        (n) => n === 2,
      );
      for (const res of held) res.end("{}");
      await waitFor(
        () => b.engine.getRun(run.id),
        (r) => r.status === "success",
      );
    });
  }
});
