import type { Actor, AnalyzeRequest, ApplyPlanRequest, Job } from "../domain/job.js";
import { analyzeBody } from "./analyze/run.js";
import { planApply } from "./apply/plan.js";
import { runApply } from "./apply/run.js";
import { listKnownCategories } from "./categories.js";
import { type AnalyzeFilesRequest, analyzeFilesJob } from "./jobs/analyze-files.js";
import { countJobs } from "./jobs/counts.js";
import { snapshotJob } from "./jobs/create.js";
import { type JobQuery, listAudit, listJobEvents, listJobs, waitForJob } from "./jobs/queries.js";
import { recoverInterruptedJobs } from "./jobs/recovery.js";
import { createJobRunner } from "./jobs/runner.js";
import { jobsSnapshot } from "./jobs/snapshot.js";
import {
  type ApplyInput,
  cancelJob,
  createAnalyze,
  createApply,
  createRollback,
  type RollbackInput,
  retryJob,
} from "./jobs/verbs.js";
import { manifestVerbs } from "./manifest-verbs.js";
import type { PathGuard } from "./path-guard.js";
import { type HubMessage, listEventsSince, verifyAuditChain } from "./records.js";
import { createFileorgResources, type FileorgEngineOptions } from "./resources.js";
import { runRollback } from "./rollback/run.js";

export type { FileorgEngineOptions, FileorgHooks } from "./resources.js";

/**
 * Creates the fileorg core engine: one module per concern (jobs, analyze, apply, rollback) over shared
 * resources. What the layers above it contribute (review's rules, parameters, row adjusters and edit
 * listener) comes in `options.hooks`, fixed at construction; `createFileorg` composes them all.
 */
export function createFileorgEngine(options: FileorgEngineOptions, guard?: PathGuard) {
  const res = createFileorgResources(options, guard);
  const { ctx } = res;
  const { db } = ctx;
  res.bodies.set("analyze", analyzeBody(res));
  res.bodies.set("apply", (run) => runApply(run, res.moveOptions));
  res.bodies.set("rollback", (run) => runRollback(run, res.moveOptions));
  const runner = createJobRunner(res);
  const engine = {
    /** The path guard (allowed roots). */
    guard: ctx.guard,
    ...manifestVerbs(res),
    /** Queues an analyze job of `source_dir` (202). Throws PATH_OUTSIDE_ROOT, SOURCE_NOT_FOUND, NOT_A_DIRECTORY, INVALID_TEMPLATE. */
    analyze: (request: AnalyzeRequest, actor: Actor) => createAnalyze(res, request, actor),
    /**
     * Queues an apply of an analyze job's manifest (202). Throws JOB_NOT_FOUND, WRONG_JOB_KIND, JOB_NOT_READY,
     * PLAN_CHANGED (the given plan hash is stale) or JOB_BUSY (another apply/rollback of it is active).
     */
    apply: (request: ApplyInput, actor: Actor) => createApply(res, request, actor, null),
    /**
     * What an apply with this request would move and leave, by bucket (and why), with the plan hash to apply
     * exactly that; reads no file. Throws JOB_NOT_FOUND, WRONG_JOB_KIND, JOB_NOT_READY, UNKNOWN_ROW_IDS.
     */
    planApply: (request: ApplyPlanRequest) => planApply(db, request),
    /** Queues a rollback of an apply job (all its rows, or `row_ids`). Throws JOB_NOT_FOUND, WRONG_JOB_KIND, JOB_BUSY. */
    rollback: (request: RollbackInput, actor: Actor) => createRollback(res, request, actor, null),
    /** Settles jobs a crash left running (also run by `start()`). */
    recover: () => recoverInterruptedJobs(res),
    /** One job. Throws JOB_NOT_FOUND. */
    getJob: (jobId: string): Promise<Job> => snapshotJob(res, jobId),
    /** Jobs newest first, filtered by kind/status; `finished` keeps only finished jobs. Bad cursor: CURSOR_INVALID. */
    listJobs: (query: JobQuery = {}) => listJobs(res, query),
    /** Requests a cooperative cancel; a queued job is cancelled at once; a finished job is returned unchanged. */
    cancel: (jobId: string, actor: Actor) => cancelJob(res, jobId, actor),
    /** Retries a failed or cancelled job as a new job with `retry_of`. Throws JOB_NOT_RETRYABLE. */
    retry: (jobId: string, actor: Actor) => retryJob(res, jobId, actor),
    /** A job's events after `after` (a sequence number). */
    listEvents: (jobId: string, after = 0, limit = 500) => listJobEvents(res, jobId, after, limit),
    /** Every event with a global id above `afterId` (the jobs stream's replay). */
    eventsSince: (afterId: number, limit = 500): Promise<HubMessage[]> => listEventsSince(db, afterId, limit),
    /** The queued, running and cancelling jobs, and the global id of the last event they are as of. */
    jobsSnapshot: () => jobsSnapshot(res),
    /** How many jobs are in each status, and the worker leases on running jobs (valid and expired). */
    countJobs: () => countJobs(res),
    /** Subscribes to new events of every job, in process. Returns the unsubscribe function. */
    subscribe: (listener: (message: HubMessage) => void): (() => void) => ctx.hub.subscribe(listener),
    /** Resolves when the job is finished (or after `timeoutMs`), with its final snapshot. */
    waitForJob: (jobId: string, timeoutMs = 60_000) => waitForJob(res, jobId, timeoutMs),
    /** A job's audit entries (oldest first) and whether the whole chain verifies. Bad cursor: CURSOR_INVALID. */
    listAudit: (jobId: string, cursor?: string, limit = 200) => listAudit(res, jobId, cursor, limit),
    /** The id of the first audit entry that fails verification, or null when the chain is intact. */
    verifyAudit: (): Promise<number | null> => verifyAuditChain(db),
    /** Starts the background runner (after recovery). */
    start: () => runner.start(),
    /** Stops the runner: the running job stops at its next checkpoint (and is marked for retry). */
    stop: () => runner.stop(),
    /** Every known category (built-in, then custom) with each custom one's target template. */
    listCategories: () => listKnownCategories(db),
    /**
     * Queues an analyze job over exactly `files` (absolute paths inside `source_dir`), with optional
     * parameters a strategy pack sets (the confidence threshold). Used by the inbox.
     */
    analyzeFiles: (request: AnalyzeFilesRequest, actor: Actor) => analyzeFilesJob(res, request, actor),
  };
  return engine;
}

/** The fileorg engine. */
export type FileorgEngine = ReturnType<typeof createFileorgEngine>;
