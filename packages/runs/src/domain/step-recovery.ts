import { exceedsJsonDepth, MAX_JSON_DEPTH } from "@vetted/store/limits";
import type { WaitContext } from "./run.js";
import { type EndReason, isTerminal } from "./status.js";
import type { Step } from "./steps.js";
import type { Policies } from "./template.js";
import { iso, moveTo } from "./transition-core.js";
import type { EventDraft, RunState, Transition } from "./transitions.js";

function move(prev: RunState, next: RunState, events: EventDraft[], reason: string): Transition {
  return moveTo(prev, next, events, { reason });
}

/**
 * A re-claimed run whose previous worker marked a non-idempotent step as in flight (a request may have
 * been sent, its outcome is unknown): the step is `in_doubt` and the run pauses `waiting_user` with
 * `reason_code: step_outcome_unknown`. Approving re-sends the step; rejecting (or cancelling) ends the
 * run. Returns `claimed` unchanged when the marker does not name the step at the cursor.
 */
export function recoverInFlight(
  claimed: Transition,
  steps: readonly Step[],
  inFlightStepId: string | null,
  policies: Policies,
  now: number,
): Transition {
  const state = claimed.state;
  const step = steps[state.cursor];
  if (inFlightStepId === null || step === undefined || step.id !== inFlightStepId) return claimed;
  if (state.status !== "running") return claimed;
  const expiresAt = now + policies.gate_timeout_seconds * 1000;
  const wait: WaitContext = {
    reason_code: "step_outcome_unknown",
    at_step_id: step.id,
    resume_from_step_id: step.id,
    allowed_resume_kinds: ["approval"],
    prompt:
      `Step ${step.id} was sending a request when its worker stopped; whether the far side acted on it ` +
      "is unknown. Check there, then approve to send it again or reject to end the run.",
    provider_domain: null,
    gate_required_by_policy: false,
    opened_at: iso(now),
    expires_at: iso(expiresAt),
  };
  const events: EventDraft[] = [
    ...claimed.events,
    { type: "step_finished", data: { step_id: step.id, outcome: "in_doubt", duration_ms: 0 } },
    { type: "gate_opened", data: { kind: "approval", reason_code: wait.reason_code, step_id: step.id } },
  ];
  const next: RunState = { ...state, status: "waiting_user", wait, waitExpiresAt: expiresAt };
  return move(state, next, events, wait.reason_code);
}

/**
 * Fails a run that hit an error no step handles (a value nested too deep to store, an exception while
 * executing, interpolating or persisting a step): `failed` with `reason`, the vars kept unless they are
 * themselves too deep to store. Undefined for a run that already ended.
 */
export function crashRun(
  state: RunState,
  steps: readonly Step[],
  reason: Extract<EndReason, "nesting_too_deep" | "internal_error">,
  message: string,
): Transition | undefined {
  if (isTerminal(state.status)) return undefined;
  const stepId = steps[state.cursor]?.id ?? null;
  const text = `${stepId ?? "run"}: ${message}`;
  const vars = exceedsJsonDepth(state.vars, MAX_JSON_DEPTH + 1) ? {} : state.vars;
  const next: RunState = {
    ...state,
    vars,
    status: "failed",
    reason,
    error: text,
    wait: null,
    waitExpiresAt: null,
  };
  return move(
    state,
    next,
    [{ type: "error", data: { step_id: stepId, message: text, code: reason } }],
    reason,
  );
}
