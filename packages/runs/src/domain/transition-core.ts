import { IllegalTransitionError } from "../kernel/errors.js";
import type { WaitContext } from "./run.js";
import { canTransition, type EndReason, type RunStatus } from "./status.js";
import type { Step } from "./steps.js";

/*
 * The core of the run state machine: the state a transition reads and writes, and the one `moveTo` that
 * checks every move (a move to the same status too) against the table in `status.ts`.
 */

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

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function moveTo(
  prev: RunState,
  next: RunState,
  events: EventDraft[],
  detail: Record<string, unknown> = {},
) {
  if (!canTransition(prev.status, next.status)) {
    throw new IllegalTransitionError(prev.status, next.status);
  }
  if (prev.status !== next.status) {
    events.push({ type: "status_changed", data: { from: prev.status, to: next.status, ...detail } });
  }
  return { state: { ...next, version: prev.version + 1 }, events };
}

export function ended(
  state: RunState,
  status: "failed" | "cancelled",
  reason: EndReason,
  error: string | null,
) {
  return { ...state, status, reason, error, wait: null, waitExpiresAt: null };
}

/** The step id at `index`, or null past the end. */
export function stepIdAt(steps: readonly Step[], index: number): string | null {
  return steps[index]?.id ?? null;
}
