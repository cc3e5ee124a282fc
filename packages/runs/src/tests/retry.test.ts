import { openDatabase } from "@vetted/store/database";
import { afterEach, describe, expect, it } from "vitest";
import type { Run } from "../domain/run.js";
import { createRunsEngine } from "../platform.js";
import { codeOf, openTestEngine, startShop, TEST_SECRETS_KEY, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A checkout: `cart` sets a var, `pay` sends it with the secret code (the shop accepts 123456 only). */
async function setup() {
  const t = await openTestEngine();
  const shop = await startShop();
  cleanups.push(t.close, shop.close);
  t.engine.start();
  const flow = await t.engine.createFlow({
    name: "checkout",
    steps: [
      { id: "cart", type: "http", method: "POST", url: "${params.shop}/cart", extract: { cart_id: "$.id" } },
      {
        id: "pay",
        type: "http",
        method: "POST",
        url: "${params.shop}/pay",
        body: { cart: "${vars.cart_id}", otp: "${secrets.code}" },
        expect: { status: [200] },
      },
      { id: "done", type: "set", vars: { paid: "yes" } },
    ],
  });
  const tpl = await t.engine.createTemplate({
    name: "checkout",
    flow_id: flow.id,
    params_schema: [
      { key: "shop", type: "string", required: true },
      { key: "code", type: "secret", required: true },
    ],
  });
  return { ...t, shop, flow, tpl };
}

const ended = (r: Run) => r.status === "success" || r.status === "failed" || r.status === "cancelled";

describe("retrying a run from the step it stopped at", () => {
  it("runs the failed step and the rest with the earlier vars, and the secrets entered again", async () => {
    const { engine, shop, tpl } = await setup();
    const run = await engine.createRun({ template_id: tpl.id, params: { shop: shop.url, code: "000000" } });
    const failed = await waitFor(() => engine.getRun(run.id), ended);
    expect(failed).toMatchObject({ status: "failed", current_step_id: "pay" });

    expect(await codeOf(engine.retryRun(run.id, {}))).toBe("PARAMS_INVALID");
    const { run: retry, created } = await engine.retryRun(
      run.id,
      { secrets: { code: "123456" } },
      { by: "ana" },
    );
    expect(created).toBe(true);
    expect(retry.id).not.toBe(run.id);
    expect(retry.vars).toEqual({ cart_id: "cart_1" });
    const done = await waitFor(() => engine.getRun(retry.id), ended);
    expect(done).toMatchObject({ status: "success", vars: { cart_id: "cart_1", paid: "yes" } });
    // The cart was created once: the retry started at `pay`, with the cart the first run made.
    expect(shop.received.map((r) => r.path)).toEqual(["/cart", "/pay", "/pay"]);
    expect(shop.received[2]?.body).toEqual({ cart: "cart_1", otp: "123456" });
    const created_ = (await engine.listEvents(retry.id)).items.find((e) => e.type === "run_created");
    expect(created_?.data).toMatchObject({
      retry_of: run.id,
      start_at_step_id: "pay",
      skipped_step_ids: ["cart"],
      by: "ana",
    });
    expect(JSON.stringify(await engine.listEvents(retry.id))).not.toContain("123456");
  });

  it("refuses a run that succeeded or is still going, with RUN_NOT_RETRYABLE", async () => {
    const { engine, shop, tpl } = await setup();
    const run = await engine.createRun({ template_id: tpl.id, params: { shop: shop.url, code: "123456" } });
    expect(await waitFor(() => engine.getRun(run.id), ended)).toMatchObject({ status: "success" });
    expect(await codeOf(engine.retryRun(run.id, { secrets: { code: "123456" } }))).toBe("RUN_NOT_RETRYABLE");
    expect(await codeOf(engine.retryRun("run_missing"))).toBe("RUN_NOT_FOUND");
  });

  it("retries a run once, even when two engines on their own connections retry it at the same time", async () => {
    const { engine, shop, tpl, file } = await setup();
    const run = await engine.createRun({ template_id: tpl.id, params: { shop: shop.url, code: "000000" } });
    await waitFor(() => engine.getRun(run.id), ended);
    const other = await openDatabase({ url: `file:${file}`, busyTimeoutMs: 5000 });
    const second = createRunsEngine({ db: other.db, secretsKey: TEST_SECRETS_KEY });
    cleanups.push(async () => {
      await second.stop();
      other.client.close();
    });
    const body = { secrets: { code: "123456" } };
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? engine : second).retryRun(run.id, body)),
    );
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.run.id)).size).toBe(1);
    const { items } = await engine.listRuns({});
    expect(items.filter((r) => r.id !== run.id)).toHaveLength(1);
  });
});
