import { afterEach, describe, expect, it } from "vitest";
import { type FlowInput, IdempotencyKeyReusedError } from "../index.js";
import { codeOf, openTestEngine, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const GATED: FlowInput = {
  name: "gated",
  steps: [
    { id: "code", type: "otp_gate", prompt: "Code?" },
    { id: "keep", type: "set", vars: { code: "${gate.otp_code}" } },
  ],
};

async function open() {
  const t = await openTestEngine();
  cleanups.push(t.close);
  const flow = await t.engine.createFlow(GATED);
  return { ...t, flowId: flow.id };
}

describe("an Idempotency-Key sent again (the engine's verbs)", () => {
  it("answers a repeated create with the first run, and refuses the key with another body", async () => {
    const t = await open();
    const first = await t.engine.createRun({ flow_id: t.flowId, params: { n: 1 } }, { idempotencyKey: "c1" });
    const again = await t.engine.createRun({ flow_id: t.flowId, params: { n: 1 } }, { idempotencyKey: "c1" });
    expect(again.id).toBe(first.id);
    const other = t.engine.createRun({ flow_id: t.flowId, params: { n: 2 } }, { idempotencyKey: "c1" });
    await expect(other).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    await expect(other).rejects.toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED" });
    // The refused request created nothing.
    expect((await t.engine.listRuns()).items.map((r) => r.id)).toEqual([first.id]);
  });

  it("refuses a resume that reuses a key with another code, and resolves the gate once", async () => {
    const t = await open();
    t.engine.start();
    const run = await t.engine.createRun({ flow_id: t.flowId });
    await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status === "waiting_otp",
    );
    const key = { idempotencyKey: `resume-${run.id}` };
    const first = await t.engine.resumeRun(run.id, { kind: "otp", otp_code: "111111" }, key);
    expect(await t.engine.resumeRun(run.id, { kind: "otp", otp_code: "111111" }, key)).toEqual(first);
    expect(await codeOf(t.engine.resumeRun(run.id, { kind: "otp", otp_code: "222222" }, key))).toBe(
      "IDEMPOTENCY_KEY_REUSED",
    );
    expect(await codeOf(t.engine.submitOtp(run.id, { otp_code: "333333" }, key))).toBe(
      "IDEMPOTENCY_KEY_REUSED",
    );
    await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status === "success",
    );
    const events = await t.engine.listEvents(run.id);
    expect(events.items.filter((e) => e.type === "gate_resolved")).toHaveLength(1);
  });
});
