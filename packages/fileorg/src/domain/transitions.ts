import { IllegalTransitionError } from "../errors.js";

/**
 * The state machines of fileorg as data: for each status, the statuses it may move to. The status lists
 * (and so the database enums and the API's enums) are the keys of these tables, in this order; the README's
 * diagrams are checked against them by a test.
 */

/** Job statuses and their moves: `queued → running → succeeded | failed | cancelling → cancelled`. */
export const JOB_TRANSITIONS = {
  queued: ["running", "cancelled"],
  running: ["cancelling", "succeeded", "failed", "cancelled"],
  cancelling: ["cancelled", "failed"],
  cancelled: [],
  succeeded: [],
  failed: [],
} as const satisfies Record<string, readonly string[]>;

/** A job status. */
export type JobStatus = keyof typeof JOB_TRANSITIONS;

/** Row statuses across apply and rollback, and their moves. */
export const ROW_TRANSITIONS = {
  pending: ["applied", "failed", "skipped"],
  applied: ["rolled_back"],
  skipped: ["applied", "failed"],
  failed: ["applied", "failed", "pending"],
  rolled_back: ["applied", "failed"],
} as const satisfies Record<string, readonly string[]>;

/** A row status. */
export type RowStatus = keyof typeof ROW_TRANSITIONS;

/** Conflict statuses: a conflict is resolved when its rows stop colliding, and reopens if they collide again. */
export const CONFLICT_TRANSITIONS = {
  open: ["resolved"],
  resolved: ["open"],
} as const satisfies Record<string, readonly string[]>;

/** A conflict status. */
export type ConflictStatus = keyof typeof CONFLICT_TRANSITIONS;

/** The status a new job, row and conflict starts in. */
export const INITIAL_STATUS = { job: "queued", row: "pending", conflict: "open" } as const;

/** The event each move's target is recorded with (null: no event of its own). */
export const JOB_STATUS_EVENTS = {
  queued: "created",
  running: "started",
  cancelling: "cancel_requested",
  cancelled: "finished",
  succeeded: "finished",
  failed: "finished",
} as const satisfies Record<JobStatus, string>;

/** The event recording a row's arrival in a status (null: recorded by the manifest edit or apply summary). */
export const ROW_STATUS_EVENTS = {
  pending: null,
  applied: "row_applied",
  skipped: null,
  failed: "row_failed",
  rolled_back: "row_rolled_back",
} as const satisfies Record<RowStatus, string | null>;

/** The event recording a conflict's arrival in a status. */
export const CONFLICT_STATUS_EVENTS = {
  open: "conflict_opened",
  resolved: "conflict_resolved",
} as const satisfies Record<ConflictStatus, string>;

type EventOf<T> = Exclude<T[keyof T], null>;
/** An event a status move is recorded with. */
export type TransitionEventType =
  | EventOf<typeof JOB_STATUS_EVENTS>
  | EventOf<typeof ROW_STATUS_EVENTS>
  | EventOf<typeof CONFLICT_STATUS_EVENTS>;

/** Every event a status move is recorded with, derived from the three event maps (each once). */
export const TRANSITION_EVENT_TYPES = [
  ...new Set(
    [
      ...Object.values(JOB_STATUS_EVENTS),
      ...Object.values(ROW_STATUS_EVENTS),
      ...Object.values(CONFLICT_STATUS_EVENTS),
    ].filter((e): e is TransitionEventType => e !== null),
  ),
] as [TransitionEventType, ...TransitionEventType[]];

function keysOf<T extends Record<string, unknown>>(table: T): [keyof T & string, ...(keyof T & string)[]] {
  return Object.keys(table) as [keyof T & string, ...(keyof T & string)[]];
}

/** Every job status, in table order. */
export const JOB_STATUSES = keysOf(JOB_TRANSITIONS);
/** Every row status, in table order. */
export const ROW_STATUSES = keysOf(ROW_TRANSITIONS);
/** Every conflict status, in table order. */
export const CONFLICT_STATUSES = keysOf(CONFLICT_TRANSITIONS);

/** Statuses a job never leaves (the table has no move out of them; a test checks it). */
export const FINISHED_JOB_STATUSES = [
  "cancelled",
  "succeeded",
  "failed",
] as const satisfies readonly JobStatus[];

/** A status a job ends in. */
export type FinishedJobStatus = (typeof FINISHED_JOB_STATUSES)[number];

function allowed<S extends string>(table: Record<S, readonly string[]>, from: S, to: S): boolean {
  return Object.hasOwn(table, from) && table[from].includes(to);
}

/** True when the job table allows `from` → `to`. */
export function canMoveJob(from: JobStatus, to: JobStatus): boolean {
  return allowed(JOB_TRANSITIONS, from, to);
}

/** True when the row table allows `from` → `to`. */
export function canMoveRow(from: RowStatus, to: RowStatus): boolean {
  return allowed(ROW_TRANSITIONS, from, to);
}

/** True when the conflict table allows `from` → `to`. */
export function canMoveConflict(from: ConflictStatus, to: ConflictStatus): boolean {
  return allowed(CONFLICT_TRANSITIONS, from, to);
}

/** The statuses from which `to` may be reached (for compare-and-set updates of many records at once). */
export function sourcesOf<S extends string>(table: Record<S, readonly string[]>, to: S): S[] {
  return (Object.keys(table) as S[]).filter((from) => table[from].includes(to));
}

/** Returns `to` when a job may move there from `from`; throws ILLEGAL_TRANSITION otherwise. */
export function moveJob<T extends JobStatus>(from: JobStatus, to: T, subject?: string): T {
  if (!canMoveJob(from, to)) throw new IllegalTransitionError("job", from, to, subject);
  return to;
}

/** Returns `to` when a row may move there from `from`; throws ILLEGAL_TRANSITION otherwise. */
export function moveRow<T extends RowStatus>(from: RowStatus, to: T, subject?: string): T {
  if (!canMoveRow(from, to)) throw new IllegalTransitionError("row", from, to, subject);
  return to;
}

/** Returns `to` when a conflict may move there from `from`; throws ILLEGAL_TRANSITION otherwise. */
export function moveConflict<T extends ConflictStatus>(from: ConflictStatus, to: T, subject?: string): T {
  if (!canMoveConflict(from, to)) throw new IllegalTransitionError("conflict", from, to, subject);
  return to;
}

/** The move functions by machine, for code that handles the three alike. */
export const moveTo = { job: moveJob, row: moveRow, conflict: moveConflict } as const;

/** What a job's end is decided from. */
export interface JobOutcomeInput {
  /** The job's status when it ends (read in the finishing transaction). */
  current: JobStatus;
  /** True when this process is shutting down. */
  stopping: boolean;
  /** What the job's body returned (null when it threw). */
  result: Record<string, unknown> | null;
  /** What the job's body threw, as a job error (null when it returned). */
  thrown: { code: string; message: string } | null;
}

/** How a job ends: its final status and error. */
export interface JobOutcome {
  status: FinishedJobStatus;
  error: { code: string; message: string } | null;
}

/**
 * Decides how a job ends. A body that threw fails the job; a body that stopped early because the process
 * is stopping (and nobody asked to cancel) fails it as INTERRUPTED so it can be retried; a cancel request,
 * or a body that stopped for another reason (its lease was lost), cancels it; a result naming a
 * `failed_code` fails it with that code; anything else succeeds.
 */
export function decideJobOutcome(input: JobOutcomeInput): JobOutcome {
  const { current, stopping, result, thrown } = input;
  if (thrown !== null || result === null) {
    return { status: "failed", error: thrown ?? { code: "JOB_FAILED", message: "The job failed." } };
  }
  const stoppedEarly = result.cancelled === true;
  if (stopping && current !== "cancelling" && stoppedEarly) {
    return {
      status: "failed",
      error: { code: "INTERRUPTED", message: "The server stopped while the job ran; retry it." },
    };
  }
  if (current === "cancelling" || stoppedEarly) return { status: "cancelled", error: null };
  if (typeof result.failed_code === "string") {
    return {
      status: "failed",
      error: { code: result.failed_code, message: String(result.failed_message ?? "The job failed.") },
    };
  }
  return { status: "succeeded", error: null };
}
