import { and, eq, lt } from "drizzle-orm";
import type { JobError } from "../../domain/job.js";
import { FileorgError } from "../../errors.js";
import { jobs } from "../../store/schema.js";
import { setOwnerLive } from "../lease.js";
import type { JobRecord } from "../records.js";
import type { FileorgResources } from "../resources.js";
import { createJobRun } from "../run.js";
import { claimNext, renewLease } from "./claim.js";
import { type BodyEnd, finishJob } from "./finish.js";
import { recoverInterruptedJobs } from "./recovery.js";

/** The background runner of one engine: claims queued jobs one at a time and runs them under a lease. */
export interface JobRunner {
  /** Starts the runner (after recovery); idempotent. */
  start(): Promise<void>;
  /** Stops the runner: the running job stops at its next checkpoint (and is marked for retry). */
  stop(): Promise<void>;
  /** Runs the loop now if it is idle. */
  kick(): void;
}

function errorOf(err: unknown): JobError {
  return err instanceof FileorgError
    ? { code: err.code, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) }
    : { code: "JOB_FAILED", message: err instanceof Error ? err.message : String(err) };
}

/** Runs one claimed job to its end, with a heartbeat renewing its lease. */
async function runOne(res: FileorgResources, job: JobRecord, stopping: () => boolean): Promise<void> {
  let leaseLost = false;
  // A job whose lease is lost stops at its next checkpoint, as on shutdown.
  const run = createJobRun(res.ctx, job, () => stopping() || leaseLost);
  const heartbeat = setInterval(
    () => {
      renewLease(res, job.id)
        .then((ok) => {
          if (!ok) leaseLost = true;
        })
        .catch(() => undefined); // a busy database: the next beat tries again
    },
    Math.max(10, Math.floor(res.lease.leaseMs / 3)),
  );
  heartbeat.unref();
  const body = res.bodies.get(job.kind);
  let end: BodyEnd;
  try {
    if (body === undefined) throw new FileorgError("WRONG_JOB_KIND", `No runner for ${job.kind} jobs.`);
    end = { result: await body(run), thrown: null, stopping: stopping() };
  } catch (err) {
    end = { result: null, thrown: errorOf(err), stopping: stopping() };
  }
  try {
    await finishJob(res, run, end);
  } catch (err) {
    if (end.thrown === null) {
      await finishJob(res, run, { result: null, thrown: errorOf(err), stopping: stopping() }).catch(
        () => undefined,
      );
    }
  } finally {
    clearInterval(heartbeat);
  }
}

/** Creates the runner of an engine over its resources. */
export function createJobRunner(res: FileorgResources): JobRunner {
  const { ctx, lease } = res;
  let sweep: ReturnType<typeof setInterval> | undefined;
  let started = false;
  let stopping = false;
  let loop: Promise<void> | undefined;
  let again = false;

  function kick(): void {
    if (!started || stopping) return;
    if (loop !== undefined) {
      again = true;
      return;
    }
    loop = (async () => {
      do {
        again = false;
        for (let job = await claimNext(res); job !== undefined && !stopping; job = await claimNext(res)) {
          await runOne(res, job, () => stopping);
        }
      } while (again && !stopping);
    })()
      .catch(() => undefined)
      .finally(() => {
        loop = undefined;
        if (again && !stopping) kick();
      });
  }

  // Jobs of a process that died while this one runs are taken over once their lease runs out, and jobs
  // queued through another process that left them waiting longer than a lease are picked up.
  async function sweepOnce(): Promise<void> {
    await recoverInterruptedJobs(res);
    const [stale] = await ctx.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(eq(jobs.status, "queued"), lt(jobs.createdAt, ctx.clock() - lease.leaseMs)))
      .limit(1);
    if (stale !== undefined) kick();
  }

  res.wake = kick;
  return {
    kick,
    async start() {
      if (started) return;
      setOwnerLive(lease.owner, true);
      await recoverInterruptedJobs(res);
      started = true;
      stopping = false;
      sweep = setInterval(
        () => {
          sweepOnce().catch(() => undefined);
        },
        Math.max(10, Math.floor(lease.leaseMs / 3)),
      );
      sweep.unref();
      kick();
    },
    async stop() {
      stopping = true;
      clearInterval(sweep);
      sweep = undefined;
      await loop;
      started = false;
      setOwnerLive(lease.owner, false);
    },
  };
}
