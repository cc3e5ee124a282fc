/*
 * The gate transitions: opening a gate (a gate step, a protected provider), deciding a resume (the
 * compare-and-set on the paused state). Pure, like every module of `domain/`.
 */
import { compileUserRegex } from "@vetted/store/limits";
import type { RunsErrorCode } from "../kernel/errors.js";
import { references } from "./interpolate.js";
import type { ResumeRequest, WaitContext } from "./run.js";
import { isTerminal, isWaiting, type ResumeKind } from "./status.js";
import type { GateRequest, Step } from "./steps.js";
import type { Policies } from "./template.js";
import {
  type EventDraft,
  ended,
  type GateValues,
  iso,
  moveTo,
  REDACTED,
  type RunState,
  stepIdAt,
  type Transition,
} from "./transition-core.js";

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

/**
 * Whether a run of a template opens the policy's one-time-code gate before its first step: the template
 * says a code is required (`policies.otp.required: true`, not merely left out) and none of the run's steps
 * is an `otp_gate` of its own (that step asks for the code where the flow wants it).
 */
export function needsStartCode(steps: readonly Step[], policies: Policies): boolean {
  return policies.otp.required === true && steps.length > 0 && !steps.some((s) => s.type === "otp_gate");
}

/**
 * Opens the template's one-time-code gate on a run that has not started: `queued` → `waiting_otp`
 * (`otp_required`, at and resuming from the first step), with the policy's deadline and attempts. The
 * code the run resumes with is `${gate.otp_code}`, as at an `otp_gate` step.
 */
export function openStartGate(
  state: RunState,
  steps: readonly Step[],
  policies: Policies,
  now: number,
): Transition {
  const first = stepIdAt(steps, 0) ?? "";
  const expiresAt = now + policies.otp.timeout_seconds * 1000;
  const wait: WaitContext = {
    reason_code: "otp_required",
    at_step_id: first,
    resume_from_step_id: first,
    allowed_resume_kinds: ["otp"],
    prompt: "This template requires a one-time code before the run starts. Enter the code",
    provider_domain: null,
    // Not an approval: resuming with the code must not count as approving a protected first step.
    gate_required_by_policy: false,
    opened_at: iso(now),
    expires_at: iso(expiresAt),
    otp_attempts: 0,
    max_otp_attempts: policies.otp.max_attempts,
  };
  const next: RunState = { ...state, status: "waiting_otp", wait, waitExpiresAt: expiresAt, otpAttempts: 0 };
  const data = { kind: "otp", reason_code: wait.reason_code, step_id: first, expires_at: wait.expires_at };
  return moveTo(state, next, [{ type: "gate_opened", data: { ...data, before_first_step: true } }], {
    reason: wait.reason_code,
  });
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
    "RUN_NOT_WAITING" | "VERSION_CONFLICT" | "RESUME_KIND_NOT_ALLOWED" | "INPUT_INVALID"
  >;
  message: string;
}

/**
 * The resume compare-and-set, decided: refuses unless the run waits (at `expected_version`, if given)
 * for this kind; otherwise resolves the gate and queues the run at `resume_from_step_id`
 * (approval `false` cancels it with `approval_rejected`). The gate_resolved event keeps an approval's
 * `comment` and `answeredBy` (as `answered_by`) when given.
 */
export function decideResume(
  state: RunState,
  steps: readonly Step[],
  request: ResumeRequest,
  now: number,
  answeredBy?: string,
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
        code: "VERSION_CONFLICT",
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
      ...(request.kind === "approval" && request.comment ? { comment: request.comment } : {}),
      ...(answeredBy === undefined ? {} : { answered_by: answeredBy }),
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

/**
 * Pauses after a browser step that brought up a 3-D Secure challenge (`three_ds_challenge_detected`): the
 * step is done, the run waits as `waiting_user` for a person to complete the challenge and approve, and
 * continues after the step (approval `false` cancels it).
 */
export function openThreeDsGate(
  state: RunState,
  steps: readonly Step[],
  stepId: string,
  challenge: { signal: string; url: string },
  policies: Policies,
  now: number,
): Transition {
  const index = steps.findIndex((s) => s.id === stepId);
  const expiresAt = now + policies.gate_timeout_seconds * 1000;
  let domain: string | null = null;
  try {
    domain = new URL(challenge.url).hostname;
  } catch {
    domain = null;
  }
  const wait: WaitContext = {
    reason_code: "three_ds_challenge_detected",
    at_step_id: stepId,
    resume_from_step_id: stepIdAt(steps, index + 1),
    allowed_resume_kinds: ["approval"],
    prompt: `Step ${stepId} brought up a 3-D Secure challenge (${challenge.signal}). Complete it, then approve to continue.`,
    provider_domain: domain,
    gate_required_by_policy: true,
    opened_at: iso(now),
    expires_at: iso(expiresAt),
  };
  const next: RunState = { ...state, status: "waiting_user", wait, waitExpiresAt: expiresAt };
  const data = { kind: "approval", reason_code: wait.reason_code, step_id: stepId, signal: challenge.signal };
  return moveTo(state, next, [{ type: "gate_opened", data }], { reason: wait.reason_code });
}
