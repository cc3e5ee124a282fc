import { describe, expect, it } from "vitest";
import { flowParamNames, gateAnswer, rerunParams, shownParams, stepRows } from "./run-model.js";

describe("run model", () => {
  it("finds the params a flow reads, once each, in order", () => {
    const steps = [
      { id: "a", type: "http", url: "${params.shop}/cart", body: { x: "${params.sku}" } },
      { id: "b", type: "set", vars: { y: "${params.shop}", z: "${vars.q}" } },
    ];
    expect(flowParamNames(steps)).toEqual(["shop", "sku"]);
    expect(flowParamNames([])).toEqual([]);
  });

  it("re-sends the params it can, naming the masked ones", () => {
    expect(rerunParams({ shop: "http://x", card: "[redacted]", n: 2 })).toEqual({
      params: { shop: "http://x", n: 2 },
      masked: ["card"],
    });
    expect(rerunParams({ shop: "http://x" }, ["pin"])).toEqual({
      params: { shop: "http://x" },
      masked: ["pin"],
    });
    expect(shownParams({ shop: "http://x" }, ["pin"])).toEqual({ shop: "http://x", pin: "[redacted]" });
  });

  it("gives every step of the flow a state: finished, waiting gate, to come", () => {
    const steps = [
      { id: "a", type: "set" },
      { id: "gate", type: "approval_gate" },
      { id: "b", type: "http" },
    ];
    const events = [
      { type: "step_started", at: "2026-01-01T00:00:00.000Z", data: { step_id: "a" } },
      { type: "step_finished", at: "2026-01-01T00:00:00.040Z", data: { step_id: "a", outcome: "ok" } },
      { type: "gate_opened", at: "2026-01-01T00:00:01.000Z", data: { step_id: "gate" } },
    ];
    expect(stepRows(steps, events, false)).toEqual([
      { id: "a", type: "set", state: "ok", durationMs: 40 },
      { id: "gate", type: "approval_gate", state: "waiting", durationMs: undefined },
      { id: "b", type: "http", state: "to come", durationMs: undefined },
    ]);
    const rejected = [
      ...events,
      { type: "gate_resolved", at: "2026-01-01T00:00:02.000Z", data: { step_id: "gate", approved: false } },
    ];
    expect(stepRows(steps, rejected, true).map((r) => r.state)).toEqual(["ok", "rejected", "not run"]);
  });

  it("says who answered a gate and with what comment", () => {
    const e = (data: Record<string, unknown>) => ({ type: "gate_resolved", at: "", data });
    expect(gateAnswer(e({ kind: "approval", approved: true, answered_by: "local", comment: "fine" }))).toBe(
      "approved by local: “fine”",
    );
    expect(gateAnswer(e({ kind: "otp" }))).toBe("answered (otp)");
    expect(gateAnswer({ type: "step_started", at: "", data: {} })).toBeUndefined();
  });
});
