import { afterEach, describe, expect, it } from "vitest";
import { codeOf, openTestEngine, waitFor } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("regular expressions from users", () => {
  it("matches the catastrophic ^(a+)+$ against 28 a's and a ! in linear time", async () => {
    const t = await openTestEngine();
    cleanups.push(t.close);
    const value = `${"a".repeat(28)}!`;
    const flow = await t.engine.createFlow({
      name: "redos",
      steps: [{ id: "check", type: "assert", value, matches: "^(a+)+$" }],
    });
    const run = await t.engine.createRun({ flow_id: flow.id });
    const started = performance.now();
    t.engine.start();
    const done = await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status === "failed",
    );
    expect(done.reason).toBe("assertion_failed");
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("refuses patterns that need backtracking when a flow or template is saved, with REGEX_INVALID", async () => {
    const t = await openTestEngine();
    cleanups.push(t.close);
    const assertFlow = {
      name: "a",
      steps: [{ id: "c", type: "assert" as const, value: "x", matches: "(a)\\1" }],
    };
    expect(await codeOf(t.engine.createFlow(assertFlow))).toBe("REGEX_INVALID");
    const gate = {
      name: "g",
      steps: [{ id: "g", type: "input_gate" as const, prompt: "Zip?", input_schema: { pattern: "(?=a)a" } }],
    };
    expect(await codeOf(t.engine.createFlow(gate))).toBe("REGEX_INVALID");
    const flow = await t.engine.createFlow({ name: "ok", steps: [{ id: "s", type: "set", vars: {} }] });
    expect(await codeOf(t.engine.updateFlow(flow.id, { steps: assertFlow.steps }))).toBe("REGEX_INVALID");
    const params = [{ key: "sku", type: "string" as const, pattern: "(?<!x)y" }];
    expect(
      await codeOf(t.engine.createTemplate({ name: "t", flow_id: flow.id, params_schema: params })),
    ).toBe("REGEX_INVALID");
    const tpl = await t.engine.createTemplate({ name: "t", flow_id: flow.id });
    expect(await codeOf(t.engine.updateTemplate(tpl.id, { params_schema: params }))).toBe("REGEX_INVALID");
    expect((await t.engine.getFlow(flow.id)).version).toBe(1);
  });

  it("checks typed input and template params with the linear-time engine", async () => {
    const t = await openTestEngine();
    cleanups.push(t.close);
    const flow = await t.engine.createFlow({
      name: "zip",
      steps: [{ id: "zip", type: "input_gate", prompt: "Zip?", input_schema: { pattern: "^(a+)+$" } }],
    });
    const tpl = await t.engine.createTemplate({
      name: "t",
      flow_id: flow.id,
      params_schema: [{ key: "code", type: "string", pattern: "^(a|aa)+$" }],
    });
    const started = performance.now();
    expect(
      await codeOf(t.engine.createRun({ template_id: tpl.id, params: { code: `${"a".repeat(40)}!` } })),
    ).toBe("PARAMS_INVALID");
    const run = await t.engine.createRun({ template_id: tpl.id, params: { code: "aaa" } });
    t.engine.start();
    await waitFor(
      () => t.engine.getRun(run.id),
      (r) => r.status === "waiting_user",
    );
    expect(
      await codeOf(t.engine.resumeRun(run.id, { kind: "input", input_text: `${"a".repeat(40)}!` })),
    ).toBe("INPUT_INVALID");
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
