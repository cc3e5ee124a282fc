/** Every run status. `waiting_otp` and `waiting_user` are paused; the last three are terminal. */
export const RUN_STATUSES = [
  "queued",
  "running",
  "waiting_otp",
  "waiting_user",
  "success",
  "failed",
  "cancelled",
] as const;

/** A run's status. */
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses a run never leaves. */
export const TERMINAL_STATUSES = ["success", "failed", "cancelled"] as const satisfies readonly RunStatus[];

/** Statuses in which a run waits for a person. */
export const WAITING_STATUSES = ["waiting_otp", "waiting_user"] as const satisfies readonly RunStatus[];

/** How a paused run may be resumed. */
export const RESUME_KINDS = ["otp", "approval", "input"] as const;

/** A resume kind. */
export type ResumeKind = (typeof RESUME_KINDS)[number];

/** Why a run paused. */
export const REASON_CODES = [
  "otp_required",
  "otp_rejected",
  "approval_required",
  "input_required",
  "provider_protected_payment_step",
  "step_outcome_unknown",
  "three_ds_challenge_detected",
] as const;

/** A wait reason. */
export type ReasonCode = (typeof REASON_CODES)[number];

/** Why a run ended in `failed` or `cancelled`. */
export const END_REASONS = [
  "step_failed",
  "assertion_failed",
  "interpolation_failed",
  "otp_attempts_exhausted",
  "wait_timeout",
  "run_timeout",
  "approval_rejected",
  "cancelled",
  "secret_unreadable",
  "nesting_too_deep",
  "internal_error",
] as const;

/** A reason a run ended without success. */
export type EndReason = (typeof END_REASONS)[number];

/**
 * The run state machine: the statuses each status may move to (a move to the same status counts: a step
 * completed, a lease re-claimed). `moveTo` refuses every other move, the engine's writes land only on a row
 * in a status from which the table reaches the written one ({@link statusesReaching}), the README diagram draws
 * exactly these edges, and a test makes each edge through the run's transitions.
 */
export const RUN_TRANSITIONS = {
  queued: ["running", "waiting_otp", "failed", "cancelled"],
  running: ["running", "waiting_otp", "waiting_user", "success", "failed", "cancelled"],
  waiting_otp: ["queued", "failed", "cancelled", "success"],
  waiting_user: ["queued", "failed", "cancelled", "success"],
  success: [],
  failed: [],
  cancelled: [],
} as const satisfies Record<RunStatus, readonly RunStatus[]>;

/** True when a run in `status` never changes again. */
export function isTerminal(status: RunStatus): status is (typeof TERMINAL_STATUSES)[number] {
  return (TERMINAL_STATUSES as readonly RunStatus[]).includes(status);
}

/** True when a run in `status` is paused at a gate. */
export function isWaiting(status: RunStatus): status is (typeof WAITING_STATUSES)[number] {
  return (WAITING_STATUSES as readonly RunStatus[]).includes(status);
}

/** True when the state machine allows `from` → `to`. */
export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return (RUN_TRANSITIONS[from] as readonly RunStatus[]).includes(to);
}

/** The statuses from which the table lets a run move to `to` (the table read backwards). */
export function statusesInto(to: RunStatus): RunStatus[] {
  return RUN_STATUSES.filter((from) => canTransition(from, to));
}

/**
 * The statuses from which one or more moves of the table reach `to` (one write may hold several moves: a
 * claim that runs instant steps up to a gate is queued → running → waiting_user). A terminal status reaches
 * nothing, so a run that ended is never written again.
 */
export function statusesReaching(to: RunStatus): RunStatus[] {
  const found = new Set<RunStatus>(statusesInto(to));
  for (let grew = true; grew; ) {
    grew = false;
    for (const from of RUN_STATUSES) {
      if (!found.has(from) && [...found].some((via) => canTransition(from, via))) {
        found.add(from);
        grew = true;
      }
    }
  }
  return RUN_STATUSES.filter((status) => found.has(status));
}
