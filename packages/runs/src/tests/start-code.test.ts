import { afterEach, describe, expect, it } from "vitest";
import type { FlowInput } from "../domain/flow.js";
import { openTestEngine, startShop, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A payment with no `otp_gate` of its own: the code it sends comes from the template's policy gate. */
const payFlow: FlowInput = {
  name: "pay",
  steps: [
    {
      id: "pay",
      type: "http",
      method: "POST",
      url: "${params.shop}/pay",
      body: { otp: "${gate.otp_code}" },
      expect: { status: [200] },
    },
  ],
};

async function setup() {
  const t = await openTestEngine();
  const shop = await startShop();
  cleanups.push(t.close, shop.close);
  t.engine.start();
  return { ...t, shop };
}

describe("a template that requires a one-time code", () => {
  it("waits for the code before its first step, then sends it as ${gate.otp_code}", async () => {
    const { engine, shop } = await setup();
    const flow = await engine.createFlow(payFlow);
    const tpl = await engine.createTemplate({
      name: "pay with a code",
      flow_id: flow.id,
      params_schema: [{ key: "shop", type: "string", required: true }],
      policies: { otp: { required: true } },
    });
    const run = await engine.createRun({ template_id: tpl.id, params: { shop: shop.url } });
    expect(run.status).toBe("waiting_otp");
    expect(run.wait_context).toMatchObject({
      reason_code: "otp_required",
      at_step_id: "pay",
      resume_from_step_id: "pay",
      allowed_resume_kinds: ["otp"],
      otp_attempts: 0,
      max_otp_attempts: 3,
    });
    // Nothing was sent while the run waits: the gate is before step 0.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(shop.received).toEqual([]);
    const events = (await engine.listEvents(run.id)).items;
    expect(events.map((e) => e.type)).toEqual(["run_created", "gate_opened", "status_changed"]);
    expect(events[2]?.data).toMatchObject({ from: "queued", to: "waiting_otp", reason: "otp_required" });

    await engine.resumeRun(run.id, { kind: "otp", otp_code: "123456" });
    const done = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "success" || r.status === "failed",
    );
    expect(done.status).toBe("success");
    expect(shop.received.map((r) => [r.path, r.body])).toEqual([["/pay", { otp: "123456" }]]);
  });

  it("asks only at the flow's own otp_gate when it has one, and not at all when the policy is left out", async () => {
    const { engine, shop } = await setup();
    const gated = await engine.createFlow({
      name: "gated",
      steps: [{ id: "code", type: "otp_gate" }, ...payFlow.steps],
    });
    const required = await engine.createTemplate({
      name: "gated",
      flow_id: gated.id,
      params_schema: [{ key: "shop", type: "string", required: true }],
      policies: { otp: { required: true } },
    });
    const first = await engine.createRun({ template_id: required.id, params: { shop: shop.url } });
    const atGate = await waitFor(
      () => engine.getRun(first.id),
      (r) => r.status === "waiting_otp",
    );
    expect(atGate.wait_context).toMatchObject({ at_step_id: "code", resume_from_step_id: "pay" });

    const plain = await engine.createFlow({
      name: "plain",
      steps: [{ id: "a", type: "set", vars: { v: 1 } }],
    });
    const unset = await engine.createTemplate({ name: "plain", flow_id: plain.id });
    const second = await engine.createRun({ template_id: unset.id });
    const ran = await waitFor(
      () => engine.getRun(second.id),
      (r) => r.status === "success",
    );
    expect(ran.vars).toEqual({ v: 1 });
  });
});
