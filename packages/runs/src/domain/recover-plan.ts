/*
 * The recovery plan of a stuck run: what a person can do about a run that waits at a gate, failed or was
 * cancelled, best action first. Pure: planned from the run as read; applying an action is the caller's
 * (resume, a new run, reading the evidence).
 */
import { z } from "zod";
import type { WaitContext } from "./run.js";
import { type EndReason, isWaiting, type ReasonCode, type RunStatus } from "./status.js";

/** What a recovery action does. */
export const RECOVERY_ACTION_IDS = [
  "submit_otp",
  "continue_manual_gate",
  "submit_input",
  "resume_from_step",
  "replay",
  "inspect",
] as const;

/** How careful applying an action must be. */
export const SAFETY_LEVELS = ["safe_suggestion", "confirm_before_apply", "manual_only"] as const;

/** One way out of the run's state. */
export const RecoveryAction = z
  .object({
    action_id: z.enum(RECOVERY_ACTION_IDS),
    label: z.string(),
    description: z.string(),
    step_id: z.string().optional(),
    requires_input: z.boolean(),
    safety_level: z.enum(SAFETY_LEVELS),
  })
  .meta({ id: "RecoveryAction" });
/** One way out of the run's state. */
export type RecoveryAction = z.infer<typeof RecoveryAction>;

/** `GET /api/runs/{run_id}/recover-plan`. */
export const RecoverPlan = z
  .object({
    run_id: z.string(),
    status: z.string(),
    headline: z.string(),
    reason_code: z.string().meta({ description: "The wait's reason_code, or the run's end reason" }),
    primary_action: RecoveryAction,
    actions: z.array(RecoveryAction).min(1).meta({ description: "Best first; the first is primary_action" }),
  })
  .meta({ id: "RecoverPlan" });
/** A run's recovery plan. */
export type RecoverPlan = z.infer<typeof RecoverPlan>;

/** The run as the planner needs it. */
export interface RecoverableRun {
  id: string;
  status: RunStatus;
  wait: WaitContext | null;
  reason: EndReason | null;
  error: string | null;
  /** The step at the run's cursor (where it stopped), null past the end. */
  currentStepId: string | null;
}

type Plan = { ok: true; plan: RecoverPlan } | { ok: false; message: string };

function act(
  action_id: RecoveryAction["action_id"],
  safety_level: RecoveryAction["safety_level"],
  label: string,
  description: string,
  step_id?: string | null,
): RecoveryAction {
  const requires_input = action_id === "submit_otp" || action_id === "submit_input";
  return { action_id, label, description, ...(step_id ? { step_id } : {}), requires_input, safety_level };
}

function inspect(stepId: string | null, what: string): RecoveryAction {
  return act("inspect", "safe_suggestion", "Inspect the evidence", `Read ${what} before deciding.`, stepId);
}

const REPLAY = act(
  "replay",
  "confirm_before_apply",
  "Replay the run",
  "Start a new run of the same template or flow with the same params (secrets must be given again).",
);

function waitingActions(wait: WaitContext): RecoveryAction[] {
  const at = wait.at_step_id;
  const payment =
    wait.reason_code === "provider_protected_payment_step" ||
    wait.reason_code === "three_ds_challenge_detected";
  const gate = payment ? "manual_only" : "confirm_before_apply";
  const byKind: Record<string, RecoveryAction> = {
    otp: act(
      "submit_otp",
      "safe_suggestion",
      "Submit the one-time code",
      `Send the code step ${at} waits for.`,
      at,
    ),
    input: act(
      "submit_input",
      "safe_suggestion",
      "Submit the input",
      `Type what step ${at} asks: ${wait.prompt}`,
      at,
    ),
    approval: act("continue_manual_gate", gate, "Continue past the gate", approvalText(wait), at),
  };
  const actions = wait.allowed_resume_kinds.flatMap((k) => (byKind[k] === undefined ? [] : [byKind[k]]));
  if (wait.reason_code === "step_outcome_unknown") {
    const check = inspect(
      at,
      `step ${at}'s events and the receiving system (the request may have been sent)`,
    );
    return [{ ...check, safety_level: "manual_only" }, ...actions, REPLAY];
  }
  if (payment)
    actions.sort(
      (a, b) =>
        Number(b.action_id === "continue_manual_gate") - Number(a.action_id === "continue_manual_gate"),
    );
  return [...actions, inspect(at, `the evidence up to step ${at}`), REPLAY];
}

function approvalText(wait: WaitContext): string {
  switch (wait.reason_code) {
    case "provider_protected_payment_step":
      return `A person approves step ${wait.at_step_id} reaching ${wait.provider_domain ?? "the payment provider"}; a payment may be made.`;
    case "three_ds_challenge_detected":
      return "A person completes the 3-D Secure challenge in the page, then approves.";
    case "step_outcome_unknown":
      return `Approve to send step ${wait.at_step_id} again once you know the first request did not take effect.`;
    default:
      return `Approve (or reject) the gate at step ${wait.at_step_id}: ${wait.prompt}`;
  }
}

const HEADLINES: Record<ReasonCode, string> = {
  otp_required: "The run waits for a one-time code",
  otp_rejected: "The one-time code was refused; the run waits for another",
  approval_required: "The run waits for an approval",
  input_required: "The run waits for typed input",
  provider_protected_payment_step: "The run stopped before a payment provider and needs a person",
  step_outcome_unknown: "A request may or may not have been sent; a person must check",
  three_ds_challenge_detected: "A 3-D Secure challenge needs a person",
};

function endedActions(run: RecoverableRun): RecoveryAction[] {
  const at = run.currentStepId;
  const look = inspect(at, at === null ? "the run's events" : `step ${at}'s events and evidence`);
  if (run.status === "cancelled" || at === null) return [REPLAY, look];
  const fromStep = act(
    "resume_from_step",
    "confirm_before_apply",
    `Run again from step ${at}`,
    `Start a new run that skips the steps before ${at} (earlier steps' effects are assumed done).`,
    at,
  );
  const transient =
    run.reason === "wait_timeout" || run.reason === "run_timeout" || run.reason === "internal_error";
  return transient ? [REPLAY, fromStep, look] : [look, fromStep, REPLAY];
}

/**
 * Plans the recovery of a run that waits, failed or was cancelled; a queued, running or succeeded run has
 * nothing to recover (`ok: false`, with why).
 */
export function planRecovery(run: RecoverableRun): Plan {
  let reasonCode: string;
  let headline: string;
  let actions: RecoveryAction[];
  if (isWaiting(run.status) && run.wait !== null) {
    reasonCode = run.wait.reason_code;
    headline = HEADLINES[run.wait.reason_code];
    actions = waitingActions(run.wait);
  } else if (run.status === "failed" || run.status === "cancelled") {
    reasonCode = run.reason ?? run.status;
    headline =
      run.status === "cancelled"
        ? `The run was cancelled (${reasonCode})`
        : `The run failed at ${run.currentStepId === null ? "its end" : `step ${run.currentStepId}`} (${reasonCode})${run.error === null ? "" : `: ${run.error}`}`;
    actions = endedActions(run);
  } else {
    const why = run.status === "success" ? "succeeded" : `is ${run.status}`;
    return {
      ok: false,
      message: `The run ${why}; only waiting, failed or cancelled runs have a recovery plan.`,
    };
  }
  const [primary] = actions;
  if (primary === undefined) return { ok: false, message: "The run has no recovery action." };
  return {
    ok: true,
    plan: {
      run_id: run.id,
      status: run.status,
      headline,
      reason_code: reasonCode,
      primary_action: primary,
      actions,
    },
  };
}
