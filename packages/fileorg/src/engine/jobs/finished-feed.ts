import { and, asc, eq, gt, max } from "drizzle-orm";
import type { JobKind, JobStatus } from "../../domain/job.js";
import { events, jobs } from "../../store/schema.js";
import type { Queryable } from "../db.js";

/** A job's terminal transition, as recorded by its `finished` event (written in that transition's transaction). */
export interface FinishedJobEntry {
  /** The event's position in the job event log (increasing in commit order). */
  position: number;
  jobId: string;
  kind: JobKind;
  status: JobStatus;
  /** When the job finished (epoch ms). */
  at: number;
  /** The `finished` event's data (`status`, and `error` when it failed). */
  data: Record<string, unknown>;
}

/**
 * The durable feed of finished jobs for consumers outside the engine (the server relays it to webhooks):
 * `finished` events after `position`, oldest first, at most `limit`. Positions are the event log's ids,
 * assigned in commit order under SQLite's single writer, so a reader never skips a later-committed entry.
 */
export async function readFinishedJobs(
  db: Queryable,
  position: number,
  limit: number,
): Promise<FinishedJobEntry[]> {
  const found = await db
    .select({
      position: events.id,
      jobId: events.jobId,
      kind: jobs.kind,
      status: jobs.status,
      at: events.at,
      data: events.data,
    })
    .from(events)
    .innerJoin(jobs, eq(jobs.id, events.jobId))
    .where(and(gt(events.id, position), eq(events.type, "finished")))
    .orderBy(asc(events.id))
    .limit(limit);
  return found;
}

/** The position of the newest job event (0 when none): where a new consumer of the feed starts. */
export async function finishedJobsHead(db: Queryable): Promise<number> {
  const [row] = await db.select({ head: max(events.id) }).from(events);
  return row?.head ?? 0;
}
