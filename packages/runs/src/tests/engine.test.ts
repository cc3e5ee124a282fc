// biome-ignore-all lint/suspicious/noTemplateCurlyInString: flows reference values as ${ns.key}
import { afterEach, describe, expect, it } from "vitest";
import type { FlowInput } from "../domain/flow.js";
import { openTestEngine, startShop, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function checkoutFlow(): FlowInput {
  return {
    name: "checkout",
    steps: [
      {
        id: "cart",
        type: "http",
        method: "POST",
        url: "${params.shop}/cart",
        body: { sku: "${params.sku}" },
        expect: { status: [200] },
        extract: { cart_id: "$.id" },
      },
      { id: "code", type: "otp_gate", prompt: "Enter the code we texted you" },
      {
        id: "pay",
        type: "http",
        method: "POST",
        url: "${params.shop}/pay",
        body: { cart: "${vars.cart_id}", otp: "${gate.otp_code}" },
        expect: { status: [200] },
      },
    ],
  };
}

async function setup() {
  const t = await openTestEngine();
  const shop = await startShop();
  cleanups.push(t.close, shop.close);
  t.engine.start();
  return { ...t, shop };
}

describe("the run engine", () => {
  it("runs a checkout through its OTP gate, looping back once on a wrong code", async () => {
    const { engine, shop } = await setup();
    const flow = await engine.createFlow(checkoutFlow());
    const run = await engine.createRun({ flow_id: flow.id, params: { shop: shop.url, sku: "A1" } });
    const waiting = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "waiting_otp",
    );
    expect(waiting.wait_context).toMatchObject({
      reason_code: "otp_required",
      at_step_id: "code",
      resume_from_step_id: "pay",
      allowed_resume_kinds: ["otp"],
      otp_attempts: 0,
      max_otp_attempts: 3,
    });
    await engine.resumeRun(run.id, { kind: "otp", otp_code: "000000" });
    const again = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "waiting_otp" && r.otp_attempts === 1,
    );
    expect(again.wait_context).toMatchObject({
      reason_code: "otp_rejected",
      resume_from_step_id: "pay",
      otp_attempts: 1,
    });
    await engine.resumeRun(run.id, { kind: "otp", otp_code: "123456" });
    const done = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "success",
    );
    expect(done.vars).toEqual({ cart_id: "cart_1" });
    expect(shop.received.map((r) => r.path)).toEqual(["/cart", "/pay", "/pay"]);
    const log = await engine.listEvents(run.id);
    expect(JSON.stringify(log)).not.toContain("123456");
  });
});
