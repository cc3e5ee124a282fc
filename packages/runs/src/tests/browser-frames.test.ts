import { describe, expect, it } from "vitest";
import { Target } from "../domain/browser-steps.js";
import type { Run } from "../domain/run.js";
import type { RunsEngine } from "../platform.js";
import { target } from "./browser-flows.js";
import { useBrowserSuite } from "./browser-suite.js";
import { waitFor } from "./harness.js";

// The card form tokenises before it posts, so the payment leaves a moment after the approved click.
const suite = useBrowserSuite("vetted-frames-", { cardSubmitDelayMs: 250 });

const until = (engine: RunsEngine, id: string, done: (r: Run) => boolean) =>
  waitFor(() => engine.getRun(id), done, 20_000);
const settled = (r: Run) => r.status !== "queued" && r.status !== "running";

describe("targets inside frames (real Chromium)", { timeout: 90_000 }, () => {
  it("types into a same-origin and a cross-origin frame, and the evidence names the frame", async () => {
    // Without protected domains the provider's suite.host is just another origin.
    const { engine } = await suite.engineWith({ protectedDomains: [] });
    const flow = await engine.createFlow({
      name: "frames",
      steps: [
        { id: "open", type: "navigate", url: `${suite.site.url}/frames` },
        { id: "note", type: "type", target: target({ kind: "label", value: "Note" }), value: "ring twice" },
        { id: "save", type: "click", target: target({ kind: "role", value: "button", name: "Save note" }) },
        { id: "saved", type: "assert", target: target({ kind: "css", value: "#saved" }), text: "ring twice" },
        {
          id: "holder",
          type: "type",
          target: { ...target({ kind: "label", value: "Cardholder" }), frame: { name: "card" } },
          value: "Ada Lovelace",
        },
        {
          id: "read",
          type: "extract",
          target: target({ kind: "css", value: "#holder" }),
          attr: "name",
          var: "field",
        },
      ],
    });
    const run = await engine.createRun({ flow_id: flow.id });
    const done = await until(engine, run.id, settled);
    expect(done.status, done.error ?? "").toBe("success");
    expect(done.vars).toMatchObject({ field: "holder" });
    const evidence = (await engine.listEvidence(run.id)).items;
    const byStep = (id: string) => evidence.find((e) => e.step_id === id)?.detail;
    expect(byStep("note")).toMatchObject({
      selector_index: 0,
      frame: { name: "note", url: `${suite.site.url}/frames/note`, main: false },
    });
    expect(byStep("save")).toMatchObject({ frame: { name: "note", main: false } });
    expect(byStep("holder")).toMatchObject({
      frame: { name: "card", url: `${suite.site.payUrl}/card-form?sca=0`, main: false },
    });
    expect(byStep("read")).toMatchObject({ frame: { name: "card" } });
    const open = byStep("open");
    expect(open?.frame).toBeUndefined();
  });

  it("falls back to the second selector inside a frame, and the trail says where it matched", async () => {
    const { engine } = await suite.engineWith({ protectedDomains: [] });
    const flow = await engine.createFlow({
      name: "frame-fallback",
      steps: [
        { id: "open", type: "navigate", url: `${suite.site.url}/frames` },
        {
          id: "note",
          type: "type",
          target: target({ kind: "css", value: "#renamed-note" }, { kind: "label", value: "Note" }),
          value: "hello",
        },
      ],
    });
    const run = await engine.createRun({ flow_id: flow.id });
    expect((await until(engine, run.id, settled)).status).toBe("success");
    const typed = (await engine.listEvidence(run.id, { step_id: "note" })).items[0];
    expect(typed?.detail).toMatchObject({
      selector_index: 1,
      fallback: true,
      frame: { name: "note" },
      selector_trail: [
        { index: 0, kind: "css", value: "#renamed-note", result: "no match" },
        {
          index: 1,
          kind: "label",
          value: "Note",
          result: "matched",
          frame_url: `${suite.site.url}/frames/note`,
        },
      ],
    });
  });

  it("pauses before clicking Pay now inside the protected provider's frame; approved, it pays (and 3-D Secure in the frame pauses)", async () => {
    const { engine } = await suite.engineWith();
    const flow = await engine.createFlow({
      name: "card-frame",
      steps: [
        // The shop's page loads; the provider's frame in it is not a step on the provider.
        // Paying leads the frame to /verify: a challenge only its text in the frame tells.
        { id: "open", type: "navigate", url: `${suite.site.url}/frames?sca=2` },
        { id: "note", type: "type", target: target({ kind: "label", value: "Note" }), value: "gift" },
        { id: "pay", type: "click", target: target({ kind: "role", value: "button", name: "Pay now" }) },
        { id: "after", type: "wait_for", text: "Payment successful", timeout_ms: 500 },
      ],
    });
    const before = suite.site.payments();
    const run = await engine.createRun({ flow_id: flow.id });
    const paused = await until(
      engine,
      run.id,
      (r) => r.wait_context?.at_step_id === "pay" || (settled(r) && r.status !== "waiting_user"),
    );
    expect(paused.status, paused.error ?? "").toBe("waiting_user");
    expect(paused.wait_context).toMatchObject({
      reason_code: "provider_protected_payment_step",
      provider_domain: suite.site.payHost,
      gate_required_by_policy: true,
      at_step_id: "pay",
    });
    expect(suite.site.payments()).toBe(before);

    await engine.resumeRun(run.id, { kind: "approval", approved: true });
    const challenged = await until(
      engine,
      run.id,
      (r) =>
        r.wait_context?.reason_code === "three_ds_challenge_detected" ||
        (settled(r) && r.status !== "waiting_user"),
    );
    expect(suite.site.payments()).toBe(before + 1);
    expect(challenged.wait_context).toMatchObject({
      reason_code: "three_ds_challenge_detected",
      at_step_id: "pay",
    });
    const pay = (await engine.listEvidence(run.id, { step_id: "pay" })).items.at(-1);
    expect(pay?.detail).toMatchObject({ frame: { name: "card", main: false } });
  });

  it("scopes a target to a frame by url or name, and validates the scope", async () => {
    expect(Target.safeParse({ selectors: [{ kind: "css", value: "#x" }] }).success).toBe(true);
    expect(
      Target.safeParse({ selectors: [{ kind: "css", value: "#x" }], frame: { url: "/card-form" } }).success,
    ).toBe(true);
    expect(Target.safeParse({ selectors: [{ kind: "css", value: "#x" }], frame: {} }).success).toBe(false);

    const { engine } = await suite.engineWith({ protectedDomains: [] });
    const flow = await engine.createFlow({
      name: "scoped",
      steps: [
        { id: "open", type: "navigate", url: `${suite.site.url}/frames` },
        {
          id: "wrong_frame",
          type: "type",
          target: { ...target({ kind: "label", value: "Note" }), frame: { url: "/card-form" } },
          value: "x",
          timeout_ms: 300,
        },
      ],
    });
    const run = await engine.createRun({ flow_id: flow.id });
    const done = await until(engine, run.id, settled);
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/wrong_frame: no selector found the element/);
  });
});
