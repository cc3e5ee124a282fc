import { describe, expect, it } from "vitest";
import { canTransition, isTerminal, RUN_STATUSES } from "./status.js";
import type { Step } from "./steps.js";
import { DEFAULT_POLICIES } from "./template.js";
import {
  cancelRun,
  completeStep,
  decideResume,
  expireGate,
  failStep,
  needsStartCode,
  openGate,
  openProviderGate,
  openStartGate,
  type RunState,
  stepAttempt,
} from "./transitions.js";

const NOW = Date.UTC(2026, 0, 1);

const STEPS: Step[] = [
  { id: "code", type: "otp_gate", prompt: "Code?" },
  {
    id: "pay",
    type: "http",
    method: "POST",
    url: "https://pay.example/pay",
    body: { otp: "${gate.otp_code}" },
    timeout_ms: 1000,
  },
];

/** A run state with sensible defaults, overridden where a test cares. */
function stateWith(overrides: Partial<RunState> = {}): RunState {
  return {
    status: "running",
    cursor: 0,
    vars: {},
    gate: { approved_steps: [] },
    wait: null,
    waitExpiresAt: null,
    reason: null,
    error: null,
    otpAttempts: 0,
    version: 3,
    ...overrides,
  };
}

function waitingForOtp(): RunState {
  return openGate(stateWith(), STEPS, { kind: "otp", prompt: "Code?" }, DEFAULT_POLICIES, NOW).state;
}

describe("the run state machine", () => {
  it("never lets a terminal status change", () => {
    for (const from of RUN_STATUSES.filter(isTerminal)) {
      for (const to of RUN_STATUSES) expect(canTransition(from, to)).toBe(false);
    }
  });

  it("opens an OTP gate that continues after the gate step, with a deadline", () => {
    const t = openGate(stateWith(), STEPS, { kind: "otp", prompt: "Code?" }, DEFAULT_POLICIES, NOW);
    expect(t.state).toMatchObject({ status: "waiting_otp", version: 4, waitExpiresAt: NOW + 600_000 });
    expect(t.state.wait).toMatchObject({
      reason_code: "otp_required",
      at_step_id: "code",
      resume_from_step_id: "pay",
      allowed_resume_kinds: ["otp"],
      otp_attempts: 0,
      max_otp_attempts: 3,
    });
    expect(t.events.map((e) => e.type)).toEqual(["gate_opened", "status_changed"]);
  });

  it("queues a resumed run at resume_from_step_id and redacts the code in the event", () => {
    const d = decideResume(waitingForOtp(), STEPS, { kind: "otp", otp_code: "123456" }, NOW + 5000);
    expect(d.ok).toBe(true);
    if (!d.ok) return;
    expect(d.transition.state).toMatchObject({
      status: "queued",
      cursor: 1,
      wait: null,
      gate: { otp_code: "123456" },
    });
    expect(JSON.stringify(d.transition.events)).not.toContain("123456");
    expect(d.transition.events[0]?.data).toMatchObject({ otp_code: "[redacted]", waited_ms: 5000 });
  });

  it("refuses a resume of the wrong kind, at a stale version, or of a run that is not waiting", () => {
    const waiting = waitingForOtp();
    const refuse = (state: RunState, request: Parameters<typeof decideResume>[2]) => {
      const d = decideResume(state, STEPS, request, NOW);
      return d.ok ? undefined : d.refusal.code;
    };
    expect(refuse(waiting, { kind: "approval", approved: true })).toBe("RESUME_KIND_NOT_ALLOWED");
    expect(refuse(waiting, { kind: "otp", otp_code: "1", expected_version: 1 })).toBe("VERSION_CONFLICT");
    expect(refuse(stateWith(), { kind: "otp", otp_code: "1" })).toBe("RUN_NOT_WAITING");
    expect(refuse(stateWith({ status: "success" }), { kind: "otp", otp_code: "1" })).toBe("RUN_NOT_WAITING");
  });

  it("loops a refused code back to waiting_otp until the attempts run out", () => {
    const payFailed = {
      kind: "failed" as const,
      reason: "step_failed" as const,
      message: "402",
      expectation: true,
    };
    const afterCode = (attempts: number) =>
      stateWith({ cursor: 1, gate: { otp_code: "000000", approved_steps: [] }, otpAttempts: attempts });
    const first = failStep(afterCode(0), STEPS, payFailed, DEFAULT_POLICIES, 10, NOW);
    expect(first.state).toMatchObject({
      status: "waiting_otp",
      otpAttempts: 1,
      gate: { otp_code: undefined },
    });
    expect(first.state.wait).toMatchObject({
      reason_code: "otp_rejected",
      resume_from_step_id: "pay",
      otp_attempts: 1,
    });
    const last = failStep(afterCode(2), STEPS, payFailed, DEFAULT_POLICIES, 10, NOW);
    expect(last.state).toMatchObject({ status: "failed", reason: "otp_attempts_exhausted", otpAttempts: 3 });
  });

  it("fails the run for a failure that is not about the code", () => {
    const network = {
      kind: "failed" as const,
      reason: "step_failed" as const,
      message: "ECONNREFUSED",
      expectation: false,
    };
    const t = failStep(
      stateWith({ cursor: 1, gate: { otp_code: "1", approved_steps: [] } }),
      STEPS,
      network,
      DEFAULT_POLICIES,
      1,
      NOW,
    );
    expect(t.state).toMatchObject({ status: "failed", reason: "step_failed", error: "ECONNREFUSED" });
  });

  it("asks for approval before a protected provider step, with otp allowed when the step consumes it", () => {
    const t = openProviderGate(stateWith({ cursor: 1 }), STEPS, "pay.example", DEFAULT_POLICIES, NOW);
    expect(t.state.wait).toMatchObject({
      reason_code: "provider_protected_payment_step",
      at_step_id: "pay",
      resume_from_step_id: "pay",
      gate_required_by_policy: true,
      provider_domain: "pay.example",
      allowed_resume_kinds: ["approval", "otp"],
    });
    const approved = decideResume(t.state, STEPS, { kind: "approval", approved: true }, NOW);
    expect(approved.ok && approved.transition.state).toMatchObject({
      status: "queued",
      cursor: 1,
      gate: { approved_steps: ["pay"] },
    });
    const rejected = decideResume(t.state, STEPS, { kind: "approval", approved: false }, NOW);
    expect(rejected.ok && rejected.transition.state).toMatchObject({
      status: "cancelled",
      reason: "approval_rejected",
    });
  });

  it("expires a gate only once its deadline has passed", () => {
    const waiting = waitingForOtp();
    expect(expireGate(waiting, NOW + 599_999)).toBeUndefined();
    expect(expireGate(waiting, NOW + 600_000)?.state).toMatchObject({
      status: "failed",
      reason: "wait_timeout",
    });
  });

  it("completes the run after its last step and cancels from any non-terminal status", () => {
    const t = completeStep(stateWith({ cursor: 1 }), STEPS, { kind: "completed", vars: { a: 1 } }, 5);
    expect(t.state).toMatchObject({ status: "success", cursor: 2, vars: { a: 1 } });
    expect(cancelRun(t.state)).toBeUndefined();
    expect(cancelRun(waitingForOtp())?.state).toMatchObject({ status: "cancelled", reason: "cancelled" });
  });

  it("opens a template's code gate on a queued run, resuming at the first step with the code", () => {
    const steps = STEPS.slice(1);
    const policies = { ...DEFAULT_POLICIES, otp: { ...DEFAULT_POLICIES.otp, required: true } };
    expect(needsStartCode(steps, policies)).toBe(true);
    expect(needsStartCode(STEPS, policies)).toBe(false);
    expect(needsStartCode(steps, DEFAULT_POLICIES)).toBe(false);
    const t = openStartGate(stateWith({ status: "queued", version: 1 }), steps, policies, NOW);
    expect(t.state).toMatchObject({ status: "waiting_otp", version: 2, waitExpiresAt: NOW + 600_000 });
    expect(t.state.wait).toMatchObject({
      reason_code: "otp_required",
      at_step_id: "pay",
      resume_from_step_id: "pay",
      allowed_resume_kinds: ["otp"],
      gate_required_by_policy: false,
    });
    const d = decideResume(t.state, steps, { kind: "otp", otp_code: "123456" }, NOW + 1000);
    expect(d.ok && d.transition.state).toMatchObject({
      status: "queued",
      cursor: 0,
      gate: { otp_code: "123456", approved_steps: [] },
    });
  });
});

describe("stepAttempt", () => {
  it("counts a step that sends the one-time code once more for every code refused, any other step once", () => {
    expect(stepAttempt(STEPS, "pay", 0)).toBe(1);
    expect(stepAttempt(STEPS, "pay", 2)).toBe(3);
    expect(stepAttempt(STEPS, "code", 2)).toBe(1);
    expect(stepAttempt(STEPS, "missing", 2)).toBe(1);
  });
});
