import type { Step } from "./steps.js";

/** Where a replay starts and stops, by step id; both optional. */
export interface StepRange {
  start_at_step_id?: string | undefined;
  stop_after_step_id?: string | undefined;
}

/** The steps a run executes for a range, and the ones it leaves out; or why the range is refused. */
export type StepRangeResult =
  | { ok: true; steps: Step[]; skipped: string[]; omitted: string[] }
  | { ok: false; message: string };

/**
 * Cuts a flow's steps to `[start_at_step_id … stop_after_step_id]`. Skipped steps (before the start) and
 * omitted ones (after the stop) are named, so the run's log says what did not run. Pure.
 */
export function sliceSteps(steps: readonly Step[], range: StepRange): StepRangeResult {
  const ids = steps.map((s) => s.id);
  const indexOf = (id: string | undefined, fallback: number): number | string =>
    id === undefined ? fallback : ids.includes(id) ? ids.indexOf(id) : id;
  const from = indexOf(range.start_at_step_id, 0);
  const to = indexOf(range.stop_after_step_id, steps.length - 1);
  if (typeof from === "string" || typeof to === "string") {
    const unknown = typeof from === "string" ? from : to;
    return { ok: false, message: `The flow has no step "${unknown}"; its steps are: ${ids.join(", ")}.` };
  }
  if (to < from) {
    return {
      ok: false,
      message: `Step "${ids[to]}" comes before "${ids[from]}": stop_after_step_id must not precede start_at_step_id.`,
    };
  }
  return {
    ok: true,
    steps: steps.slice(from, to + 1),
    skipped: ids.slice(0, from),
    omitted: ids.slice(to + 1),
  };
}
