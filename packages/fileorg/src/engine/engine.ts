import { tmpdir } from "node:os";
import { and, desc, eq, gt, inArray, lt, or, type SQL } from "drizzle-orm";
import type { ResolveRequest } from "../domain/conflict.js";
import {
  type Actor,
  type AnalyzeRequest,
  type AuditList,
  canRetry,
  DEFAULT_NAMING_TEMPLATE,
  FINISHED_JOB_STATUSES,
  isFinished,
  type Job,
  type JobError,
  type JobEvent,
  type JobKind,
  type JobList,
  type JobReport,
  type JobStatus,
} from "../domain/job.js";
import type { EditResult, ManifestPage, ManifestRow, RowPatch } from "../domain/manifest.js";
import { parseTemplate } from "../domain/template.js";
import { FileorgError, JobStateError, NotFoundError } from "../errors.js";
import { audit, jobs } from "../store/schema.js";
import { type AnalyzePlan, type RowAdjuster, runAnalyze } from "./analyze.js";
import { GROUP_SIZE, type MoveOptions, recoverInterruptedJobs, runApply, runRollback } from "./apply.js";
import type { EngineContext } from "./context.js";
import { type Database, type Queryable, runTransaction } from "./db.js";
import { createId } from "./ids.js";
import { type ManifestView, previewRow, type RowPreview, reportJob, viewManifest } from "./insights.js";
import { createJournalSigner } from "./journal.js";
import { loadJournalKey } from "./journal-key.js";
import { createLeaseOwner, setOwnerLive } from "./lease.js";
import {
  findActiveMoveJob,
  type InternalPatch,
  type ListRowsOptions,
  listConflicts,
  listRows,
  loadRows,
  type PatchOptions,
  patchRows,
  planHashOfJob,
  type RowsEdited,
  requireManifestJob,
  resolveConflicts,
  thresholdOf,
  toManifestRow,
} from "./manifest.js";
import { toKeysetPage } from "./paging.js";
import { createPathGuard, defaultAllowedRoots } from "./path-guard.js";
import {
  appendAudit,
  appendEvent,
  EventHub,
  findJob,
  type HubMessage,
  type JobRecord,
  listEvents,
  listEventsSince,
  toAuditEntry,
  toJob,
  verifyAuditChain,
} from "./records.js";
import { createJobRun, type JobRun } from "./run.js";

/** What the engine is built from. */
export interface FileorgEngineOptions {
  db: Database;
  /** Milliseconds since the epoch (default `Date.now`). */
  clock?: () => number;
  /** Id factory (default: prefixed, time-ordered random ids). */
  ids?: (prefix: string) => string;
  /** Directories every path must resolve inside (default: home and the system temp directory). */
  allowedRoots?: readonly string[];
  /**
   * Rows built concurrently during analyze (default 8); files are read and hashed on
   * min(concurrency, cores − 1, 4) file threads (at least one).
   */
  concurrency?: number;
  /**
   * The key that signs journal records (HMAC-SHA256). Default: `loadJournalKey` over `dataDir` (from
   * `VETTED_JOURNAL_KEY`, or generated once into the data directory with mode 0600).
   */
  journalKey?: Uint8Array;
  /** Where the journal key file lives when `journalKey` is not given (default: the system temp directory). */
  dataDir?: string;
  /** Environment read for `VETTED_JOURNAL_KEY` (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Always move by copy + fsync + verify + unlink, as across devices (default false: link, then unlink). */
  forceCopy?: boolean;
  /** Rows per journal group commit during apply and rollback (default 500). */
  groupSize?: number;
  /**
   * How long a running job stays leased to this engine without a heartbeat (default 30 000 ms; renewed every
   * third of it). Several processes may share one database: each takes over only jobs whose lease expired
   * (or whose owner is known to be gone) and never runs a job another live process owns.
   */
  leaseMs?: number;
}

/** A job body: runs a claimed job and returns its result. */
export type JobBody = (run: JobRun) => Promise<Record<string, unknown>>;

const jobCursor = (r: JobRecord) => Buffer.from(`${r.createdAt}:${r.id}`).toString("base64url");

/** Creates the fileorg engine: jobs, manifests, conflicts and their background runner. */
export function createFileorgEngine(options: FileorgEngineOptions) {
  const hub = new EventHub();
  const ctx: EngineContext = {
    db: options.db,
    clock: options.clock ?? Date.now,
    ids: options.ids ?? createId,
    hub,
    guard: createPathGuard(options.allowedRoots ?? defaultAllowedRoots()),
    publish(messages) {
      for (const m of messages) hub.publish(m);
    },
    rowsEditedListeners: [],
  };
  const { db } = ctx;
  const concurrency = options.concurrency ?? 8;
  const bodies = new Map<JobKind, JobBody>();
  const signer = createJournalSigner(
    options.journalKey ??
      loadJournalKey({ env: options.env ?? process.env, dataDir: options.dataDir ?? tmpdir() }),
  );
  const moveOptions: MoveOptions = {
    signer,
    forceCopy: options.forceCopy ?? false,
    groupSize: options.groupSize ?? GROUP_SIZE,
  };
  const leaseMs = options.leaseMs ?? 30_000;
  const lease = { owner: createLeaseOwner(), leaseMs };
  let sweep: ReturnType<typeof setInterval> | undefined;
  let started = false;
  let stopping = false;
  let loop: Promise<void> | undefined;
  let again = false;

  const snapshot = async (id: string): Promise<Job> => {
    const job = await findJob(db, id);
    if (job === undefined) throw new NotFoundError("JOB_NOT_FOUND", `No job ${id}.`, { job_id: id });
    return toJob(job, planHashOfJob(job));
  };

  async function createJob(
    kind: JobKind,
    fields: {
      manifestJobId?: string;
      targetJobId?: string | null;
      retryOf?: string | null;
      params: Record<string, unknown>;
    },
    actor: Actor,
    precheck?: (tx: Parameters<Parameters<Database["transaction"]>[0]>[0]) => Promise<void>,
  ): Promise<Job> {
    const id = ctx.ids("job");
    const at = ctx.clock();
    const messages = await runTransaction(db, async (tx) => {
      if (precheck !== undefined) await precheck(tx);
      await tx.insert(jobs).values({
        id,
        kind,
        status: "queued",
        phase: "queued",
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
      await appendAudit(
        tx,
        [
          {
            jobId: id,
            actor: actor.actor,
            requestId: actor.requestId ?? null,
            action: `job.${kind}.created`,
            subject: id,
            before: null,
            after: { status: "queued", params: fields.params, retry_of: fields.retryOf ?? null },
          },
        ],
        at,
      );
      return [await appendEvent(tx, id, "created", { kind, params: fields.params }, at)];
    });
    ctx.publish(messages);
    kick();
    return snapshot(id);
  }

  async function finishJob(
    run: JobRun,
    status: Extract<JobStatus, "succeeded" | "failed" | "cancelled">,
    result: Record<string, unknown> | null,
    error: JobError | null,
  ): Promise<void> {
    const at = ctx.clock();
    const durations = run.durations();
    const message = await runTransaction(db, async (tx) => {
      const mine = await tx
        .update(jobs)
        .set({
          status,
          phase: status,
          progress: status === "succeeded" ? 1 : run.job.progress,
          result,
          error,
          phaseDurations: durations,
          finishedAt: at,
          updatedAt: at,
          leaseExpiresAt: null,
        })
        .where(and(eq(jobs.id, run.job.id), eq(jobs.leaseOwner, lease.owner)))
        .returning({ id: jobs.id });
      // Another process took the job over (our lease had expired): its outcome is theirs to record.
      if (mine.length === 0) return undefined;
      await appendAudit(
        tx,
        [
          {
            jobId: run.job.id,
            actor: "system",
            requestId: null,
            action: `job.${status}`,
            subject: run.job.id,
            before: { status: "running" },
            after: { status, error },
          },
        ],
        at,
      );
      return appendEvent(tx, run.job.id, "finished", { status, result, error }, at);
    });
    if (message !== undefined) ctx.publish([message]);
  }

  async function claimNext(): Promise<JobRecord | undefined> {
    const [next] = await db
      .select()
      .from(jobs)
      .where(eq(jobs.status, "queued"))
      .orderBy(jobs.createdAt)
      .limit(1);
    if (next === undefined) return undefined;
    const at = ctx.clock();
    const claimed = await runTransaction(db, async (tx) => {
      const done = await tx
        .update(jobs)
        .set({
          status: "running",
          phase: "starting",
          startedAt: at,
          updatedAt: at,
          leaseOwner: lease.owner,
          leaseExpiresAt: at + leaseMs,
        })
        .where(and(eq(jobs.id, next.id), eq(jobs.status, "queued")))
        .returning();
      const job = done[0];
      if (job === undefined) return undefined;
      return { job, message: await appendEvent(tx, job.id, "started", {}, at) };
    });
    if (claimed === undefined) return claimNext();
    ctx.publish([claimed.message]);
    return claimed.job;
  }

  /** The heartbeat: extends our lease while the job is still ours; false once another process has it. */
  async function renewLease(jobId: string): Promise<boolean> {
    const at = ctx.clock();
    const renewed = await runTransaction(db, (tx) =>
      tx
        .update(jobs)
        .set({ leaseExpiresAt: at + leaseMs })
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

  async function runOne(job: JobRecord): Promise<void> {
    let leaseLost = false;
    // A job whose lease is lost stops at its next checkpoint, as on shutdown.
    const run = createJobRun(ctx, job, () => stopping || leaseLost);
    const heartbeat = setInterval(
      () => {
        renewLease(job.id)
          .then((ok) => {
            if (!ok) leaseLost = true;
          })
          .catch(() => undefined); // a busy database: the next beat tries again
      },
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    heartbeat.unref();
    const body = bodies.get(job.kind);
    try {
      if (body === undefined) throw new FileorgError("WRONG_JOB_KIND", `No runner for ${job.kind} jobs.`);
      const result = await body(run);
      const [now] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, job.id));
      if (stopping && now?.status !== "cancelling" && result.cancelled === true) {
        await finishJob(run, "failed", result, {
          code: "INTERRUPTED",
          message: "The server stopped while the job ran; retry it.",
        });
      } else if (now?.status === "cancelling" || result.cancelled === true) {
        await finishJob(run, "cancelled", result, null);
      } else if (typeof result.failed_code === "string") {
        await finishJob(run, "failed", result, {
          code: result.failed_code,
          message: String(result.failed_message ?? "The job failed."),
        });
      } else {
        await finishJob(run, "succeeded", result, null);
      }
    } catch (err) {
      const error: JobError =
        err instanceof FileorgError
          ? { code: err.code, message: err.message }
          : { code: "JOB_FAILED", message: err instanceof Error ? err.message : String(err) };
      await finishJob(run, "failed", null, error).catch(() => undefined);
    } finally {
      clearInterval(heartbeat);
    }
  }

  function kick(): void {
    if (!started || stopping) return;
    if (loop !== undefined) {
      again = true;
      return;
    }
    loop = (async () => {
      do {
        again = false;
        for (let job = await claimNext(); job !== undefined && !stopping; job = await claimNext()) {
          await runOne(job);
        }
      } while (again && !stopping);
    })()
      .catch(() => undefined)
      .finally(() => {
        loop = undefined;
        if (again && !stopping) kick();
      });
  }

  bodies.set("analyze", async (run) => {
    const p = run.job.params;
    const template = parseTemplate(String(p.naming_template));
    if (!template.ok) throw new FileorgError("INVALID_TEMPLATE", template.message);
    const adjust = analyzeAdjusters.length === 0 ? undefined : await analyzeAdjusters[0]?.(run.job);
    const plan: AnalyzePlan = {
      sourceDir: String(p.source_dir),
      outputDir: String(p.output_dir),
      template: template.template,
      recursive: p.recursive !== false,
      includeHidden: p.include_hidden === true,
      concurrency,
      files: Array.isArray(p.files) ? p.files.map(String) : undefined,
      confidenceThreshold: thresholdOf(run.job),
      adjust,
      directories: new Map(),
    };
    return runAnalyze(run, plan);
  });

  bodies.set("apply", (run) => runApply(run, moveOptions));
  bodies.set("rollback", (run) => runRollback(run, moveOptions));

  /** Throws JOB_BUSY when an apply or rollback of the manifest is queued or running. */
  async function assertNoActiveMoves(tx: Queryable, manifestJobId: string): Promise<void> {
    const busy = await findActiveMoveJob(tx, manifestJobId);
    if (busy !== undefined) {
      throw new JobStateError("JOB_BUSY", `${busy.kind} job ${busy.id} of this manifest is still active.`, {
        job_id: manifestJobId,
        active_job_id: busy.id,
      });
    }
  }

  async function createApply(
    request: { job_id: string; dry_run?: boolean | undefined; plan_hash?: string | undefined },
    actor: Actor,
    retryOf: string | null,
  ): Promise<Job> {
    const manifest = await requireManifestJob(db, request.job_id);
    return createJob(
      "apply",
      {
        manifestJobId: manifest.id,
        retryOf,
        params: { job_id: manifest.id, dry_run: request.dry_run ?? false },
      },
      actor,
      async (tx) => {
        const fresh = await requireManifestJob(tx, request.job_id);
        if (fresh.status !== "succeeded") {
          throw new JobStateError(
            "JOB_NOT_READY",
            `Analyze job ${fresh.id} is ${fresh.status}, not succeeded.`,
            {
              job_id: fresh.id,
              status: fresh.status,
            },
          );
        }
        const current = planHashOfJob(fresh);
        if (request.plan_hash !== undefined && request.plan_hash !== current) {
          throw new FileorgError(
            "PLAN_CHANGED",
            "The manifest changed since this plan hash was read; review it again.",
            {
              plan_hash: current,
              revision: fresh.revision,
            },
          );
        }
        if (request.dry_run !== true) await assertNoActiveMoves(tx, fresh.id);
      },
    );
  }

  async function createRollback(
    request: { job_id: string; row_ids?: string[] | undefined },
    actor: Actor,
    retryOf: string | null,
  ): Promise<Job> {
    const target = await findJob(db, request.job_id);
    if (target === undefined) {
      throw new NotFoundError("JOB_NOT_FOUND", `No job ${request.job_id}.`, { job_id: request.job_id });
    }
    if (target.kind !== "apply") {
      throw new JobStateError(
        "WRONG_JOB_KIND",
        `Job ${target.id} is a ${target.kind} job; only apply jobs roll back.`,
        {
          job_id: target.id,
          kind: target.kind,
        },
      );
    }
    if (target.params.dry_run === true) {
      throw new JobStateError("WRONG_JOB_KIND", `Job ${target.id} was a dry run; it moved nothing.`, {
        job_id: target.id,
      });
    }
    return createJob(
      "rollback",
      {
        manifestJobId: target.manifestJobId,
        targetJobId: target.id,
        retryOf,
        params: { job_id: target.id, ...(request.row_ids === undefined ? {} : { row_ids: request.row_ids }) },
      },
      actor,
      async (tx) => {
        const fresh = await findJob(tx, target.id);
        if (fresh !== undefined && !isFinished(fresh.status)) {
          throw new JobStateError(
            "JOB_BUSY",
            `Apply job ${fresh.id} is ${fresh.status}; wait for it to finish.`,
            {
              job_id: fresh.id,
              status: fresh.status,
            },
          );
        }
        await assertNoActiveMoves(tx, target.manifestJobId);
      },
    );
  }

  const engine = {
    /** The path guard (allowed roots). */
    guard: ctx.guard,
    /** Queues an analyze job of `source_dir` (202). Throws PATH_OUTSIDE_ROOT, SOURCE_NOT_FOUND, NOT_A_DIRECTORY, INVALID_TEMPLATE. */
    async analyze(request: AnalyzeRequest, actor: Actor): Promise<Job> {
      const sourceDir = await ctx.guard.resolveDirectory(request.source_dir);
      // Preferences may supply a default output root and naming template (review's runtime settings).
      const defaults = await analyzeParamDefaults();
      const defaultOutput = typeof defaults.output_dir === "string" ? defaults.output_dir : undefined;
      const requestedOutput = request.output_dir ?? defaultOutput;
      const outputDir =
        requestedOutput === undefined ? sourceDir : await ctx.guard.resolvePossiblyMissing(requestedOutput);
      const namingTemplate =
        request.naming_template ??
        (typeof defaults.naming_template === "string" ? defaults.naming_template : DEFAULT_NAMING_TEMPLATE);
      const template = parseTemplate(namingTemplate);
      if (!template.ok) {
        throw new FileorgError("INVALID_TEMPLATE", template.message, { naming_template: namingTemplate });
      }
      return createJob(
        "analyze",
        {
          params: {
            ...defaults,
            source_dir: sourceDir,
            output_dir: outputDir,
            naming_template: namingTemplate,
            recursive: request.recursive ?? true,
            include_hidden: request.include_hidden ?? false,
          },
        },
        actor,
      );
    },

    /**
     * Queues an apply of an analyze job's manifest (202). Throws JOB_NOT_FOUND, WRONG_JOB_KIND, JOB_NOT_READY,
     * PLAN_CHANGED (the given plan hash is stale) or JOB_BUSY (another apply/rollback of it is active).
     */
    apply(
      request: { job_id: string; dry_run?: boolean | undefined; plan_hash?: string | undefined },
      actor: Actor,
    ) {
      return createApply(request, actor, null);
    },

    /** Queues a rollback of an apply job (all its rows, or `row_ids`). Throws JOB_NOT_FOUND, WRONG_JOB_KIND, JOB_BUSY. */
    rollback(request: { job_id: string; row_ids?: string[] | undefined }, actor: Actor) {
      return createRollback(request, actor, null);
    },

    /** Settles jobs a crash left running (also run by `start()`). */
    recover() {
      return recoverInterruptedJobs(ctx, signer, lease);
    },

    /** One job. Throws JOB_NOT_FOUND. */
    getJob: snapshot,

    /** Jobs newest first, filtered by kind/status; `finished` keeps only finished jobs (history). */
    async listJobs(
      query: {
        kind?: JobKind | undefined;
        status?: JobStatus | undefined;
        finished?: boolean | undefined;
        cursor?: string | undefined;
        limit?: number | undefined;
      } = {},
    ): Promise<JobList> {
      const limit = Math.min(Math.max(query.limit ?? 50, 1), 500);
      const where: SQL[] = [];
      if (query.kind !== undefined) where.push(eq(jobs.kind, query.kind));
      if (query.status !== undefined) where.push(eq(jobs.status, query.status));
      if (query.finished === true) where.push(inArray(jobs.status, [...FINISHED_JOB_STATUSES]));
      if (query.cursor !== undefined && query.cursor !== "") {
        const [ms, id] = Buffer.from(query.cursor, "base64url").toString("utf8").split(":");
        const createdAt = Number(ms);
        if (Number.isFinite(createdAt) && id !== undefined) {
          const cond = or(lt(jobs.createdAt, createdAt), and(eq(jobs.createdAt, createdAt), lt(jobs.id, id)));
          if (cond !== undefined) where.push(cond);
        }
      }
      const found = await db
        .select()
        .from(jobs)
        .where(where.length === 0 ? undefined : and(...where))
        .orderBy(desc(jobs.createdAt), desc(jobs.id))
        .limit(limit + 1);
      return toKeysetPage(found, limit, (j) => toJob(j, planHashOfJob(j)), jobCursor);
    },

    /** Requests a cooperative cancel; a queued job is cancelled at once; a finished job is returned unchanged. */
    async cancel(jobId: string, actor: Actor): Promise<Job> {
      const at = ctx.clock();
      const messages = await runTransaction(db, async (tx) => {
        const job = await findJob(tx, jobId);
        if (job === undefined)
          throw new NotFoundError("JOB_NOT_FOUND", `No job ${jobId}.`, { job_id: jobId });
        if (isFinished(job.status) || job.status === "cancelling") return [];
        const status = job.status === "queued" ? "cancelled" : "cancelling";
        await tx
          .update(jobs)
          .set({
            status,
            updatedAt: at,
            ...(status === "cancelled" ? { finishedAt: at, phase: "cancelled" } : {}),
          })
          .where(eq(jobs.id, jobId));
        await appendAudit(
          tx,
          [
            {
              jobId,
              actor: actor.actor,
              requestId: actor.requestId ?? null,
              action: "job.cancel",
              subject: jobId,
              before: { status: job.status },
              after: { status },
            },
          ],
          at,
        );
        const out = [await appendEvent(tx, jobId, "cancel_requested", {}, at)];
        if (status === "cancelled") out.push(await appendEvent(tx, jobId, "finished", { status }, at));
        return out;
      });
      ctx.publish(messages);
      return snapshot(jobId);
    },

    /** Retries a failed or cancelled job as a new job with `retry_of`. Throws JOB_NOT_RETRYABLE. */
    async retry(jobId: string, actor: Actor): Promise<Job> {
      const job = await findJob(db, jobId);
      if (job === undefined) throw new NotFoundError("JOB_NOT_FOUND", `No job ${jobId}.`, { job_id: jobId });
      if (!canRetry(job.status)) {
        throw new JobStateError(
          "JOB_NOT_RETRYABLE",
          `Job ${jobId} is ${job.status}; only failed or cancelled jobs retry.`,
          {
            job_id: jobId,
            status: job.status,
          },
        );
      }
      if (job.kind === "apply") {
        return createApply(
          { job_id: job.manifestJobId, dry_run: job.params.dry_run === true },
          actor,
          job.id,
        );
      }
      if (job.kind === "rollback") {
        const rowIds = Array.isArray(job.params.row_ids) ? job.params.row_ids.map(String) : undefined;
        return createRollback({ job_id: String(job.targetJobId), row_ids: rowIds }, actor, job.id);
      }
      return createJob(job.kind, { params: job.params, retryOf: job.id }, actor);
    },

    /** A job's events after `after` (a sequence number). */
    async listEvents(
      jobId: string,
      after = 0,
      limit = 500,
    ): Promise<{ items: JobEvent[]; next_cursor: string | null }> {
      await snapshot(jobId);
      const items = await listEvents(db, jobId, after, Math.min(Math.max(limit, 1), 1000));
      const last = items[items.length - 1];
      return { items, next_cursor: items.length === limit && last !== undefined ? String(last.seq) : null };
    },

    /** Every event with a global id above `afterId` (the jobs stream's replay). */
    eventsSince(afterId: number, limit = 500): Promise<HubMessage[]> {
      return listEventsSince(db, afterId, limit);
    },

    /** Subscribes to new events of every job, in process. Returns the unsubscribe function. */
    subscribe(listener: (message: HubMessage) => void): () => void {
      return hub.subscribe(listener);
    },

    /** Resolves when the job is finished (or after `timeoutMs`), with its final snapshot. */
    async waitForJob(jobId: string, timeoutMs = 60_000): Promise<Job> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const job = await snapshot(jobId);
        if (isFinished(job.status) || Date.now() > deadline) return job;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, 50);
          const off = hub.subscribe((m) => {
            if (m.event.job_id === jobId && m.event.type === "finished") done();
          });
          function done() {
            clearTimeout(timer);
            off();
            resolve();
          }
        });
      }
    },

    /** Reads manifest rows by filter and cursor. */
    listRows(jobId: string, query: ListRowsOptions = {}): Promise<ManifestPage> {
      return listRows(db, jobId, query);
    },

    /** One row. Throws JOB_NOT_FOUND, ROW_NOT_FOUND. */
    async getRow(jobId: string, rowId: string): Promise<ManifestRow> {
      await requireManifestJob(db, jobId);
      const [row] = await loadRows(db, jobId, [rowId]);
      if (row === undefined)
        throw new NotFoundError("ROW_NOT_FOUND", `No row ${rowId} in ${jobId}.`, { row_id: rowId });
      return toManifestRow(row);
    },

    /**
     * Applies a batch of field patches atomically (one revision bump, conflicts and buckets recomputed for
     * the rows concerned, audited with the actor and request id).
     */
    applyPatches(
      jobId: string,
      operations: ReadonlyArray<{ row_id: string; patch: RowPatch | InternalPatch }>,
      opts: PatchOptions,
    ): Promise<EditResult> {
      return patchRows(ctx, jobId, operations, opts);
    },

    /** Edits one row (field-level); `expectedRevision` comes from `If-Match`. */
    async editRow(jobId: string, rowId: string, patch: RowPatch, opts: PatchOptions): Promise<ManifestRow> {
      const result = await patchRows(ctx, jobId, [{ row_id: rowId, patch }], opts);
      const [row] = result.items;
      if (row === undefined) throw new NotFoundError("ROW_NOT_FOUND", `No row ${rowId} in ${jobId}.`);
      return row;
    },

    /** Lists a manifest's conflicts. */
    listConflicts(
      jobId: string,
      query: {
        status?: "open" | "resolved" | undefined;
        cursor?: string | undefined;
        limit?: number | undefined;
      } = {},
    ) {
      return listConflicts(db, jobId, query);
    },

    /** Resolves conflicts atomically. */
    resolveConflicts(
      jobId: string,
      request: ResolveRequest,
      opts: Actor & { expectedRevision?: number | undefined },
    ) {
      return resolveConflicts(ctx, jobId, request, opts);
    },

    /** A job's audit entries (oldest first) and whether the whole chain verifies. */
    async listAudit(jobId: string, cursor?: string, limit = 200): Promise<AuditList> {
      await snapshot(jobId);
      const after = cursor === undefined ? 0 : Number(cursor) || 0;
      const n = Math.min(Math.max(limit, 1), 1000);
      const found = await db
        .select()
        .from(audit)
        .where(and(or(eq(audit.jobId, jobId), eq(audit.subject, jobId)), gt(audit.id, after)))
        .orderBy(audit.id)
        .limit(n + 1);
      const page = found.slice(0, n);
      const last = page[page.length - 1];
      return {
        items: page.map(toAuditEntry),
        next_cursor: found.length > n && last !== undefined ? String(last.id) : null,
        chain_valid: (await verifyAuditChain(db)) === null,
      };
    },

    /** The grouped view of a manifest: target folder tree with counts, and summaries. */
    viewManifest(jobId: string): Promise<ManifestView> {
      return viewManifest(ctx, jobId);
    },

    /** A row's metadata and a safe preview of its file. */
    previewRow(jobId: string, rowId: string): Promise<RowPreview> {
      return previewRow(ctx, jobId, rowId);
    },

    /** A job's report: totals, counts by bucket/category/status/error, duplicates, conflicts, bytes moved, durations. */
    report(jobId: string): Promise<JobReport> {
      return reportJob(ctx, jobId);
    },

    /** The id of the first audit entry that fails verification, or null when the chain is intact. */
    verifyAudit(): Promise<number | null> {
      return verifyAuditChain(db);
    },

    /** Starts the background runner (after recovery hooks ran). */
    async start(): Promise<void> {
      if (started) return;
      setOwnerLive(lease.owner, true);
      await recoverInterruptedJobs(ctx, signer, lease);
      started = true;
      stopping = false;
      // Jobs of a process that died while this one runs are taken over once their lease runs out, and
      // jobs queued through another process that left them waiting longer than a lease are picked up.
      sweep = setInterval(
        () => {
          recoverInterruptedJobs(ctx, signer, lease)
            .then(async () => {
              const [stale] = await db
                .select({ id: jobs.id })
                .from(jobs)
                .where(and(eq(jobs.status, "queued"), lt(jobs.createdAt, ctx.clock() - leaseMs)))
                .limit(1);
              if (stale !== undefined) kick();
            })
            .catch(() => undefined);
        },
        Math.max(10, Math.floor(leaseMs / 3)),
      );
      sweep.unref();
      kick();
    },

    /** Stops the runner: the running job stops at its next checkpoint (and is marked for retry). */
    async stop(): Promise<void> {
      stopping = true;
      clearInterval(sweep);
      sweep = undefined;
      await loop;
      started = false;
      setOwnerLive(lease.owner, false);
    },
  };
  const analyzeAdjusters: Array<(job: JobRecord) => Promise<RowAdjuster | undefined>> = [];
  let paramDefaults: (() => Promise<Record<string, unknown>>) | undefined;
  const analyzeParamDefaults = async () => (paramDefaults === undefined ? {} : await paramDefaults());
  // Review's hooks: learned suggestions on new rows, strategy-pack parameters, edit listeners, inbox batches.
  return Object.assign(engine, {
    /** Sets how new analyze rows are adjusted before bucketing (review's learned suggestions). */
    onAnalyzeRows(prepare: (job: JobRecord) => Promise<RowAdjuster | undefined>) {
      analyzeAdjusters.splice(0, analyzeAdjusters.length, prepare);
    },
    /** Sets extra parameters of new analyze jobs (the active strategy pack's confidence threshold). */
    onAnalyzeParams(defaults: () => Promise<Record<string, unknown>>) {
      paramDefaults = defaults;
    },
    /** Listens to every committed patch batch, with each row before and after. */
    onRowsEdited(listener: (event: RowsEdited) => Promise<void> | void) {
      ctx.rowsEditedListeners.push(listener);
    },
    /**
     * Queues an analyze job over exactly `files` (absolute paths inside `source_dir`), with optional
     * parameters a strategy pack sets (the confidence threshold). Used by the inbox.
     */
    async analyzeFiles(
      request: AnalyzeRequest & { files: readonly string[]; confidence_threshold?: number | undefined },
      actor: Actor,
    ): Promise<Job> {
      const sourceDir = await ctx.guard.resolveDirectory(request.source_dir);
      const outputDir =
        request.output_dir === undefined
          ? sourceDir
          : await ctx.guard.resolvePossiblyMissing(request.output_dir);
      const namingTemplate = request.naming_template ?? DEFAULT_NAMING_TEMPLATE;
      const template = parseTemplate(namingTemplate);
      if (!template.ok) {
        throw new FileorgError("INVALID_TEMPLATE", template.message, { naming_template: namingTemplate });
      }
      const prefix = sourceDir.endsWith("/") ? sourceDir : `${sourceDir}/`;
      const files = request.files.filter((f) => f.startsWith(prefix));
      return createJob(
        "analyze",
        {
          params: {
            ...(await analyzeParamDefaults()),
            source_dir: sourceDir,
            output_dir: outputDir,
            naming_template: namingTemplate,
            recursive: true,
            include_hidden: false,
            files,
            ...(request.confidence_threshold === undefined
              ? {}
              : { confidence_threshold: request.confidence_threshold }),
          },
        },
        actor,
      );
    },
  });
}

/** The fileorg engine. */
export type FileorgEngine = ReturnType<typeof createFileorgEngine>;
