import { compileUserRegex } from "@vetted/store";
import type { RunsErrorCode } from "../errors.js";
import { references } from "./interpolate.js";
import type { ResumeRequest, WaitContext } from "./run.js";
import {
  canTransition,
  type EndReason,
  isTerminal,
  isWaiting,
  type ResumeKind,
  type RunStatus,
} from "./status.js";
import type { GateRequest, Step, StepOutcome } from "./steps.js";
import type { Policies } from "./template.js";

/** Values gates handed to the run: the last one-time code, typed text, steps approved under policy. */
export interface GateValues {
  otp_code?: string | undefined;
  input_text?: string | undefined;
  approved_steps: string[];
}

/** The mutable part of a run, as one transition reads and writes it. */
export interface RunState {
  status: RunStatus;
  /** Index of the next step to execute. */
  cursor: number;
  vars: Record<string, unknown>;
  gate: GateValues;
  wait: WaitContext | null;
  /** When the open gate expires (ms); null unless waiting. */
  waitExpiresAt: number | null;
  reason: EndReason | null;
  error: string | null;
  otpAttempts: number;
  version: number;
}

/** An event a transition records (appended in the same transaction). */
export interface EventDraft {
  type:
    | "run_created"
    | "lease_expired"
    | "status_changed"
    | "step_started"
    | "step_finished"
    | "gate_opened"
    | "gate_resolved"
    | "gate_expired"
    | "error";
  data: Record<string, unknown>;
}

/** A transition's result: the next state and what to record about it. */
export interface Transition {
  state: RunState;
  events: EventDraft[];
}

/** The redaction marker written in place of a one-time code or secret. */
export const REDACTED = "[redacted]";

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function moveTo(prev: RunState, next: RunState, events: EventDraft[], detail: Record<string, unknown> = {}) {
  if (prev.status !== next.status) {
    if (!canTransition(prev.status, next.status)) {
      throw new Error(`illegal transition ${prev.status} → ${next.status}`);
    }
    events.push({ type: "status_changed", data: { from: prev.status, to: next.status, ...detail } });
  }
  return { state: { ...next, version: prev.version + 1 }, events };
}

function ended(state: RunState, status: "failed" | "cancelled", reason: EndReason, error: string | null) {
  return { ...state, status, reason, error, wait: null, waitExpiresAt: null };
}

/** The step id at `index`, or null past the end. */
function stepIdAt(steps: readonly Step[], index: number): string | null {
  return steps[index]?.id ?? null;
}

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

/** Opens the gate a gate step asked for: the run pauses, to continue after the gate step. */
export function openGate(
  state: RunState,
  steps: readonly Step[],
  gate: GateRequest,
  policies: Policies,
  now: number,
): Transition {
  const step = steps[state.cursor];
  const stepId = step?.id ?? "";
  const isOtp = gate.kind === "otp";
  const timeout =
    gate.timeout_seconds ?? (isOtp ? policies.otp.timeout_seconds : policies.gate_timeout_seconds);
  const expiresAt = now + timeout * 1000;
  const wait: WaitContext = {
    reason_code: isOtp ? "otp_required" : gate.kind === "input" ? "input_required" : "approval_required",
    at_step_id: stepId,
    resume_from_step_id: stepIdAt(steps, state.cursor + 1),
    allowed_resume_kinds: [gate.kind],
    prompt: gate.prompt,
    provider_domain: null,
    gate_required_by_policy: false,
    opened_at: iso(now),
    expires_at: iso(expiresAt),
    ...(isOtp ? { otp_attempts: 0, max_otp_attempts: policies.otp.max_attempts } : {}),
    ...(gate.input_schema === undefined ? {} : { input_schema: stripUndefined(gate.input_schema) }),
  };
  const next: RunState = {
    ...state,
    status: isOtp ? "waiting_otp" : "waiting_user",
    wait,
    waitExpiresAt: expiresAt,
    ...(isOtp ? { otpAttempts: 0 } : {}),
  };
  return moveTo(
    state,
    next,
    [
      {
        type: "gate_opened",
        data: {
          kind: gate.kind,
          reason_code: wait.reason_code,
          step_id: stepId,
          expires_at: wait.expires_at,
        },
      },
    ],
    { reason: wait.reason_code },
  );
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Pauses before a step that would reach a protected payment provider: `waiting_user`, approval required by
 * policy, plus `otp`/`input` when the step consumes `${gate.otp_code}`/`${gate.input_text}`.
 */
export function openProviderGate(
  state: RunState,
  steps: readonly Step[],
  providerDomain: string,
  policies: Policies,
  now: number,
): Transition {
  const step = steps[state.cursor];
  const stepId = step?.id ?? "";
  const kinds: ResumeKind[] = ["approval"];
  if (references(step, "gate", "otp_code")) kinds.push("otp");
  if (references(step, "gate", "input_text")) kinds.push("input");
  const expiresAt = now + policies.gate_timeout_seconds * 1000;
  const wait: WaitContext = {
    reason_code: "provider_protected_payment_step",
    at_step_id: stepId,
    resume_from_step_id: stepId,
    allowed_resume_kinds: kinds,
    prompt: `Step ${stepId} sends a request to the payment provider ${providerDomain}. Approve to continue.`,
    provider_domain: providerDomain,
    gate_required_by_policy: true,
    opened_at: iso(now),
    expires_at: iso(expiresAt),
  };
  const next: RunState = { ...state, status: "waiting_user", wait, waitExpiresAt: expiresAt };
  return moveTo(
    state,
    next,
    [
      {
        type: "gate_opened",
        data: {
          kind: "approval",
          reason_code: wait.reason_code,
          step_id: stepId,
          provider_domain: providerDomain,
        },
      },
    ],
    { reason: wait.reason_code },
  );
}

/** What {@link decideResume} refuses with. */
export interface ResumeRefusal {
  code: Extract<
    RunsErrorCode,
    "RUN_NOT_WAITING" | "VERSION_MISMATCH" | "RESUME_KIND_NOT_ALLOWED" | "INPUT_INVALID"
  >;
  message: string;
}

/**
 * The resume compare-and-set, decided: refuses unless the run waits (at `expected_version`, if given)
 * for this kind; otherwise resolves the gate and queues the run at `resume_from_step_id`
 * (approval `false` cancels it with `approval_rejected`).
 */
export function decideResume(
  state: RunState,
  steps: readonly Step[],
  request: ResumeRequest,
  now: number,
): { ok: true; transition: Transition } | { ok: false; refusal: ResumeRefusal } {
  const wait = state.wait;
  if (!isWaiting(state.status) || wait === null) {
    const message = isTerminal(state.status)
      ? `The run already ended (${state.status}); it cannot be resumed.`
      : `The run is ${state.status}, not waiting at a gate.`;
    return { ok: false, refusal: { code: "RUN_NOT_WAITING", message } };
  }
  if (request.expected_version !== undefined && request.expected_version !== state.version) {
    return {
      ok: false,
      refusal: {
        code: "VERSION_MISMATCH",
        message: `The run is at version ${state.version}, not ${request.expected_version}; reload it.`,
      },
    };
  }
  if (!wait.allowed_resume_kinds.includes(request.kind)) {
    return {
      ok: false,
      refusal: {
        code: "RESUME_KIND_NOT_ALLOWED",
        message: `This gate (${wait.reason_code}) accepts ${wait.allowed_resume_kinds.join(", ")}, not ${request.kind}.`,
      },
    };
  }
  if (request.kind === "input") {
    const problem = checkInput(request.input_text, wait.input_schema);
    if (problem !== undefined) return { ok: false, refusal: { code: "INPUT_INVALID", message: problem } };
  }
  const waitedMs = Math.max(0, now - Date.parse(wait.opened_at));
  const resolved: EventDraft = {
    type: "gate_resolved",
    data: {
      kind: request.kind,
      reason_code: wait.reason_code,
      step_id: wait.at_step_id,
      waited_ms: waitedMs,
      ...(request.kind === "otp" ? { otp_code: REDACTED } : {}),
      ...(request.kind === "approval" ? { approved: request.approved } : {}),
    },
  };
  if (request.kind === "approval" && !request.approved) {
    const next = ended(state, "cancelled", "approval_rejected", null);
    return { ok: true, transition: moveTo(state, next, [resolved], { reason: "approval_rejected" }) };
  }
  const gate: GateValues = { ...state.gate, approved_steps: [...state.gate.approved_steps] };
  if (request.kind === "otp") gate.otp_code = request.otp_code;
  if (request.kind === "input") gate.input_text = request.input_text;
  if (wait.gate_required_by_policy && !gate.approved_steps.includes(wait.at_step_id)) {
    gate.approved_steps.push(wait.at_step_id);
  }
  const index =
    wait.resume_from_step_id === null
      ? steps.length
      : steps.findIndex((s) => s.id === wait.resume_from_step_id);
  const cursor = index === -1 ? steps.length : index;
  const next: RunState = {
    ...state,
    gate,
    cursor,
    wait: null,
    waitExpiresAt: null,
    status: cursor >= steps.length ? "success" : "queued",
  };
  return { ok: true, transition: moveTo(state, next, [resolved]) };
}

function checkInput(text: string, schema: WaitContext["input_schema"]): string | undefined {
  if (schema === undefined) return undefined;
  if (schema.min_length !== undefined && text.length < schema.min_length) {
    return `The input must be at least ${schema.min_length} characters.`;
  }
  if (schema.max_length !== undefined && text.length > schema.max_length) {
    return `The input must be at most ${schema.max_length} characters.`;
  }
  if (schema.pattern !== undefined && !compileUserRegex(schema.pattern).test(text)) {
    return "The input does not match the expected format.";
  }
  return undefined;
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
