import type { Job } from "@vetted/fileorg";
import type { Backend } from "../backend/backend.js";
import type { CommandContext } from "../context.js";
import { refused } from "../exit.js";
import { followJob } from "../job-wait.js";
import { createProgressView } from "../render/progress.js";

/** Follows a queued job to its end with a progress view (stderr); a job that did not succeed is refused (exit 1). */
export async function runToEnd(
  ctx: CommandContext,
  backend: Backend,
  queued: Job,
  label: string,
  quiet: boolean,
): Promise<Job> {
  const view = createProgressView(ctx.io, label, quiet);
  let job: Job;
  try {
    job = await followJob(backend, queued.job_id, (p) => view.update(p));
  } finally {
    view.stop();
  }
  if (job.status !== "succeeded") {
    const why = job.error === null ? job.status : job.error.message;
    throw refused(`${job.kind} job ${job.job_id} ${job.status}: ${why}`, job.error?.code ?? "JOB_FAILED");
  }
  return job;
}

/** A number from a job's result, 0 when absent. */
export function resultNumber(job: Job, key: string): number {
  const result: Record<string, unknown> | null = job.result;
  const value = result?.[key];
  return typeof value === "number" ? value : 0;
}
