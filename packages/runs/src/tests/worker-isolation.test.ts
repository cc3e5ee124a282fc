import { MAX_JSON_DEPTH } from "@vetted/store";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { codeOf, openTestEngine, waitFor } from "./harness.js";
import { startSink } from "./sink.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** `[[[…]]]` nested `depth` deep around `inner`. */
function nested(depth: number, inner: unknown = "x"): unknown {
  let value: unknown = inner;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** The same as JSON text, built without any recursive serializer. */
function nestedText(depth: number): string {
  return `${"[".repeat(depth)}"x"${"]".repeat(depth)}`;
}

describe("a run no worker round can stall on", () => {
  it("fails a run whose stored flow nests 20,000 deep alone, and the other queued runs finish", async () => {
    const t = await openTestEngine();
    cleanups.push(t.close);
    const flow = await t.engine.createFlow({
      name: "plain",
      steps: [{ id: "s", type: "set", vars: { a: 1 } }],
    });
    // The hostile run is the oldest, so every round would claim it first.
    const bad = await t.engine.createRun({ flow_id: flow.id });
    const steps = `[{"id":"s","type":"set","vars":{"deep":${nestedText(20_000)}}}]`;
    await t.db.run(sql`UPDATE runs_runs SET steps = ${steps} WHERE id = ${bad.id}`);
    const good = await Promise.all([1, 2, 3].map(() => t.engine.createRun({ flow_id: flow.id })));
    t.engine.start();
    for (const run of good) {
      await waitFor(
        () => t.engine.getRun(run.id),
        (r) => r.status === "success",
      );
    }
    const failed = await waitFor(
      () => t.engine.getRun(bad.id),
      (r) => r.status === "failed",
    );
    expect(failed.reason).toBe("nesting_too_deep");
    expect(failed.error).toContain("NESTING_TOO_DEEP");
  });

  it("fails a run whose set steps build vars deeper than the limit, without storing them", async () => {
    const t = await openTestEngine();
    cleanups.push(t.close);
    const flow = await t.engine.createFlow({
      name: "deepening",
      steps: [
        { id: "a", type: "set", vars: { v: nested(MAX_JSON_DEPTH - 6) } },
        { id: "b", type: "set", vars: { v: nested(MAX_JSON_DEPTH - 6, "${vars.v}") } },
        { id: "c", type: "set", vars: { never: true } },
      ],
    });
    const run = await t.engine.createRun({ flow_id: flow.id });
    const other = await t.engine.createRun({ flow_id: flow.id, params: {} });
    t.engine.start();
    const failed = await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status === "failed",
    );
    expect(failed.reason).toBe("nesting_too_deep");
    expect(failed.error).toContain("NESTING_TOO_DEEP: The vars step b sets");
    expect(failed.vars.never).toBeUndefined();
    expect(
      (
        await waitFor(
          () => t.engine.getRun(other.id),
          (r) => r.status === "failed",
        )
      ).reason,
    ).toBe("nesting_too_deep");
  });

  it("fails a run that crashes after a request was sent, once, instead of re-claiming and repeating it", async () => {
    const sink = await startSink();
    const t = await openTestEngine();
    cleanups.push(t.close, sink.close);
    const flow = await t.engine.createFlow({
      name: "send-then-deepen",
      steps: [
        { id: "send", type: "http", method: "POST", url: `${sink.url}/order` },
        { id: "a", type: "set", vars: { v: nested(MAX_JSON_DEPTH - 6) } },
        { id: "b", type: "set", vars: { v: nested(MAX_JSON_DEPTH - 6, "${vars.v}") } },
      ],
    });
    const run = await t.engine.createRun({ flow_id: flow.id });
    t.engine.start();
    const failed = await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status !== "queued" && r.status !== "running",
    );
    expect(failed).toMatchObject({ status: "failed", reason: "nesting_too_deep" });
    // Longer than a lease: nothing claims the run again.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(sink.received).toHaveLength(1);
    expect((await t.engine.getRun(run.id)).status).toBe("failed");
  });

  it("refuses over-deep flows, templates and run params when they are saved, with NESTING_TOO_DEEP", async () => {
    const t = await openTestEngine();
    cleanups.push(t.close);
    const deepStep = { id: "s", type: "set" as const, vars: { v: nested(5_000) } };
    expect(await codeOf(t.engine.createFlow({ name: "deep", steps: [deepStep] }))).toBe("NESTING_TOO_DEEP");
    const flow = await t.engine.createFlow({ name: "ok", steps: [{ id: "s", type: "set", vars: {} }] });
    expect(await codeOf(t.engine.updateFlow(flow.id, { steps: [deepStep] }))).toBe("NESTING_TOO_DEEP");
    // 3,000 deep would overflow the canonical JSON of the idempotency hash: refused before it.
    expect(
      await codeOf(
        t.engine.createRun({ flow_id: flow.id, params: { p: nested(3_000) } }, { idempotencyKey: "k" }),
      ),
    ).toBe("NESTING_TOO_DEEP");
    expect(
      await codeOf(
        t.engine.createTemplate({
          name: "t",
          flow_id: flow.id,
          defaults: nested(200) as Record<string, string>,
        }),
      ),
    ).toBe("NESTING_TOO_DEEP");
    expect((await t.engine.listRuns()).items).toHaveLength(0);
  });
});
