/*
 * The automation task's status machine and reason codes, apart from the lane's schemas so that the tables
 * (`store/automation-schema.ts`, part of every `migrate`) name them without building those schemas.
 * Re-exported by `automation.ts`.
 */

/** Every status a task can have. */
export const TASK_STATUSES = ["queued", "running", "success", "failed", "cancelled"] as const;
/** A task's status. */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/**
 * The task state machine. `running → queued` is a retry after a failed attempt (or the re-queue of an
 * idempotent command's task a crash interrupted); `queued → failed` ends a task whose command no longer
 * exists. Terminal statuses have no way out.
 */
export const TASK_TRANSITIONS = {
  queued: ["running", "cancelled", "failed"],
  running: ["success", "failed", "cancelled", "queued"],
  success: [],
  failed: [],
  cancelled: [],
} as const satisfies Record<TaskStatus, readonly TaskStatus[]>;

/** True when the table allows `from → to`. */
export function canMoveTask(from: TaskStatus, to: TaskStatus): boolean {
  return (TASK_TRANSITIONS[from] as readonly TaskStatus[]).includes(to);
}

/** True for the statuses a task never leaves. */
export function isTaskTerminal(status: TaskStatus): boolean {
  return TASK_TRANSITIONS[status].length === 0;
}

/** Why a task ended as it did (or was retried): a stable code beside the human `message`. */
export const TASK_REASONS = [
  "EXIT_NONZERO",
  "TIMEOUT",
  "INTERRUPTED",
  "CANCELLED",
  "SPAWN_FAILED",
  "COMMAND_FAILED",
  "COMMAND_UNKNOWN",
] as const;
/** A {@link TASK_REASONS} code. */
export type TaskReason = (typeof TASK_REASONS)[number];
