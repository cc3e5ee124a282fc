import { afterEach, describe, expect, it } from "vitest";
import type { FlowInput } from "../domain/flow.js";
import { openTestEngine, startShop, TEST_SECRETS_KEY, waitFor } from "./harness.js";

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

describe("the run engine's edges", () => {
  it("takes a one-time code from the inbound messages when none is given", async () => {
    const { createInboundMessagesOtpSource } = await import("../core/otp-source.js");
    const t = await openTestEngine();
    cleanups.push(t.close);
    const source = createInboundMessagesOtpSource({ db: t.db });
    const shop = await startShop();
    cleanups.push(shop.close);
    const { createRunsEngine } = await import("../platform.js");
    const engine = createRunsEngine({
      db: t.db,
      secretsKey: TEST_SECRETS_KEY,
      otpSource: source,
      leaseMs: 1000,
      pollMs: 50,
    });
    cleanups.push(() => engine.stop());
    engine.start();
    const flow = await engine.createFlow(checkoutFlow());
    const tpl = await engine.createTemplate({
      name: "t",
      flow_id: flow.id,
      params_schema: [
        { key: "shop", type: "string", required: true },
        { key: "sku", type: "string" },
      ],
      policies: { otp: { source: "inbound_messages" } },
    });
    const run = await engine.createRun({ template_id: tpl.id, params: { shop: shop.url, sku: "A1" } });
    await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "waiting_otp",
    );
    await expect(engine.submitOtp(run.id, {})).rejects.toMatchObject({ code: "OTP_UNAVAILABLE" });
    await source.receive({ run_id: "run_other", body: "Your code is 999999" });
    await source.receive({ body: "Your code is 123456" });
    expect((await engine.submitOtp(run.id, {})).status).not.toBe("waiting_otp");
    await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "success",
    );
    await expect(engine.submitOtp(run.id, {})).rejects.toMatchObject({ code: "RUN_NOT_WAITING" });
  });

  it("re-claims a run whose worker died and continues from its last completed step", async () => {
    const { engine, db, shop } = await setup();
    const { sql } = await import("drizzle-orm");
    await engine.stop();
    const flow = await engine.createFlow({
      name: "two",
      steps: [
        { id: "one", type: "http", method: "POST", url: "${params.shop}/one" },
        { id: "two", type: "http", method: "POST", url: "${params.shop}/two" },
      ],
    });
    const run = await engine.createRun({ flow_id: flow.id, params: { shop: shop.url } });
    // A worker claimed it, completed step one, and died with its lease running out.
    await db.run(
      sql`UPDATE runs_runs SET status = 'running', cursor = 1, lease_owner = 'wrk_dead', lease_expires_at = 1 WHERE id = ${run.id}`,
    );
    engine.start();
    await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "success",
    );
    expect(shop.received.map((r) => r.path)).toEqual(["/two"]);
    const types = (await engine.listEvents(run.id)).items.map((e) => e.type);
    expect(types).toContain("lease_expired");
  });

  it("aborts a running step on cancel", async () => {
    const { engine } = await setup();
    const { createServer } = await import("node:http");
    let received = false;
    let closed = false;
    const hang = createServer((req) => {
      received = true;
      req.socket.on("close", () => {
        closed = true;
      });
    }); // never answers
    await new Promise<void>((resolve) => hang.listen(0, "127.0.0.1", resolve));
    cleanups.push(async () => {
      hang.closeAllConnections();
      await new Promise<void>((resolve) => hang.close(() => resolve()));
    });
    const port = (hang.address() as { port: number }).port;
    const flow = await engine.createFlow({
      name: "slow",
      steps: [{ id: "slow", type: "http", method: "GET", url: `http://127.0.0.1:${port}/hang` }],
    });
    const run = await engine.createRun({ flow_id: flow.id });
    await waitFor(async () => received, Boolean);
    expect((await engine.cancelRun(run.id)).status).toBe("cancelled");
    await waitFor(async () => closed, Boolean, 2000);
    await expect(engine.cancelRun(run.id)).rejects.toMatchObject({ code: "RUN_FINISHED" });
    expect((await engine.getRun(run.id)).status).toBe("cancelled");
  });

  it("fails a run that outlives its run timeout", async () => {
    const { engine } = await setup();
    const flow = await engine.createFlow({ name: "nap", steps: [{ id: "nap", type: "wait", seconds: 30 }] });
    const tpl = await engine.createTemplate({
      name: "t",
      flow_id: flow.id,
      policies: { run_timeout_seconds: 1 },
    });
    const run = await engine.createRun({ template_id: tpl.id });
    const failed = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "failed",
      4000,
    );
    expect(failed.reason).toBe("run_timeout");
  });

  it("skips OTP gates when the template says OTP is not required", async () => {
    const { engine } = await setup();
    const flow = await engine.createFlow({
      name: "f",
      steps: [
        { id: "code", type: "otp_gate" },
        { id: "echo", type: "set", vars: { code: "${gate.otp_code}" } },
      ],
    });
    const tpl = await engine.createTemplate({
      name: "t",
      flow_id: flow.id,
      policies: { otp: { required: false } },
    });
    const run = await engine.createRun({ template_id: tpl.id });
    expect(
      (
        await waitFor(
          () => engine.getRun(run.id),
          (r) => r.status === "success",
        )
      ).vars,
    ).toEqual({ code: "" });
  });

  it("runs a template's pinned flow version even after the flow changes", async () => {
    const { engine } = await setup();
    const flow = await engine.createFlow({ name: "f", steps: [{ id: "a", type: "set", vars: { v: 1 } }] });
    const tpl = await engine.createTemplate({ name: "t", flow_id: flow.id, flow_version: 1 });
    await engine.updateFlow(flow.id, { steps: [{ id: "a", type: "set", vars: { v: 2 } }] });
    const pinned = await engine.createRun({ template_id: tpl.id });
    const latest = await engine.createRun({ flow_id: flow.id });
    expect(
      (
        await waitFor(
          () => engine.getRun(pinned.id),
          (r) => r.status === "success",
        )
      ).vars,
    ).toEqual({ v: 1 });
    expect(
      (
        await waitFor(
          () => engine.getRun(latest.id),
          (r) => r.status === "success",
        )
      ).vars,
    ).toEqual({ v: 2 });
    await expect(engine.updateFlow(flow.id, { name: "x", expected_version: 1 })).rejects.toMatchObject({
      code: "VERSION_CONFLICT",
    });
  });

  it("fails a step whose reference does not resolve, naming it but not any value", async () => {
    const { engine } = await setup();
    const flow = await engine.createFlow({
      name: "f",
      steps: [{ id: "a", type: "set", vars: { v: "${vars.nope}" } }],
    });
    const run = await engine.createRun({ flow_id: flow.id });
    const failed = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "failed",
    );
    expect(failed).toMatchObject({
      reason: "interpolation_failed",
      error: "a: ${vars.nope} does not resolve",
    });
  });

  it("forgets a run's secrets once it ends, keeping copies in vars redacted", async () => {
    const { engine, db } = await setup();
    const { sql } = await import("drizzle-orm");
    const flow = await engine.createFlow({
      name: "f",
      steps: [
        {
          id: "copy",
          type: "set",
          vars: { card: "${secrets.card}", note: "card ${secrets.card}", plain: 1 },
        },
        { id: "check", type: "assert", value: "${vars.card}", equals: "4242" },
      ],
    });
    const tpl = await engine.createTemplate({
      name: "t",
      flow_id: flow.id,
      params_schema: [{ key: "card", type: "secret", required: true }],
    });
    const run = await engine.createRun({ template_id: tpl.id, params: { card: "4242" } });
    const done = await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "success",
    );
    expect(done.vars).toEqual({ card: "[redacted]", note: "[redacted]", plain: 1 });
    const raw = await db.all(sql`SELECT secrets, vars FROM runs_runs WHERE id = ${run.id}`);
    expect(JSON.stringify(raw)).not.toContain("4242");
    expect(JSON.stringify(await engine.listEvents(run.id))).not.toContain("4242");
  });

  it("only waits for what is left of a wait step after its worker died", async () => {
    const { engine, db } = await setup();
    const { sql } = await import("drizzle-orm");
    await engine.stop();
    const flow = await engine.createFlow({ name: "nap", steps: [{ id: "nap", type: "wait", seconds: 5 }] });
    const run = await engine.createRun({ flow_id: flow.id });
    const startedAt = Date.now() - 4800;
    await db.run(
      sql`UPDATE runs_runs SET status = 'running', lease_owner = 'wrk_dead', lease_expires_at = 1,
          step_started_at = ${startedAt}, step_started_cursor = 0 WHERE id = ${run.id}`,
    );
    const t0 = Date.now();
    engine.start();
    await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "success",
      3000,
    );
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
