import { runTransaction } from "@vetted/store";
import { and, eq } from "drizzle-orm";
import {
  type Actor,
  type AnalyzeRequest,
  type ApplyBucket,
  canRetry,
  DEFAULT_NAMING_TEMPLATE,
  isApplyBucket,
  isFinished,
  type Job,
} from "../../domain/job.js";
import { DEFAULT_ORIGINAL_POLICY } from "../../domain/originals.js";
import { findStrategyPack } from "../../domain/strategy-packs.js";
import { parseTemplate } from "../../domain/template.js";
import { moveJob } from "../../domain/transitions.js";
import { FileorgError, JobStateError, NotFoundError } from "../../errors.js";
import { jobs } from "../../store/schema.js";
import type { Queryable } from "../db.js";
import { assertInsideEffectiveRoots } from "../effective-roots.js";
import { findActiveMoveJob, planHashOfJob, requireManifestJob } from "../manifest/index.js";
import { appendAudit, appendEvent, findJob } from "../records.js";
import type { FileorgResources } from "../resources.js";
import { createJob, snapshotJob } from "./create.js";
import { assertRowsOfManifest, withWholeUnits } from "./row-ids.js";

/** An apply request. */
export interface ApplyInput {
  job_id: string;
  dry_run?: boolean | undefined;
  plan_hash?: string | undefined;
  buckets?: ApplyBucket[] | undefined;
  row_ids?: string[] | undefined;
}

/** A rollback request. */
export interface RollbackInput {
  job_id: string;
  row_ids?: string[] | undefined;
}

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

/** Parses a naming template or throws INVALID_TEMPLATE. */
export function requireTemplate(namingTemplate: string): void {
  const template = parseTemplate(namingTemplate);
  if (!template.ok) {
    throw new FileorgError("INVALID_TEMPLATE", template.message, { naming_template: namingTemplate });
  }
}

/** The preference defaults of new analyze jobs (none unless review set them). */
export async function paramDefaultsOf(res: FileorgResources): Promise<Record<string, unknown>> {
  return res.hooks.analyzeParams === undefined ? {} : await res.hooks.analyzeParams();
}

/** Queues an analyze job of `source_dir`. */
export async function createAnalyze(res: FileorgResources, request: AnalyzeRequest, actor: Actor) {
  const { guard } = res.ctx;
  const sourceDir = await guard.resolveDirectory(request.source_dir);
  // Preferences may supply a default output root and naming template (review's runtime settings).
  const defaults = await paramDefaultsOf(res);
  const defaultOutput = typeof defaults.output_dir === "string" ? defaults.output_dir : undefined;
  const requestedOutput = request.output_dir ?? defaultOutput;
  const outputDir =
    requestedOutput === undefined ? sourceDir : await guard.resolvePossiblyMissing(requestedOutput);
  const namingTemplate =
    request.naming_template ??
    (typeof defaults.naming_template === "string" ? defaults.naming_template : DEFAULT_NAMING_TEMPLATE);
  requireTemplate(namingTemplate);
  // The runtime setting allowed_roots narrows the environment's roots for every new analyze.
  await assertInsideEffectiveRoots(guard, defaults.allowed_roots, [sourceDir, outputDir]);
  const params = {
    ...defaults,
    source_dir: sourceDir,
    output_dir: outputDir,
    naming_template: namingTemplate,
    recursive: request.recursive ?? true,
    include_hidden: request.include_hidden ?? false,
    keep_units: request.keep_units ?? true,
    detect_original_by: request.detect_original_by ?? DEFAULT_ORIGINAL_POLICY,
    ...(request.read_pdf_text === true ? { read_pdf_text: true } : {}),
    ...packParams(request.strategy_pack_id),
  };
  return createJob(res, "analyze", { params }, actor);
}

/** The parameters a strategy pack chosen for one analyze sets (its id and review threshold). */
function packParams(id: string | undefined): Record<string, unknown> {
  const pack = id === undefined ? undefined : findStrategyPack(id);
  return pack === undefined
    ? {}
    : { strategy_pack_id: pack.id, confidence_threshold: pack.confidence_threshold };
}

/** Queues an apply of an analyze job's manifest, checked again inside the creating transaction. */
export async function createApply(
  res: FileorgResources,
  request: ApplyInput,
  actor: Actor,
  retryOf: string | null,
): Promise<Job> {
  const manifest = await requireManifestJob(res.ctx.db, request.job_id);
  if (request.row_ids !== undefined) await assertRowsOfManifest(res.ctx.db, manifest.id, request.row_ids);
  const params = {
    job_id: manifest.id,
    dry_run: request.dry_run ?? false,
    ...(request.buckets === undefined ? {} : { buckets: request.buckets }),
    ...(request.row_ids === undefined ? {} : { row_ids: [...new Set(request.row_ids)] }),
  };
  return createJob(res, "apply", { manifestJobId: manifest.id, retryOf, params }, actor, async (tx) => {
    const fresh = await requireManifestJob(tx, request.job_id);
    if (fresh.status !== "succeeded") {
      throw new JobStateError("JOB_NOT_READY", `Analyze job ${fresh.id} is ${fresh.status}, not succeeded.`, {
        job_id: fresh.id,
        status: fresh.status,
      });
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
  });
}

/** Queues a rollback of an apply job (all its rows, or `row_ids`). */
export async function createRollback(
  res: FileorgResources,
  request: RollbackInput,
  actor: Actor,
  retryOf: string | null,
): Promise<Job> {
  const target = await findJob(res.ctx.db, request.job_id);
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
  if (request.row_ids !== undefined)
    await assertRowsOfManifest(res.ctx.db, target.manifestJobId, request.row_ids);
  // A unit rolls back whole: naming one of its rows names all of them.
  const rowIds =
    request.row_ids === undefined
      ? undefined
      : await withWholeUnits(res.ctx.db, target.manifestJobId, request.row_ids);
  const params = {
    job_id: target.id,
    ...(rowIds === undefined ? {} : { row_ids: rowIds }),
  };
  const fields = { manifestJobId: target.manifestJobId, targetJobId: target.id, retryOf, params };
  return createJob(res, "rollback", fields, actor, async (tx) => {
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
  });
}

/** Retries a failed or cancelled job as a new job with `retry_of`. Throws JOB_NOT_RETRYABLE. */
export async function retryJob(res: FileorgResources, jobId: string, actor: Actor): Promise<Job> {
  const job = await findJob(res.ctx.db, jobId);
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
      res,
      {
        job_id: job.manifestJobId,
        dry_run: job.params.dry_run === true,
        ...(Array.isArray(job.params.buckets) ? { buckets: job.params.buckets.filter(isApplyBucket) } : {}),
        ...(Array.isArray(job.params.row_ids) ? { row_ids: job.params.row_ids.map(String) } : {}),
      },
      actor,
      job.id,
    );
  }
  if (job.kind === "rollback") {
    const rowIds = Array.isArray(job.params.row_ids) ? job.params.row_ids.map(String) : undefined;
    return createRollback(res, { job_id: String(job.targetJobId), row_ids: rowIds }, actor, job.id);
  }
  return createJob(res, job.kind, { params: job.params, retryOf: job.id }, actor);
}

/** Requests a cooperative cancel; a queued job is cancelled at once; a finished job is returned unchanged. */
export async function cancelJob(res: FileorgResources, jobId: string, actor: Actor): Promise<Job> {
  const { ctx } = res;
  const at = ctx.clock();
  const messages = await runTransaction(ctx.db, async (tx) => {
    const job = await findJob(tx, jobId);
    if (job === undefined) throw new NotFoundError("JOB_NOT_FOUND", `No job ${jobId}.`, { job_id: jobId });
    if (isFinished(job.status) || job.status === "cancelling") return [];
    const status = moveJob(job.status, job.status === "queued" ? "cancelled" : "cancelling", jobId);
    const moved = await tx
      .update(jobs)
      .set({
        status,
        updatedAt: at,
        ...(status === "cancelled" ? { finishedAt: at, phase: "cancelled" } : {}),
      })
      .where(and(eq(jobs.id, jobId), eq(jobs.status, job.status)))
      .returning({ id: jobs.id });
    // Claimed or finished meanwhile (through another connection): read it again and decide anew.
    if (moved.length === 0) return undefined;
    const entry = {
      jobId,
      actor: actor.actor,
      requestId: actor.requestId ?? null,
      action: "job.cancel",
      subject: jobId,
      before: { status: job.status },
      after: { status },
    };
    await appendAudit(tx, [entry], at);
    const out = [await appendEvent(tx, jobId, "cancel_requested", {}, at)];
    if (status === "cancelled") out.push(await appendEvent(tx, jobId, "finished", { status }, at));
    return out;
  });
  if (messages === undefined) return cancelJob(res, jobId, actor);
  ctx.publish(messages);
  return snapshotJob(res, jobId);
}
