import { describe, expect, it } from "vitest";
import { gateNotice, waitingRunOf } from "./wait-notice.js";

const wait = {
  at_step_id: "code",
  prompt: "Enter the code we texted you",
  opened_at: "2026-01-01T00:00:00.000Z",
};

describe("waitingRunOf", () => {
  it("answers the run of a change into a waiting status, nothing for other changes or bad frames", () => {
    const frame = (status: string, from: string | null) =>
      JSON.stringify({ id: 3, run_id: "run_1", type: "status_changed", status, from, at: "x" });
    expect(waitingRunOf(frame("waiting_otp", "running"))).toBe("run_1");
    expect(waitingRunOf(frame("waiting_user", "waiting_otp"))).toBe("run_1");
    expect(waitingRunOf(frame("running", "waiting_otp"))).toBeUndefined();
    expect(waitingRunOf(frame("success", "running"))).toBeUndefined();
    expect(waitingRunOf("{")).toBeUndefined();
    expect(waitingRunOf("null")).toBeUndefined();
    expect(waitingRunOf(JSON.stringify({ status: "waiting_otp" }))).toBeUndefined();
  });
});

describe("gateNotice", () => {
  it("names the template, carries the prompt and links to the run; one key per wait", () => {
    const notice = gateNotice({ id: "run_1", status: "waiting_otp", wait_context: wait }, "checkout");
    expect(notice).toEqual({
      key: "run_1:code:2026-01-01T00:00:00.000Z",
      title: "checkout needs a one-time code",
      body: "Enter the code we texted you",
      url: "/runs/run_1",
    });
    const next = gateNotice(
      { id: "run_1", status: "waiting_user", wait_context: { ...wait, at_step_id: "ok", prompt: "Pay?" } },
      "checkout",
    );
    expect(next?.key).not.toBe(notice?.key);
    expect(next?.title).toBe("checkout waits for your approval");
  });

  it("answers nothing once the run no longer waits, and shortens a long prompt", () => {
    expect(gateNotice({ id: "r", status: "running", wait_context: null }, "x")).toBeUndefined();
    expect(gateNotice({ id: "r", status: "waiting_user", wait_context: null }, "x")).toBeUndefined();
    const long = gateNotice(
      { id: "r", status: "waiting_user", wait_context: { ...wait, prompt: "a".repeat(500) } },
      "x",
    );
    expect(long?.body).toHaveLength(300);
    expect(long?.body.endsWith("…")).toBe(true);
  });
});
