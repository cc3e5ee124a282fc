import type { Job } from "@vetted/fileorg";
import type { Backend } from "./backend/backend.js";

/** What a job reported about its progress so far. */
export interface JobProgress {
  /** 0..1 */
  progress: number;
  phase: string;
  files: number | undefined;
  bytes: number | undefined;
}

const FINISHED = new Set(["succeeded", "failed", "cancelled"]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Follows a job through its event log (the same in both backends) until it finishes, calling `onProgress`
 * with each progress or phase event; answers the final job.
 */
export async function followJob(
  backend: Backend,
  jobId: string,
  onProgress: (progress: JobProgress) => void = () => {},
  pollMs = 150,
): Promise<Job> {
  let after = 0;
  const state: JobProgress = { progress: 0, phase: "queued", files: undefined, bytes: undefined };
  for (;;) {
    const events = await backend.listEvents(jobId, after);
    for (const event of events.items) {
      after = Math.max(after, event.seq);
      if (event.type === "progress") {
        const { progress, files, bytes } = event.data;
        if (typeof progress === "number") state.progress = progress;
        if (typeof files === "number") state.files = files;
        if (typeof bytes === "number") state.bytes = bytes;
        onProgress({ ...state });
      } else if (event.type === "phase" && typeof event.data.phase === "string") {
        state.phase = event.data.phase;
        onProgress({ ...state });
      }
    }
    if (events.items.length === 0) {
      const job = await backend.getJob(jobId);
      if (FINISHED.has(job.status)) return job;
      await sleep(pollMs);
    }
  }
}
