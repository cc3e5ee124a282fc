/**
 * The jobs list kept live from `GET /api/jobs/stream`: the page the list loaded, then the stream's
 * `snapshot` (every unfinished job) and one `job` frame per change. Pure: each frame folds into a new map.
 */

/** The fields of a job the list shows. */
export interface LiveJob {
  job_id: string;
  kind: string;
  status: string;
  phase: string;
  progress: number;
  created_at: string;
  updated_at: string;
  completed_with_errors?: boolean;
}

/** Jobs by id, with the order to show them in (newest first). */
export type JobMap = ReadonlyMap<string, LiveJob>;

/** A job replaces what is known of it unless what is known is newer (frames may repeat after a snapshot). */
export function upsertJob<J extends LiveJob>(jobs: ReadonlyMap<string, J>, job: J): Map<string, J> {
  const next = new Map(jobs);
  const known = next.get(job.job_id);
  if (known === undefined || known.updated_at <= job.updated_at) next.set(job.job_id, job);
  return next;
}

/** Folds one SSE frame (`snapshot` or `job`) into the map; other frames (heartbeats) change nothing. */
export function foldJobFrame<J extends LiveJob>(
  jobs: ReadonlyMap<string, J>,
  event: string,
  data: string,
): ReadonlyMap<string, J> {
  if (event !== "snapshot" && event !== "job") return jobs;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return jobs;
  }
  if (event === "snapshot") {
    const items = (parsed as { items?: J[] }).items ?? [];
    return items.reduce<ReadonlyMap<string, J>>((m, j) => upsertJob(m, j), jobs);
  }
  const job = (parsed as { job?: J }).job;
  return job === undefined ? jobs : upsertJob(jobs, job);
}

/** The jobs newest first. */
export function jobsNewestFirst<J extends LiveJob>(jobs: ReadonlyMap<string, J>): J[] {
  return [...jobs.values()].sort((a, b) =>
    a.created_at === b.created_at ? (a.job_id < b.job_id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1,
  );
}

/** True when a job may still change (its progress bar keeps moving). */
export function isActive(status: string): boolean {
  return status === "queued" || status === "running" || status === "cancelling";
}
