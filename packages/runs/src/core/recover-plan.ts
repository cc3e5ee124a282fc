import { planRecovery, type RecoverPlan } from "../domain/recover-plan.js";
import { RunNotRecoverableError } from "../kernel/errors.js";
import { readRun } from "./persist.js";
import type { RunsResources } from "./resources.js";

/**
 * What a person can do about a run that waits, failed or was cancelled, best action first.
 * @throws RUN_NOT_FOUND, RUN_NOT_RECOVERABLE (queued, running or succeeded)
 */
export async function recoverPlan(r: RunsResources, runId: string): Promise<RecoverPlan> {
  const row = await readRun(r.db, runId);
  const planned = planRecovery({
    id: row.id,
    status: row.status,
    wait: row.waitContext,
    reason: row.reason,
    error: row.error,
    currentStepId: row.steps[row.cursor]?.id ?? null,
  });
  if (!planned.ok) throw new RunNotRecoverableError(planned.message, { status: row.status });
  return planned.plan;
}
