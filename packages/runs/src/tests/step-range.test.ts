import { afterEach, describe, expect, it } from "vitest";
import type { FlowInput } from "../domain/flow.js";
import { codeOf, openTestEngine, startShop, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Three plain http steps against the shop: each request names its step in the path. */
function threeCalls(): FlowInput {
  return {
    name: "three calls",
    steps: ["one", "two", "three"].map((id) => ({
      id,
      type: "http" as const,
      method: "GET" as const,
      url: `\${params.shop}/${id}`,
      expect: { status: [200] },
    })),
  };
}

async function setup() {
  const t = await openTestEngine();
  const shop = await startShop();
  cleanups.push(t.close, shop.close);
  t.engine.start();
  const flow = await t.engine.createFlow(threeCalls());
  return { ...t, shop, flow };
}

describe("a run over part of its flow", () => {
  it("starts at start_at_step_id: earlier steps are never sent and are named in the log", async () => {
    const { engine, shop, flow } = await setup();
    const run = await engine.createRun({
      flow_id: flow.id,
      params: { shop: shop.url },
      start_at_step_id: "two",
    });
    await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "success",
    );
    expect(shop.received.map((r) => r.path)).toEqual(["/two", "/three"]);
    const events = await engine.listEvents(run.id);
    const created = events.items.find((e) => e.type === "run_created");
    expect(created?.data).toMatchObject({
      start_at_step_id: "two",
      skipped_step_ids: ["one"],
      omitted_step_ids: [],
    });
  });

  it("runs exactly one step when start and stop name the same step", async () => {
    const { engine, shop, flow } = await setup();
    const run = await engine.createRun({
      flow_id: flow.id,
      params: { shop: shop.url },
      start_at_step_id: "two",
      stop_after_step_id: "two",
    });
    await waitFor(
      () => engine.getRun(run.id),
      (r) => r.status === "success",
    );
    expect(shop.received.map((r) => r.path)).toEqual(["/two"]);
  });

  it("refuses an unknown step or a stop before the start, naming the flow's steps", async () => {
    const { engine, shop, flow } = await setup();
    const base = { flow_id: flow.id, params: { shop: shop.url } };
    await expect(engine.createRun({ ...base, start_at_step_id: "four" })).rejects.toThrow(/one, two, three/);
    expect(
      await codeOf(engine.createRun({ ...base, start_at_step_id: "three", stop_after_step_id: "one" })),
    ).toBe("REQUEST_INVALID");
    expect(shop.received).toEqual([]);
  });
});
