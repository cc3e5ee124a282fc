import { and, count, eq, gte, isNotNull, lt } from "drizzle-orm";
import { JOB_STATUSES, type JobStatus } from "../../domain/job.js";
import { jobs } from "../../store/schema.js";
import type { FileorgResources } from "../resources.js";

/** How many jobs are in each status, and the worker leases on running jobs (valid and expired). */
export interface JobCounts {
  byStatus: Record<JobStatus, number>;
  leases: { held: number; expired: number };
}

/** Counts jobs by status and the leases on running jobs, as of the engine's clock. */
export async function countJobs(res: FileorgResources): Promise<JobCounts> {
  const { db, clock } = res.ctx;
  const now = clock();
  const rows = await db.select({ status: jobs.status, n: count() }).from(jobs).groupBy(jobs.status);
  const byStatus = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
  for (const row of rows) byStatus[row.status] = row.n;
  const leased = and(eq(jobs.status, "running"), isNotNull(jobs.leaseOwner));
  const [held] = await db
    .select({ n: count() })
    .from(jobs)
    .where(and(leased, gte(jobs.leaseExpiresAt, now)));
  const [expired] = await db
    .select({ n: count() })
    .from(jobs)
    .where(and(leased, lt(jobs.leaseExpiresAt, now)));
  return { byStatus, leases: { held: held?.n ?? 0, expired: expired?.n ?? 0 } };
}
