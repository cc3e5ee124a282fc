import { describe, expect, it } from "vitest";
import { planRetry, type RetrySource } from "./retry.js";
import type { Step } from "./steps.js";

const http = (id: string, body: unknown = {}): Step =>
  ({ id, type: "http", method: "POST", url: "https://shop.test/x", body }) as Step;
const steps: Step[] = [
  http("cart"),
  { id: "code", type: "otp_gate", prompt: "code?" } as Step,
  http("pay", { otp: "${gate.otp_code}" }),
  http("receipt"),
];
const run = (over: Partial<RetrySource>): RetrySource => ({
  id: "run_1",
  status: "failed",
  steps,
  cursor: 3,
  vars: {},
  ...over,
});

describe("planRetry", () => {
  it("starts at the step the run stopped at and skips the ones before", () => {
    expect(planRetry(run({ cursor: 3 }))).toMatchObject({
      ok: true,
      fromStepId: "receipt",
      skipped: ["cart", "code", "pay"],
    });
  });

  it("starts at the gate whose one-time code the stopped step sends", () => {
    const plan = planRetry(run({ cursor: 2 }));
    expect(plan).toMatchObject({ ok: true, fromStepId: "code", skipped: ["cart"] });
    expect(plan.ok && plan.steps.map((s) => s.id)).toEqual(["code", "pay", "receipt"]);
  });

  it("keeps the vars, except those that held a secret the ended run forgot", () => {
    const plan = planRetry(run({ vars: { cart_id: "c1", token: "[redacted]" } }));
    expect(plan).toMatchObject({ ok: true, vars: { cart_id: "c1" }, droppedVars: ["token"] });
  });

  it("retries a cancelled run, and refuses one that succeeded, is going, or stopped after its last step", () => {
    expect(planRetry(run({ status: "cancelled", cursor: 0 }))).toMatchObject({
      ok: true,
      fromStepId: "cart",
    });
    for (const status of ["success", "queued", "running", "waiting_otp", "waiting_user"] as const) {
      expect(planRetry(run({ status })).ok).toBe(false);
    }
    expect(planRetry(run({ cursor: 4 }))).toMatchObject({ ok: false, message: /no step to retry/ });
  });
});
