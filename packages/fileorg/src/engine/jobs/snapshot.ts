import { max } from "drizzle-orm";
import type { Job, JobStatus } from "../../domain/job.js";
import { events } from "../../store/schema.js";
import type { FileorgResources } from "../resources.js";
import { listJobs } from "./queries.js";

/** The statuses of a job that is not finished: what a jobs snapshot lists. */
const ACTIVE_STATUSES: readonly JobStatus[] = ["queued", "running", "cancelling"];

/** What a client of the jobs stream starts from: the jobs not finished, and the event they are as of. */
export interface JobsSnapshot {
  /** The global id of the last event when the snapshot was taken; changes after it follow as events. */
  last_event_id: number;
  /** Every queued, running or cancelling job, newest first. */
  items: Job[];
}

/**
 * The jobs not finished, as of the last event. The event id is read first, so any change after it is also
 * an event after it: a stream that sends this snapshot and then the events after `last_event_id` misses
 * nothing (a change may show in both; never in neither).
 */
export async function jobsSnapshot(res: FileorgResources): Promise<JobsSnapshot> {
  const [head] = await res.ctx.db.select({ id: max(events.id) }).from(events);
  const items: Job[] = [];
  for (const status of ACTIVE_STATUSES) {
    let cursor: string | undefined;
    do {
      const page = await listJobs(res, { status, cursor, limit: 500 });
      items.push(...page.items);
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }
  items.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  return { last_event_id: head?.id ?? 0, items };
}
