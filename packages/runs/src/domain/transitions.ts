import { references } from "./interpolate.js";
import type { WaitContext } from "./run.js";
import { isTerminal, isWaiting } from "./status.js";
import type { Step, StepOutcome } from "./steps.js";
import type { Policies } from "./template.js";
import { type EventDraft, ended, iso, moveTo, type RunState, type Transition } from "./transition-core.js";

export {
  decideResume,
  needsStartCode,
  openGate,
  openProviderGate,
  openStartGate,
  openThreeDsGate,
  type ResumeRefusal,
} from "./gate-transitions.js";
export {
  type EventDraft,
  type GateValues,
  REDACTED,
  type RunState,
  type Transition,
} from "./transition-core.js";

/** Completes the step at the cursor: merges variables, moves on, ends in `success` after the last step. */
export function completeStep(
  state: RunState,
  steps: readonly Step[],
  outcome: Extract<StepOutcome, { kind: "completed" }>,
  durationMs: number,
): Transition {
  const step = steps[state.cursor];
  const cursor = state.cursor + 1;
  const events: EventDraft[] = [
    {
      type: "step_finished",
      data: { step_id: step?.id, outcome: "completed", duration_ms: durationMs, ...outcome.detail },
    },
  ];
  const next: RunState = {
    ...state,
    cursor,
    vars: { ...state.vars, ...outcome.vars },
    status: cursor >= steps.length ? "success" : state.status,
  };
  return moveTo(state, next, events);
}

/**
 * Which attempt at the step `stepId` this is, 1 for the first. A step that sends `${gate.otp_code}` is
 * attempted again each time a wrong code sends the run back to the gate (`otp_attempts` counts those), so
 * its attempt is `otp_attempts + 1`; any other step has one attempt. A re-claim after a crash, or an
 * approved re-send of a step whose outcome is unknown, changes neither: it is the same attempt again.
 */
export function stepAttempt(steps: readonly Step[], stepId: string, otpAttempts: number): number {
  const step = steps.find((s) => s.id === stepId);
  return step !== undefined && references(step, "gate", "otp_code") ? otpAttempts + 1 : 1;
}

/**
 * A step failed. When it consumed `${gate.otp_code}` and its expectation did not hold, the code was wrong:
 * the run goes back to `waiting_otp` with one more attempt counted, until the policy's maximum
 * (then `failed` with `otp_attempts_exhausted`). Any other failure fails the run.
 */
export function failStep(
  state: RunState,
  steps: readonly Step[],
  outcome: Extract<StepOutcome, { kind: "failed" }>,
  policies: Policies,
  durationMs: number,
  now: number,
): Transition {
  const step = steps[state.cursor];
  const events: EventDraft[] = [
    {
      type: "step_finished",
      data: {
        step_id: step?.id,
        outcome: "failed",
        duration_ms: durationMs,
        message: outcome.message,
        ...outcome.detail,
      },
    },
  ];
  const consumedOtp =
    step !== undefined && state.gate.otp_code !== undefined && references(step, "gate", "otp_code");
  if (outcome.expectation && consumedOtp && step !== undefined) {
    const attempts = state.otpAttempts + 1;
    const max = policies.otp.max_attempts;
    const gate = { ...state.gate, otp_code: undefined };
    if (attempts >= max) {
      const next = ended({ ...state, otpAttempts: attempts, gate }, "failed", "otp_attempts_exhausted", null);
      return moveTo(state, { ...next, error: `the one-time code was refused ${attempts} times` }, events, {
        reason: "otp_attempts_exhausted",
      });
    }
    const expiresAt = now + policies.otp.timeout_seconds * 1000;
    const wait: WaitContext = {
      reason_code: "otp_rejected",
      at_step_id: step.id,
      resume_from_step_id: step.id,
      allowed_resume_kinds: ["otp"],
      prompt: "The code was not accepted. Enter the new one-time code",
      provider_domain: state.wait?.provider_domain ?? null,
      gate_required_by_policy: false,
      opened_at: iso(now),
      expires_at: iso(expiresAt),
      otp_attempts: attempts,
      max_otp_attempts: max,
    };
    events.push({
      type: "gate_opened",
      data: { kind: "otp", reason_code: wait.reason_code, step_id: step.id },
    });
    const next: RunState = {
      ...state,
      status: "waiting_otp",
      otpAttempts: attempts,
      gate,
      wait,
      waitExpiresAt: expiresAt,
    };
    return moveTo(state, next, events, { reason: "otp_rejected" });
  }
  events.push({ type: "error", data: { step_id: step?.id, message: outcome.message } });
  return moveTo(state, ended(state, "failed", outcome.reason, outcome.message), events, {
    reason: outcome.reason,
  });
}

/** Fails the run because a step's `${…}` reference did not resolve. */
export function failInterpolation(state: RunState, stepId: string, reference: string): Transition {
  const message = `${stepId}: ${reference} does not resolve`;
  return moveTo(
    state,
    ended(state, "failed", "interpolation_failed", message),
    [{ type: "error", data: { step_id: stepId, message } }],
    { reason: "interpolation_failed" },
  );
}

/**
 * Fails the run because sealed values it needs (secret params, a one-time code, vars holding them) do not
 * decrypt: the installation's secrets key changed, or the stored ciphertext was altered.
 */
export function failUnreadableSecrets(state: RunState, stepId: string, slots: readonly string[]): Transition {
  const message = `SECRET_UNREADABLE: ${stepId}: the run's sealed values (${slots.join(", ")}) do not decrypt with this installation's secrets key`;
  return moveTo(
    state,
    ended(state, "failed", "secret_unreadable", message),
    [{ type: "error", data: { step_id: stepId, code: "SECRET_UNREADABLE", message } }],
    { reason: "secret_unreadable" },
  );
}

/** Cancels a run from any non-terminal status; returns undefined for a run that already ended. */
export function cancelRun(state: RunState, reason: "cancelled" = "cancelled"): Transition | undefined {
  if (isTerminal(state.status)) return undefined;
  return moveTo(state, ended(state, "cancelled", reason, null), [], { reason });
}

/** Expires an open gate whose deadline passed: `failed` with `wait_timeout`. */
export function expireGate(state: RunState, now: number): Transition | undefined {
  if (!isWaiting(state.status) || state.waitExpiresAt === null || state.waitExpiresAt > now) return undefined;
  const wait = state.wait;
  const message = `the gate at ${wait?.at_step_id ?? "?"} was not resolved by ${wait?.expires_at ?? "?"}`;
  return moveTo(
    state,
    ended(state, "failed", "wait_timeout", message),
    [{ type: "gate_expired", data: { step_id: wait?.at_step_id, reason_code: wait?.reason_code } }],
    { reason: "wait_timeout" },
  );
}

/** Fails a run that outlived its run timeout. */
export function timeOutRun(state: RunState): Transition | undefined {
  if (isTerminal(state.status)) return undefined;
  return moveTo(state, ended(state, "failed", "run_timeout", "the run exceeded its run timeout"), [], {
    reason: "run_timeout",
  });
}

/** A worker claims a queued run (or one whose previous worker's lease expired). */
export function claimRun(state: RunState, leaseExpired: boolean): Transition {
  const events: EventDraft[] = leaseExpired
    ? [
        {
          type: "lease_expired",
          data: { message: "the previous worker's lease expired; continuing from the last completed step" },
        },
      ]
    : [];
  return moveTo(state, { ...state, status: "running" }, events);
}
