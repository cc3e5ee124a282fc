import { runTransaction } from "@vetted/store";
import { and, eq, inArray } from "drizzle-orm";
import { moveJob } from "../../domain/transitions.js";
import { jobs } from "../../store/schema.js";
import { appendEvent, type JobRecord } from "../records.js";
import type { FileorgResources } from "../resources.js";

/**
 * Claims the oldest queued job for this engine: a compare-and-set from `queued` to `running` under this
 * engine's lease, so of several engines (on one database, through any connections) exactly one claims a job.
 */
export async function claimNext(res: FileorgResources): Promise<JobRecord | undefined> {
  const { ctx, lease } = res;
  for (;;) {
    const [next] = await ctx.db
      .select()
      .from(jobs)
      .where(eq(jobs.status, "queued"))
      .orderBy(jobs.createdAt)
      .limit(1);
    if (next === undefined) return undefined;
    await res.hooks.beforeClaim?.(next.id);
    const at = ctx.clock();
    const claimed = await runTransaction(ctx.db, async (tx) => {
      const done = await tx
        .update(jobs)
        .set({
          status: moveJob(next.status, "running", next.id),
          phase: "starting",
          startedAt: at,
          updatedAt: at,
          leaseOwner: lease.owner,
          leaseExpiresAt: at + lease.leaseMs,
        })
        .where(and(eq(jobs.id, next.id), eq(jobs.status, next.status)))
        .returning();
      const job = done[0];
      if (job === undefined) return undefined;
      return { job, message: await appendEvent(tx, job.id, "started", {}, at) };
    });
    if (claimed !== undefined) {
      ctx.publish([claimed.message]);
      return claimed.job;
    }
  }
}

/** The heartbeat: extends our lease while the job is still ours; false once another process has it. */
export async function renewLease(res: FileorgResources, jobId: string): Promise<boolean> {
  const { ctx, lease } = res;
  const at = ctx.clock();
  const renewed = await runTransaction(ctx.db, (tx) =>
    tx
      .update(jobs)
      .set({ leaseExpiresAt: at + lease.leaseMs })
      .where(
        and(
          eq(jobs.id, jobId),
          eq(jobs.leaseOwner, lease.owner),
          inArray(jobs.status, ["running", "cancelling"]),
        ),
      )
      .returning({ id: jobs.id }),
  );
  return renewed.length > 0;
}
