import { z } from "zod";
import { references } from "./interpolate.js";
import type { RunStatus } from "./status.js";
import type { Step } from "./steps.js";
import { REDACTED } from "./transition-core.js";

/** The body of `POST /api/runs/{run_id}/retry`: the secret params again (an ended run keeps none). */
export const RetryRunRequest = z
  .object({
    secrets: z.record(z.string().min(1).max(200), z.string().max(10_000)).default({}).meta({
      description:
        "The template's secret params, entered again: a run forgets its secrets when it ends, so a retry of a template run with secret params needs them",
    }),
  })
  .meta({ id: "RetryRunRequest" });
/** The body of `POST /api/runs/{run_id}/retry`. */
export type RetryRunRequest = z.input<typeof RetryRunRequest>;

/** What a retry reads of the run it retries. */
export interface RetrySource {
  id: string;
  status: RunStatus;
  steps: readonly Step[];
  cursor: number;
  vars: Record<string, unknown>;
}

/** Where a retry starts and what it carries over; or why the run cannot be retried. */
export type RetryPlan =
  | {
      ok: true;
      /** The step that failed (or was cancelled), where the retry starts. */
      fromStepId: string;
      /** The retry's steps: the failed one and every one after it. */
      steps: Step[];
      /** Steps before it, done by the retried run and not run again. */
      skipped: string[];
      /** The vars the retried run had set; those that held a secret are gone with its end. */
      vars: Record<string, unknown>;
      /** Vars left out because their value was a secret the ended run no longer holds. */
      droppedVars: string[];
    }
  | { ok: false; message: string };

/** The gate whose answer a step consumes: a one-time code or typed input is asked for again. */
const GATE_VALUES = [
  { key: "otp_code", gate: "otp_gate" },
  { key: "input_text", gate: "input_gate" },
] as const;

/**
 * Where a retry of a run stopped at `cursor` starts: that step, or the gate before it whose answer it
 * uses (a spent one-time code or typed input is not kept, so the person gives it again).
 */
function startOf(steps: readonly Step[], cursor: number): number {
  const step = steps[cursor];
  for (const { key, gate } of GATE_VALUES) {
    if (step === undefined || !references(step, "gate", key)) continue;
    for (let i = cursor - 1; i >= 0; i -= 1) if (steps[i]?.type === gate) return i;
  }
  return cursor;
}

/**
 * Plans the retry of a failed or cancelled run from the step it stopped at: a new run of the same flow
 * snapshot and policies that starts at that step (or at the gate whose answer it uses) with the vars the
 * earlier steps set. Pure.
 */
export function planRetry(run: RetrySource): RetryPlan {
  if (run.status !== "failed" && run.status !== "cancelled") {
    return {
      ok: false,
      message: `The run is ${run.status}; only a failed or cancelled run can be retried.`,
    };
  }
  const start = startOf(run.steps, run.cursor);
  const from = run.steps[start];
  if (from === undefined) {
    return {
      ok: false,
      message: "The run stopped after its last step: there is no step to retry. Re-run it instead.",
    };
  }
  const vars: Record<string, unknown> = {};
  const droppedVars: string[] = [];
  for (const [name, value] of Object.entries(run.vars)) {
    if (value === REDACTED) droppedVars.push(name);
    else vars[name] = value;
  }
  return {
    ok: true,
    fromStepId: from.id,
    steps: run.steps.slice(start),
    skipped: run.steps.slice(0, start).map((s) => s.id),
    vars,
    droppedVars,
  };
}
