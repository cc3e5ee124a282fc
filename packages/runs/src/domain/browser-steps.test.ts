import { describe, expect, it } from "vitest";
import {
  APPROVED_LATE_REQUEST_MS,
  ClickStep,
  LATE_REQUEST_MS,
  lateRequestWindowMs,
  NavigateStep,
} from "./browser-steps.js";
import { Step } from "./steps.js";

const click = ClickStep.parse({
  id: "pay",
  type: "click",
  target: { selectors: [{ kind: "text", value: "Pay" }] },
});

describe("lateRequestWindowMs: how long an acting step waits for the requests its page sends late", () => {
  it("is 150 ms by default and at least 750 ms once approved", () => {
    expect(lateRequestWindowMs(click, false)).toBe(LATE_REQUEST_MS);
    expect(LATE_REQUEST_MS).toBe(150);
    expect(lateRequestWindowMs(click, true)).toBe(APPROVED_LATE_REQUEST_MS);
    expect(APPROVED_LATE_REQUEST_MS).toBe(750);
  });

  it("is the step's own late_request_ms, never under the approved floor once approved", () => {
    expect(lateRequestWindowMs({ ...click, late_request_ms: 0 }, false)).toBe(0);
    expect(lateRequestWindowMs({ ...click, late_request_ms: 400 }, false)).toBe(400);
    expect(lateRequestWindowMs({ ...click, late_request_ms: 0 }, true)).toBe(750);
    expect(lateRequestWindowMs({ ...click, late_request_ms: 2_000 }, true)).toBe(2_000);
  });

  it("is 0 for a step that does not act on the page", () => {
    const look = Step.parse({ id: "look", type: "wait_for", text: "Paid" });
    expect(lateRequestWindowMs(look, false)).toBe(0);
    expect(lateRequestWindowMs(look, true)).toBe(0);
    for (const type of ["navigate", "click", "type", "select"]) {
      expect(lateRequestWindowMs({ type }, false), type).toBe(150);
    }
  });

  it("accepts 0 to 5000 ms on navigate, click, type and select; other steps keep no such field", () => {
    const open = { id: "open", type: "navigate", url: "https://shop.example/" };
    expect(NavigateStep.parse({ ...open, late_request_ms: 5_000 }).late_request_ms).toBe(5_000);
    expect(NavigateStep.parse(open).late_request_ms).toBeUndefined();
    for (const bad of [-1, 5_001, 1.5, "150"]) {
      expect(NavigateStep.safeParse({ ...open, late_request_ms: bad }).success, String(bad)).toBe(false);
    }
    const typed = Step.parse({
      id: "t",
      type: "type",
      target: click.target,
      value: "x",
      late_request_ms: 300,
    });
    expect(lateRequestWindowMs(typed, false)).toBe(300);
    const selected = Step.parse({
      id: "s",
      type: "select",
      target: click.target,
      option: "M",
      late_request_ms: 0,
    });
    expect(lateRequestWindowMs(selected, false)).toBe(0);
    const look = Step.parse({ id: "look", type: "wait_for", text: "Paid", late_request_ms: 500 });
    expect(look).not.toHaveProperty("late_request_ms");
  });
});
