import { runTransaction } from "@vetted/store";
import type { Actor, Job, JobKind } from "../../domain/job.js";
import { INITIAL_STATUS } from "../../domain/transitions.js";
import { NotFoundError } from "../../errors.js";
import { jobs } from "../../store/schema.js";
import type { Queryable } from "../db.js";
import { planHashOfJob } from "../manifest/index.js";
import { appendAudit, appendEvent, findJob, toJob } from "../records.js";
import type { FileorgResources } from "../resources.js";

/** What a new job is made of. */
export interface NewJob {
  manifestJobId?: string;
  targetJobId?: string | null;
  retryOf?: string | null;
  params: Record<string, unknown>;
}

/** One job as the API shows it. Throws JOB_NOT_FOUND. */
export async function snapshotJob(res: FileorgResources, id: string): Promise<Job> {
  const job = await findJob(res.ctx.db, id);
  if (job === undefined) throw new NotFoundError("JOB_NOT_FOUND", `No job ${id}.`, { job_id: id });
  return toJob(job, planHashOfJob(job));
}

/**
 * Inserts a queued job (audited, with its `created` event) after `precheck` passed in the same
 * transaction, then wakes the runner.
 */
export async function createJob(
  res: FileorgResources,
  kind: JobKind,
  fields: NewJob,
  actor: Actor,
  precheck?: (tx: Queryable) => Promise<void>,
): Promise<Job> {
  const { ctx } = res;
  const id = ctx.ids("job");
  const at = ctx.clock();
  const status = INITIAL_STATUS.job;
  const messages = await runTransaction(ctx.db, async (tx) => {
    if (precheck !== undefined) await precheck(tx);
    await tx.insert(jobs).values({
      id,
      kind,
      status,
      phase: status,
      progress: 0,
      manifestJobId: fields.manifestJobId ?? id,
      targetJobId: fields.targetJobId ?? null,
      retryOf: fields.retryOf ?? null,
      params: fields.params,
      revision: null,
      planAccumulator: null,
      result: null,
      error: null,
      actor: actor.actor,
      phaseDurations: null,
      createdAt: at,
      startedAt: null,
      finishedAt: null,
      updatedAt: at,
    });
    const entry = {
      jobId: id,
      actor: actor.actor,
      requestId: actor.requestId ?? null,
      action: `job.${kind}.created`,
      subject: id,
      before: null,
      after: { status, params: fields.params, retry_of: fields.retryOf ?? null },
    };
    await appendAudit(tx, [entry], at);
    return [await appendEvent(tx, id, "created", { kind, params: fields.params }, at)];
  });
  ctx.publish(messages);
  res.wake();
  return snapshotJob(res, id);
}
