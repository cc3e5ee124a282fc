import { afterEach, describe, expect, it } from "vitest";
import { createLocalEmbedder } from "../lanes/embeddings/local.js";
import { openTestEngine, startShop, TEST_CACHE_DIR, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("similar failures", () => {
  it("embeds failed runs and ranks the run failing with the same error first", async () => {
    const t = await openTestEngine({ embedder: createLocalEmbedder({ cacheDir: TEST_CACHE_DIR }) });
    cleanups.push(t.close);
    const shop = await startShop();
    cleanups.push(shop.close);
    const { engine } = t;
    engine.start();
    const payment = await engine.createFlow({
      name: "payment declined",
      steps: [
        { id: "pay", type: "http", method: "POST", url: "${params.shop}/pay", expect: { status: [200] } },
      ],
    });
    const check = await engine.createFlow({
      name: "mountain check",
      steps: [
        { id: "trail", type: "http", method: "GET", url: "${params.shop}/trail", extract: { peak: "$.ok" } },
        {
          id: "summit",
          type: "assert",
          value: "${vars.peak}",
          equals: "hike a mountain trail to the summit",
          message: "the trail did not reach the mountain summit",
        },
      ],
    });
    const run = (flow: string) => engine.createRun({ flow_id: flow, params: { shop: shop.url } });
    const first = await run(payment.id);
    const other = await run(check.id);
    const same = await run(payment.id);
    const third = await run(payment.id);
    for (const r of [first, other, same, third]) {
      await waitFor(
        () => engine.getRun(r.id),
        (x) => x.status === "failed",
        10_000,
      );
    }
    await waitFor(
      () => engine.similarFailures(first.id, 5),
      (list) => list.length === 3,
      120_000,
    );
    const ranked = await engine.similarFailures(first.id, 2);
    expect(ranked).toHaveLength(2);
    expect([same.id, third.id]).toContain(ranked[0]?.run_id);
    expect(ranked[0]?.similarity).toBeCloseTo(1, 5);
    expect(ranked[0]?.shared_reason_codes).toEqual(["step_failed"]);
    const all = await engine.similarFailures(first.id, 5);
    expect(all.at(-1)?.run_id).toBe(other.id);
    expect(all.map((x) => x.run_id)).not.toContain(first.id);
    await expect(engine.similarFailures(first.id, 21)).rejects.toMatchObject({ code: "REQUEST_INVALID" });
    await expect(engine.similarFailures("run_missing")).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
  }, 180_000);
});
