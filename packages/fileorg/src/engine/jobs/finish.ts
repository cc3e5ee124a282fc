import { runTransaction } from "@vetted/store";
import { and, eq } from "drizzle-orm";
import type { JobError } from "../../domain/job.js";
import { decideJobOutcome, moveJob } from "../../domain/transitions.js";
import { jobs } from "../../store/schema.js";
import { appendAudit, appendEvent, type HubMessage } from "../records.js";
import type { FileorgResources } from "../resources.js";
import type { JobRun } from "../run.js";

/** How a job's body ended. */
export interface BodyEnd {
  result: Record<string, unknown> | null;
  thrown: JobError | null;
  stopping: boolean;
}

/**
 * Records how a job ended, if it is still ours: the outcome is decided from the status read in the same
 * transaction (a cancel that landed meanwhile wins), and the write is a compare-and-set on that status and on
 * our lease. Returns false when another process took the job over (its outcome is theirs to record).
 */
export async function finishJob(res: FileorgResources, run: JobRun, end: BodyEnd): Promise<boolean> {
  const { ctx, lease } = res;
  const at = ctx.clock();
  const durations = run.durations();
  const jobId = run.job.id;
  const messages = await runTransaction(ctx.db, async (tx): Promise<HubMessage[] | undefined> => {
    const [current] = await tx
      .select({ status: jobs.status })
      .from(jobs)
      .where(and(eq(jobs.id, jobId), eq(jobs.leaseOwner, lease.owner)));
    if (current === undefined) return undefined;
    const outcome = decideJobOutcome({ current: current.status, ...end });
    const status = moveJob(current.status, outcome.status, jobId);
    const mine = await tx
      .update(jobs)
      .set({
        status,
        phase: status,
        progress: status === "succeeded" ? 1 : run.job.progress,
        result: end.result,
        error: outcome.error,
        phaseDurations: durations,
        finishedAt: at,
        updatedAt: at,
        leaseExpiresAt: null,
      })
      .where(and(eq(jobs.id, jobId), eq(jobs.leaseOwner, lease.owner), eq(jobs.status, current.status)))
      .returning({ id: jobs.id });
    if (mine.length === 0) return undefined;
    const entry = {
      jobId,
      actor: "system",
      requestId: null,
      action: `job.${status}`,
      subject: jobId,
      before: { status: current.status },
      after: { status, error: outcome.error },
    };
    // A job that succeeded although some rows failed says so before it finishes (the UI must not show it clean).
    const withErrors = status === "succeeded" && end.result?.completed_with_errors === true;
    await appendAudit(
      tx,
      [withErrors ? { ...entry, after: { ...entry.after, completed_with_errors: true } } : entry],
      at,
    );
    const warned = withErrors
      ? [await appendEvent(tx, jobId, "finished_with_errors", { failed_rows: end.result?.failed_rows }, at)]
      : [];
    const finished = await appendEvent(
      tx,
      jobId,
      "finished",
      { status, result: end.result, error: outcome.error },
      at,
    );
    return [...warned, finished];
  });
  if (messages === undefined) return false;
  ctx.publish(messages);
  return true;
}
