import { lstat, stat } from "node:fs/promises";
import { posix } from "node:path";
import { and, asc, eq, gt, inArray, or, type SQL, sql } from "drizzle-orm";
import type { Conflict, ConflictKind, ResolutionStrategy, ResolveRequest } from "../domain/conflict.js";
import {
  type ConflictRow,
  type ConflictScope,
  conflictId,
  detectConflicts,
  isInScope,
} from "../domain/detect-conflicts.js";
import type { Actor } from "../domain/job.js";
import type {
  Category,
  EditResult,
  ManifestFilter,
  ManifestPage,
  ManifestRow,
  RowAction,
} from "../domain/manifest.js";
import { planHashOf, planRowDigest, xorDigest } from "../domain/plan-hash.js";
import {
  type BucketVerdict,
  computeReviewBucket,
  mergeReasonCodes,
  REVIEW_CONFIDENCE_THRESHOLD,
  REVIEW_MARKER_REASONS,
  REVIEW_MARKERS,
} from "../domain/review-bucket.js";
import {
  isInside,
  parseTemplate,
  pathKey,
  renderTemplate,
  resolveTargetPath,
  withSuffix,
} from "../domain/template.js";
import { FileorgError, JobStateError, NotFoundError } from "../errors.js";
import { conflicts, jobs, rows } from "../store/schema.js";
import { confineScope } from "./confined-fs.js";
import { hashConfined } from "./confined-moves.js";
import type { EngineContext } from "./context.js";
import { chunk, type Queryable, runTransaction } from "./db.js";
import { toKeysetPage } from "./paging.js";
import {
  type AuditInput,
  appendAudit,
  appendEvent,
  findJob,
  type HubMessage,
  type JobRecord,
} from "./records.js";

/** A manifest row as stored. */
export type RowRecord = typeof rows.$inferSelect;

/** Maps a stored row to its public shape. */
export function toManifestRow(r: RowRecord): ManifestRow {
  return {
    row_id: r.id,
    job_id: r.jobId,
    source_path: r.sourcePath,
    target_path: r.targetPath,
    size: r.size,
    mtime: r.mtime,
    sha256: r.sha256,
    mime: r.mime,
    category: r.category,
    confidence: r.confidence,
    action: r.action,
    review_bucket: r.reviewBucket,
    reason_codes: r.reasonCodes,
    status: r.status,
    edited: r.edited,
    error: r.error ?? null,
    conflict_ids: r.conflictIds,
  };
}

/** Whether apply would move the row (its part of the plan hash). */
export function isEligible(r: Pick<RowRecord, "reviewBucket" | "action">): boolean {
  return r.action === "move" && r.reviewBucket !== "blocked" && r.reviewBucket !== "conflict";
}

/** The plan digest of a stored row. */
export function digestOf(
  r: Pick<RowRecord, "id" | "action" | "sourcePath" | "targetPath" | "sha256" | "reviewBucket">,
): string {
  return planRowDigest({
    rowId: r.id,
    action: r.action,
    sourcePath: r.sourcePath,
    targetPath: r.targetPath,
    sha256: r.sha256,
    eligible: isEligible(r),
  });
}

/** What a row's bucket is computed from. */
export type BucketFields = Pick<
  RowRecord,
  "blocked" | "conflictIds" | "confidence" | "edited" | "action" | "reasonCodes"
>;

/** The confidence threshold of an analyze job (from its strategy pack), or the default one. */
export function thresholdOf(job: Pick<JobRecord, "params"> | undefined): number {
  const t = job?.params.confidence_threshold;
  return typeof t === "number" && t >= 0 && t <= 1 ? t : REVIEW_CONFIDENCE_THRESHOLD;
}

/**
 * The verdict on a stored row: its bucket and the reasons, reading review's markers (approved, a learned
 * suggestion that disagrees) from its stored reason codes.
 */
export function verdictOf(r: BucketFields, threshold = REVIEW_CONFIDENCE_THRESHOLD): BucketVerdict {
  return computeReviewBucket(
    {
      blocked: r.blocked,
      openConflicts: r.conflictIds.length,
      confidence: r.confidence,
      edited: r.edited,
      action: r.action,
      approved: r.reasonCodes.includes(REVIEW_MARKERS.approved),
      skipExpected: r.reasonCodes.includes("ALREADY_IN_PLACE") || r.blocked,
      reviewReasons: r.reasonCodes.filter((c) => REVIEW_MARKER_REASONS.includes(c)),
    },
    threshold,
  );
}

/** The bucket of a stored row and its reason codes with the verdict's reasons refreshed. */
export function reviewOf(
  r: BucketFields,
  threshold = REVIEW_CONFIDENCE_THRESHOLD,
): { reviewBucket: RowRecord["reviewBucket"]; reasonCodes: string[] } {
  const verdict = verdictOf(r, threshold);
  return { reviewBucket: verdict.bucket, reasonCodes: mergeReasonCodes(r.reasonCodes, verdict) };
}

/** The bucket of a stored row. */
export function bucketOf(
  r: BucketFields,
  threshold = REVIEW_CONFIDENCE_THRESHOLD,
): RowRecord["reviewBucket"] {
  return verdictOf(r, threshold).bucket;
}

const encodeCursor = (n: number) => Buffer.from(String(n)).toString("base64url");
/** Decodes a cursor made by a listing; an invalid one reads as the start. */
export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined || cursor === "") return 0;
  const n = Number(Buffer.from(cursor, "base64url").toString("utf8"));
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

/** Loads an analyze job or throws JOB_NOT_FOUND / WRONG_JOB_KIND. */
export async function requireManifestJob(db: Queryable, jobId: string): Promise<JobRecord> {
  const job = await findJob(db, jobId);
  if (job === undefined) throw new NotFoundError("JOB_NOT_FOUND", `No job ${jobId}.`, { job_id: jobId });
  if (job.kind !== "analyze") {
    throw new JobStateError(
      "WRONG_JOB_KIND",
      `Job ${jobId} is a ${job.kind} job; a manifest belongs to an analyze job.`,
      {
        job_id: jobId,
        kind: job.kind,
      },
    );
  }
  return job;
}

/** The public plan hash of a manifest job. */
export function planHashOfJob(job: JobRecord): string | null {
  return job.planAccumulator === null ? null : planHashOf(job.planAccumulator);
}

/** Options of a manifest listing. */
export interface ListRowsOptions extends ManifestFilter {
  cursor?: string | undefined;
  limit?: number | undefined;
  /** Restrict to these rows. */
  rowIds?: readonly string[] | undefined;
}

/** Reads rows of a manifest by filter and cursor (ordered by analyze order). */
export async function listRows(
  db: Queryable,
  jobId: string,
  options: ListRowsOptions = {},
): Promise<ManifestPage> {
  const job = await requireManifestJob(db, jobId);
  const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
  const where: SQL[] = [eq(rows.jobId, jobId), gt(rows.seq, decodeCursor(options.cursor))];
  if (options.bucket !== undefined) where.push(eq(rows.reviewBucket, options.bucket));
  if (options.status !== undefined) where.push(eq(rows.status, options.status));
  if (options.category !== undefined) where.push(eq(rows.category, options.category));
  if (options.action !== undefined) where.push(eq(rows.action, options.action));
  if (options.rowIds !== undefined) where.push(inArray(rows.id, [...options.rowIds]));
  if (options.text !== undefined) {
    const pattern = `%${options.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const cond = or(
      sql`${rows.sourcePath} LIKE ${pattern} ESCAPE '\\'`,
      sql`${rows.targetPath} LIKE ${pattern} ESCAPE '\\'`,
    );
    if (cond !== undefined) where.push(cond);
  }
  const found = await db
    .select()
    .from(rows)
    .where(and(...where))
    .orderBy(asc(rows.seq))
    .limit(limit + 1);
  return {
    ...toKeysetPage(found, limit, toManifestRow, (last) => encodeCursor(last.seq)),
    revision: job.revision ?? 0,
    plan_hash: planHashOfJob(job) ?? "",
  };
}

/** Loads rows of a job by id, in chunks. */
export async function loadRows(db: Queryable, jobId: string, ids: readonly string[]): Promise<RowRecord[]> {
  const out: RowRecord[] = [];
  for (const part of chunk([...new Set(ids)], 500)) {
    out.push(
      ...(await db
        .select()
        .from(rows)
        .where(and(eq(rows.jobId, jobId), inArray(rows.id, part)))),
    );
  }
  return out;
}

function toConflictRow(r: RowRecord, outputDir: string): ConflictRow {
  return {
    rowId: r.id,
    seq: r.seq,
    action: r.action,
    targetPath: r.targetPath,
    targetKey: r.targetKey,
    sha256: r.sha256,
    size: r.size,
    targetOccupied: r.targetOccupied,
    outsideRoot: !isInside(outputDir, r.targetPath),
    sourceChanged: r.sourceChanged,
    duplicateAccepted: r.duplicateAccepted,
  };
}

/** The outcome of recomputing conflicts: hub messages to publish and the plan accumulator delta applied. */
export interface RecomputeOutcome {
  messages: HubMessage[];
  accumulator: string;
  touchedRowIds: Set<string>;
}

/**
 * Recomputes the conflicts within `scope` from the stored rows, opens/resolves conflict records, and
 * updates the conflict ids, bucket and plan digest of every row concerned. Runs inside `tx`.
 */
export async function recomputeConflicts(
  tx: Queryable,
  job: JobRecord,
  scope: ConflictScope,
  accumulator: string,
  at: number,
  resolutions: ReadonlyMap<string, ResolutionStrategy> = new Map(),
): Promise<RecomputeOutcome> {
  const outputDir = String(job.params.output_dir ?? "");
  const found = new Map<string, RowRecord>();
  const load = async (col: typeof rows.targetKey | typeof rows.sha256 | typeof rows.id, values: string[]) => {
    for (const part of chunk(values, 500)) {
      for (const r of await tx
        .select()
        .from(rows)
        .where(and(eq(rows.jobId, job.id), inArray(col, part)))) {
        found.set(r.id, r);
      }
    }
  };
  await load(rows.targetKey, [...scope.targetKeys]);
  await load(rows.sha256, [...scope.shas]);
  await load(rows.id, [...scope.rowIds]);
  const all = [...found.values()];
  const detected = detectConflicts(
    all.map((r) => toConflictRow(r, outputDir)),
    scope,
  );
  const detectedById = new Map(detected.map((d) => [conflictId(job.id, d.kind, d.key), d]));
  const referenced = new Set<string>();
  for (const r of all) for (const id of r.conflictIds) referenced.add(id);
  for (const id of detectedById.keys()) referenced.add(id);
  const existing = new Map<string, typeof conflicts.$inferSelect>();
  for (const part of chunk([...referenced], 500)) {
    for (const c of await tx.select().from(conflicts).where(inArray(conflicts.id, part)))
      existing.set(c.id, c);
  }
  const messages: HubMessage[] = [];
  const scopeIds = new Set<string>(detectedById.keys());
  for (const [id, c] of existing) {
    if (isInScope(c.kind, c.key, scope)) scopeIds.add(id);
  }
  for (const [id, d] of detectedById) {
    const old = existing.get(id);
    if (old === undefined) {
      await tx.insert(conflicts).values({
        id,
        jobId: job.id,
        kind: d.kind,
        key: d.key,
        rowIds: d.rowIds,
        status: "open",
        resolution: null,
        openedAt: at,
        resolvedAt: null,
      });
      messages.push(
        await appendEvent(
          tx,
          job.id,
          "conflict_opened",
          { conflict_id: id, kind: d.kind, row_ids: d.rowIds },
          at,
        ),
      );
    } else if (old.status === "resolved") {
      await tx
        .update(conflicts)
        .set({ status: "open", rowIds: d.rowIds, resolution: null, openedAt: at, resolvedAt: null })
        .where(eq(conflicts.id, id));
      messages.push(
        await appendEvent(
          tx,
          job.id,
          "conflict_opened",
          { conflict_id: id, kind: d.kind, row_ids: d.rowIds },
          at,
        ),
      );
    } else if (JSON.stringify(old.rowIds) !== JSON.stringify(d.rowIds)) {
      await tx.update(conflicts).set({ rowIds: d.rowIds }).where(eq(conflicts.id, id));
    }
  }
  for (const [id, c] of existing) {
    if (c.status !== "open" || detectedById.has(id) || !scopeIds.has(id)) continue;
    const resolution = resolutions.get(id) ?? "edited";
    await tx
      .update(conflicts)
      .set({ status: "resolved", resolution, resolvedAt: at })
      .where(eq(conflicts.id, id));
    messages.push(
      await appendEvent(tx, job.id, "conflict_resolved", { conflict_id: id, kind: c.kind, resolution }, at),
    );
  }
  const memberships = new Map<string, string[]>();
  for (const [id, d] of detectedById) {
    for (const rowId of d.rowIds) memberships.set(rowId, [...(memberships.get(rowId) ?? []), id]);
  }
  let acc = accumulator;
  const touchedRowIds = new Set<string>();
  for (const r of all) {
    const conflictIds = [
      ...r.conflictIds.filter((id) => !scopeIds.has(id)),
      ...(memberships.get(r.id) ?? []),
    ].sort();
    const { reviewBucket, reasonCodes } = reviewOf({ ...r, conflictIds }, thresholdOf(job));
    const planDigest = digestOf({ ...r, reviewBucket });
    if (
      JSON.stringify(conflictIds) === JSON.stringify(r.conflictIds) &&
      reviewBucket === r.reviewBucket &&
      planDigest === r.planDigest &&
      JSON.stringify(reasonCodes) === JSON.stringify(r.reasonCodes)
    ) {
      continue;
    }
    acc = xorDigest(xorDigest(acc, r.planDigest), planDigest);
    touchedRowIds.add(r.id);
    await tx
      .update(rows)
      .set({ conflictIds, reviewBucket, reasonCodes, planDigest, updatedAt: at })
      .where(eq(rows.id, r.id));
  }
  return { messages, accumulator: acc, touchedRowIds };
}

/** A patch the engine applies to a row: the public fields plus what conflict resolutions need. */
export interface InternalPatch {
  target_path?: string | undefined;
  category?: Category | undefined;
  action?: RowAction | undefined;
  /** Accept this row's duplicate content (`keep_both` on `duplicate_content`). */
  duplicate_accepted?: boolean | undefined;
  /** Re-read the source (`keep_both` on `source_changed`): new size, mtime and hash. */
  refresh_source?:
    | { size: number; mtime: number; sha256: string; dev: number; ino: number; ctime: number }
    | undefined;
  /** A person approves (true) or withdraws approval (false); approval sends the row to `auto_safe`. */
  approved?: boolean | undefined;
}

/** One row changed by a patch batch, before and after, as published to `onRowsEdited` listeners. */
export interface RowEdit {
  before: ManifestRow;
  after: ManifestRow;
}

/** What `onRowsEdited` listeners are told after a patch batch committed. */
export interface RowsEdited {
  jobId: string;
  /** The audit action of the batch (`row.edited`, `conflict.resolved`, `review.triage`, …). */
  auditAction: string;
  outputDir: string;
  actor: string;
  edits: RowEdit[];
}

/** Options of `patchRows`. */
export interface PatchOptions extends Actor {
  /** When given, the manifest revision must equal it, else REVISION_MISMATCH. */
  expectedRevision?: number | undefined;
  /** Conflicts this batch resolves, and how (recorded on the conflict). */
  resolutions?: ReadonlyMap<string, ResolutionStrategy> | undefined;
  /** The audit action recorded per row (default `row.edited`). */
  auditAction?: string | undefined;
  /** Extra audit entries written in the same transaction. */
  extraAudit?: readonly AuditInput[] | undefined;
}

/** The apply or rollback of a manifest that is queued, running or cancelling, if any. */
export async function findActiveMoveJob(
  db: Queryable,
  manifestJobId: string,
): Promise<{ id: string; kind: string } | undefined> {
  const [busy] = await db
    .select({ id: jobs.id, kind: jobs.kind })
    .from(jobs)
    .where(
      and(
        eq(jobs.manifestJobId, manifestJobId),
        inArray(jobs.kind, ["apply", "rollback"]),
        inArray(jobs.status, ["queued", "running", "cancelling"]),
      ),
    )
    .limit(1);
  return busy;
}

/** Throws MANIFEST_LOCKED when an apply or rollback of the manifest is queued or running. */
export async function assertManifestUnlocked(db: Queryable, manifestJobId: string): Promise<void> {
  const busy = await findActiveMoveJob(db, manifestJobId);
  if (busy !== undefined) {
    throw new JobStateError(
      "MANIFEST_LOCKED",
      `The manifest of ${manifestJobId} cannot change while ${busy.kind} job ${busy.id} is active.`,
      { job_id: manifestJobId, active_job_id: busy.id },
    );
  }
}

async function isOccupied(target: string, source: string): Promise<boolean> {
  if (target === source) return false;
  try {
    const t = await lstat(target);
    try {
      const s = await stat(source);
      if (s.ino === t.ino && s.dev === t.dev) return false;
    } catch {
      // source gone: the target is someone else's
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Applies a batch of field patches to rows atomically: one transaction, one revision bump, conflicts and
 * buckets recomputed for every row concerned, an audit entry per changed row (actor and request id).
 * Throws ROW_NOT_FOUND, ROW_NOT_EDITABLE, INVALID_TARGET_PATH, PATH_OUTSIDE_ROOT, MANIFEST_LOCKED,
 * JOB_NOT_READY or REVISION_MISMATCH.
 */
export async function patchRows(
  ctx: EngineContext,
  jobId: string,
  operations: ReadonlyArray<{ row_id: string; patch: InternalPatch }>,
  options: PatchOptions,
): Promise<EditResult> {
  const job = await requireManifestJob(ctx.db, jobId);
  if (job.status !== "succeeded") {
    throw new JobStateError(
      "JOB_NOT_READY",
      `The manifest of ${jobId} is not ready (job is ${job.status}).`,
      {
        job_id: jobId,
        status: job.status,
      },
    );
  }
  const outputDir = String(job.params.output_dir ?? "");
  const template = parseTemplate(String(job.params.naming_template ?? ""));
  const ids = operations.map((o) => o.row_id);
  const before = new Map((await loadRows(ctx.db, jobId, ids)).map((r) => [r.id, r]));
  const missing = ids.filter((id) => !before.has(id));
  if (missing.length > 0) {
    throw new NotFoundError("ROW_NOT_FOUND", `No row ${missing[0]} in the manifest of ${jobId}.`, {
      row_ids: missing,
    });
  }
  // Merge the patches per row (later operations win per field), then compute the new values (I/O outside the tx).
  const merged = new Map<string, InternalPatch>();
  for (const op of operations) merged.set(op.row_id, { ...merged.get(op.row_id), ...op.patch });
  const updates = new Map<string, Partial<RowRecord>>();
  for (const [rowId, patch] of merged) {
    const r = before.get(rowId);
    if (r === undefined) continue;
    if (r.status === "applied") {
      throw new JobStateError(
        "ROW_NOT_EDITABLE",
        `Row ${rowId} is applied; roll it back before editing it.`,
        {
          row_id: rowId,
        },
      );
    }
    const next: Partial<RowRecord> = {};
    if (patch.category !== undefined && patch.category !== r.category) {
      next.category = patch.category;
      if (!r.targetEdited && template.ok && patch.target_path === undefined) {
        const rel = renderTemplate(template.template, {
          category: patch.category,
          mtime: r.mtime,
          fileName: posix.basename(r.sourcePath),
          sha256: r.sha256,
        });
        next.targetPath = posix.join(outputDir, rel);
      }
    }
    if (patch.target_path !== undefined) {
      const checked = resolveTargetPath(outputDir, patch.target_path);
      if (!checked.ok) {
        throw new FileorgError("INVALID_TARGET_PATH", checked.message, {
          row_id: rowId,
          target_path: patch.target_path,
        });
      }
      // Refuses a target outside the allowed roots, including through a symlinked parent.
      await ctx.guard.resolvePossiblyMissing(checked.path);
      next.targetPath = checked.path;
      next.targetEdited = true;
    }
    if (patch.action !== undefined && patch.action !== r.action) next.action = patch.action;
    if (patch.duplicate_accepted !== undefined) next.duplicateAccepted = patch.duplicate_accepted;
    if (patch.refresh_source !== undefined) {
      next.size = patch.refresh_source.size;
      next.mtime = patch.refresh_source.mtime;
      next.sha256 = patch.refresh_source.sha256;
      next.sourceDev = patch.refresh_source.dev;
      next.sourceIno = patch.refresh_source.ino;
      next.sourceCtime = patch.refresh_source.ctime;
      next.sourceChanged = false;
      if (r.status === "failed") {
        next.status = "pending";
        next.error = null;
      }
    }
    if (next.targetPath !== undefined && next.targetPath !== r.targetPath) {
      next.targetKey = pathKey(next.targetPath);
      next.targetOccupied = await isOccupied(next.targetPath, r.sourcePath);
    } else {
      delete next.targetPath;
    }
    const changed = Object.keys(next).filter((k) => k !== "targetEdited");
    const approved = r.reasonCodes.includes(REVIEW_MARKERS.approved);
    // Approval is a person's word on the row as it is: any other change withdraws it.
    const approve = patch.approved ?? (approved && changed.length > 0 ? false : undefined);
    if (approve !== undefined && approve !== approved) {
      next.reasonCodes = approve
        ? [...r.reasonCodes, REVIEW_MARKERS.approved]
        : r.reasonCodes.filter((c) => c !== REVIEW_MARKERS.approved);
    }
    if (changed.length > 0) next.edited = true;
    if (changed.length > 0 || next.reasonCodes !== undefined) updates.set(rowId, next);
  }

  if (updates.size === 0) {
    // Nothing changes: no revision bump, but a stale If-Match is still refused.
    const revision = job.revision ?? 0;
    if (options.expectedRevision !== undefined && options.expectedRevision !== revision) {
      throw new FileorgError(
        "REVISION_MISMATCH",
        `The manifest is at revision ${revision}, not ${options.expectedRevision}; reload and retry.`,
        { revision, expected: options.expectedRevision },
      );
    }
    const items = ids.flatMap((id) => {
      const r = before.get(id);
      return r === undefined ? [] : [toManifestRow(r)];
    });
    return { revision, plan_hash: planHashOfJob(job) ?? "", items };
  }
  const at = ctx.clock();
  const { result, messages } = await runTransaction(ctx.db, async (tx) => {
    const fresh = await findJob(tx, jobId);
    if (fresh === undefined) throw new NotFoundError("JOB_NOT_FOUND", `No job ${jobId}.`);
    const revision = fresh.revision ?? 0;
    if (options.expectedRevision !== undefined && options.expectedRevision !== revision) {
      throw new FileorgError(
        "REVISION_MISMATCH",
        `The manifest is at revision ${revision}, not ${options.expectedRevision}; reload and retry.`,
        { revision, expected: options.expectedRevision },
      );
    }
    await assertManifestUnlocked(tx, jobId);
    const current = new Map((await loadRows(tx, jobId, [...updates.keys()])).map((r) => [r.id, r]));
    let acc = fresh.planAccumulator ?? "0".repeat(64);
    const targetKeys = new Set<string>();
    const shas = new Set<string>();
    const auditEntries: AuditInput[] = [];
    for (const [rowId, next] of updates) {
      const r = current.get(rowId);
      if (r === undefined) continue;
      const merged = { ...r, ...next };
      const { reviewBucket, reasonCodes } = reviewOf(merged, thresholdOf(fresh));
      const planDigest = digestOf({ ...merged, reviewBucket });
      acc = xorDigest(xorDigest(acc, r.planDigest), planDigest);
      await tx
        .update(rows)
        .set({ ...next, reviewBucket, reasonCodes, planDigest, updatedAt: at })
        .where(eq(rows.id, rowId));
      targetKeys.add(r.targetKey);
      targetKeys.add(merged.targetKey);
      if (r.sha256 !== null) shas.add(r.sha256);
      if (merged.sha256 !== null) shas.add(merged.sha256);
      const fields = Object.keys(next).filter((k) => k !== "targetKey" && k !== "edited") as Array<
        keyof RowRecord
      >;
      auditEntries.push({
        jobId,
        actor: options.actor,
        requestId: options.requestId ?? null,
        action: options.auditAction ?? "row.edited",
        subject: rowId,
        before: Object.fromEntries(fields.map((f) => [f, r[f]])),
        after: Object.fromEntries(fields.map((f) => [f, merged[f]])),
      });
    }
    const outcome = await recomputeConflicts(
      tx,
      fresh,
      { targetKeys, shas, rowIds: new Set(updates.keys()) },
      acc,
      at,
      options.resolutions,
    );
    const nextRevision = revision + 1;
    await tx
      .update(jobs)
      .set({ revision: nextRevision, planAccumulator: outcome.accumulator, updatedAt: at })
      .where(eq(jobs.id, jobId));
    const edited = await appendEvent(
      tx,
      jobId,
      "manifest_edited",
      { revision: nextRevision, row_ids: [...updates.keys()].slice(0, 1000), rows: updates.size },
      at,
    );
    await appendAudit(tx, [...auditEntries, ...(options.extraAudit ?? [])], at);
    const items = await loadRows(tx, jobId, ids);
    const order = new Map(ids.map((id, i) => [id, i]));
    items.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    return {
      result: {
        revision: nextRevision,
        plan_hash: planHashOf(outcome.accumulator),
        items: items.map(toManifestRow),
      },
      messages: [...outcome.messages, edited],
    };
  });
  ctx.publish(messages);
  if (ctx.rowsEditedListeners.length > 0) {
    const edits: RowEdit[] = [];
    const afterById = new Map(result.items.map((row) => [row.row_id, row]));
    for (const rowId of updates.keys()) {
      const b = before.get(rowId);
      const a = afterById.get(rowId);
      if (b !== undefined && a !== undefined) edits.push({ before: toManifestRow(b), after: a });
    }
    const event: RowsEdited = {
      jobId,
      auditAction: options.auditAction ?? "row.edited",
      outputDir,
      actor: options.actor,
      edits,
    };
    for (const listener of ctx.rowsEditedListeners) await listener(event);
  }
  return result;
}

/** Maps a stored conflict to its public shape. */
export function toConflict(c: typeof conflicts.$inferSelect): Conflict {
  return {
    conflict_id: c.id,
    job_id: c.jobId,
    kind: c.kind,
    key: c.key,
    row_ids: c.rowIds,
    status: c.status,
    resolution: (c.resolution as Conflict["resolution"]) ?? null,
    opened_at: new Date(c.openedAt).toISOString(),
    resolved_at: c.resolvedAt === null ? null : new Date(c.resolvedAt).toISOString(),
  };
}

/** Lists the conflicts of a manifest (open first unless a status is given). */
export async function listConflicts(
  db: Queryable,
  jobId: string,
  options: {
    status?: "open" | "resolved" | undefined;
    cursor?: string | undefined;
    limit?: number | undefined;
  } = {},
): Promise<{ items: Conflict[]; next_cursor: string | null }> {
  await requireManifestJob(db, jobId);
  const limit = Math.min(Math.max(options.limit ?? 200, 1), 1000);
  const after = options.cursor === undefined ? "" : Buffer.from(options.cursor, "base64url").toString("utf8");
  const where: SQL[] = [eq(conflicts.jobId, jobId), gt(conflicts.id, after)];
  if (options.status !== undefined) where.push(eq(conflicts.status, options.status));
  const found = await db
    .select()
    .from(conflicts)
    .where(and(...where))
    .orderBy(asc(conflicts.id))
    .limit(limit + 1);
  return toKeysetPage(found, limit, toConflict, (last) => Buffer.from(last.id).toString("base64url"));
}

async function existsOnDisk(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Finds a free ` (n)` variant of `path`: used neither by another moving row nor on disk. */
async function freeVariant(db: Queryable, jobId: string, path: string, taken: Set<string>): Promise<string> {
  for (let n = 2; n < 100_000; n++) {
    const candidate = withSuffix(path, n);
    const key = pathKey(candidate);
    if (taken.has(key)) continue;
    const [used] = await db
      .select({ id: rows.id })
      .from(rows)
      .where(and(eq(rows.jobId, jobId), eq(rows.targetKey, key), eq(rows.action, "move")))
      .limit(1);
    if (used === undefined && !(await existsOnDisk(candidate))) {
      taken.add(key);
      return candidate;
    }
  }
  throw new FileorgError("STRATEGY_NOT_APPLICABLE", `No free name found for ${path}.`);
}

const TARGET_KINDS: readonly ConflictKind[] = ["duplicate_target", "case_collision", "target_exists"];

/**
 * Resolves conflicts: each resolution becomes row patches (rename with ` (n)`, skip, keep both, or a manual
 * target), applied in one atomic batch. Resolving an already resolved conflict changes nothing.
 */
export async function resolveConflicts(
  ctx: EngineContext,
  jobId: string,
  request: ResolveRequest,
  options: Actor & { expectedRevision?: number | undefined },
): Promise<{ revision: number; plan_hash: string; conflicts: Conflict[] }> {
  const manifestJob = await requireManifestJob(ctx.db, jobId);
  const sourceRoots = confineScope(ctx.guard.roots, String(manifestJob.params.source_dir ?? ""));
  const ops: Array<{ row_id: string; patch: InternalPatch }> = [];
  const strategies = new Map<string, ResolutionStrategy>();
  const taken = new Set<string>();
  const ids = request.resolutions.map((r) => r.conflict_id);
  for (const res of request.resolutions) {
    const [c] = await ctx.db
      .select()
      .from(conflicts)
      .where(and(eq(conflicts.id, res.conflict_id), eq(conflicts.jobId, jobId)))
      .limit(1);
    if (c === undefined) {
      throw new NotFoundError("CONFLICT_NOT_FOUND", `No conflict ${res.conflict_id} in ${jobId}.`, {
        conflict_id: res.conflict_id,
      });
    }
    if (c.status !== "open") continue;
    strategies.set(c.id, res.strategy);
    const members = (await loadRows(ctx.db, jobId, c.rowIds)).sort((a, b) => a.seq - b.seq);
    const [first, ...rest] = members;
    if (first === undefined) continue;
    const notApplicable = () =>
      new FileorgError("STRATEGY_NOT_APPLICABLE", `${res.strategy} does not resolve a ${c.kind} conflict.`, {
        conflict_id: c.id,
        kind: c.kind,
        strategy: res.strategy,
      });
    const isTargetKind = TARGET_KINDS.includes(c.kind);
    switch (res.strategy) {
      case "skip":
        for (const r of c.kind === "duplicate_target" ||
        c.kind === "case_collision" ||
        c.kind === "duplicate_content"
          ? rest
          : members) {
          ops.push({ row_id: r.id, patch: { action: "skip" } });
        }
        break;
      case "rename":
      case "keep_both":
        if (isTargetKind) {
          for (const r of c.kind === "target_exists" ? members : rest) {
            ops.push({
              row_id: r.id,
              patch: { target_path: await freeVariant(ctx.db, jobId, r.targetPath, taken) },
            });
          }
        } else if (res.strategy === "keep_both" && c.kind === "duplicate_content") {
          for (const r of members) ops.push({ row_id: r.id, patch: { duplicate_accepted: true } });
        } else if (res.strategy === "keep_both" && c.kind === "source_changed") {
          for (const r of members) {
            // Re-read through the confined layer: the very descriptor hashed gives the new identity.
            const read = await hashConfined(sourceRoots, r.sourcePath);
            if (!("sha256" in read)) throw notApplicable();
            const { facts } = read;
            const refresh = { size: facts.size, mtime: facts.mtime, sha256: read.sha256 };
            const identity = { dev: facts.dev, ino: facts.ino, ctime: facts.ctime };
            ops.push({ row_id: r.id, patch: { refresh_source: { ...refresh, ...identity } } });
          }
        } else {
          throw notApplicable();
        }
        break;
      case "manual": {
        if (res.target_path === undefined) {
          throw new FileorgError("INVALID_TARGET_PATH", "A manual resolution needs a target_path.", {
            conflict_id: c.id,
          });
        }
        const row =
          res.row_id === undefined ? members[members.length - 1] : members.find((m) => m.id === res.row_id);
        if (row === undefined) {
          throw new NotFoundError("ROW_NOT_FOUND", `Row ${res.row_id} is not part of conflict ${c.id}.`);
        }
        ops.push({ row_id: row.id, patch: { target_path: res.target_path } });
        break;
      }
    }
  }
  const job = await requireManifestJob(ctx.db, jobId);
  let revision = job.revision ?? 0;
  let planHash = planHashOfJob(job) ?? "";
  if (ops.length > 0) {
    const edited = await patchRows(ctx, jobId, ops, {
      ...options,
      resolutions: strategies,
      auditAction: "conflict.resolved",
      extraAudit: [...strategies].map(([id, strategy]) => ({
        jobId,
        actor: options.actor,
        requestId: options.requestId ?? null,
        action: "conflict.resolve",
        subject: id,
        before: { status: "open" },
        after: { strategy },
      })),
    });
    revision = edited.revision;
    planHash = edited.plan_hash;
  }
  const after: Conflict[] = [];
  for (const part of chunk(ids, 500)) {
    after.push(...(await ctx.db.select().from(conflicts).where(inArray(conflicts.id, part))).map(toConflict));
  }
  return { revision, plan_hash: planHash, conflicts: after };
}
