import { runTransaction, type Tx } from "@vetted/store";
import { and, eq, inArray } from "drizzle-orm";
import type { ResolutionStrategy } from "../../domain/conflict.js";
import type { Actor } from "../../domain/job.js";
import type { EditResult, ManifestRow } from "../../domain/manifest.js";
import { parseTemplate } from "../../domain/template.js";
import { FileorgError, JobStateError, NotFoundError } from "../../errors.js";
import { jobs, rows } from "../../store/schema.js";
import { assertKnownCategories, categoryTemplates } from "../categories.js";
import type { EngineContext } from "../context.js";
import type { Queryable } from "../db.js";
import { planHashOf, xorDigest } from "../plan-hash.js";
import {
  type AuditInput,
  appendAudit,
  appendEvent,
  findJob,
  type HubMessage,
  type JobRecord,
} from "../records.js";
import { recomputeConflicts } from "./conflicts.js";
import { type InternalPatch, planRowPatch } from "./patch-plan.js";
import { refreshedRowStatus } from "./row-moves.js";
import {
  assertManifestReady,
  digestOf,
  loadRows,
  planHashOfJob,
  type RowRecord,
  requireManifestJob,
  reviewOf,
  thresholdOf,
  toManifestRow,
} from "./rows.js";
import { spreadOverUnits } from "./unit-patches.js";

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
  /**
   * Whether this is a person's direct change of rows (default true): only that marks rows `EDITED` and
   * withdraws an approval. Rules, triage and conflict resolutions pass false.
   */
  personEdit?: boolean | undefined;
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

function assertRevision(revision: number, expected: number | undefined): void {
  if (expected !== undefined && expected !== revision) {
    throw new FileorgError(
      "REVISION_MISMATCH",
      `The manifest is at revision ${revision}, not ${expected}; reload and retry.`,
      { revision, expected },
    );
  }
}

interface PreparedPatch {
  job: JobRecord;
  outputDir: string;
  ids: string[];
  before: Map<string, RowRecord>;
  updates: Map<string, Partial<RowRecord>>;
}

/** Loads the rows, merges the patches per row (later operations win per field) and plans each change. */
async function preparePatch(
  ctx: EngineContext,
  jobId: string,
  operations: ReadonlyArray<{ row_id: string; patch: InternalPatch }>,
  personEdit: boolean,
): Promise<PreparedPatch> {
  const job = await requireManifestJob(ctx.db, jobId);
  assertManifestReady(job);
  const outputDir = String(job.params.output_dir ?? "");
  const parsed = parseTemplate(String(job.params.naming_template ?? ""));
  const ids = operations.map((o) => o.row_id);
  const before = new Map((await loadRows(ctx.db, jobId, ids)).map((r) => [r.id, r]));
  const missing = ids.filter((id) => !before.has(id));
  if (missing.length > 0) {
    throw new NotFoundError("ROW_NOT_FOUND", `No row ${missing[0]} in the manifest of ${jobId}.`, {
      row_ids: missing,
    });
  }
  const merged = new Map<string, InternalPatch>();
  for (const op of operations) merged.set(op.row_id, { ...merged.get(op.row_id), ...op.patch });
  // A unit is edited whole: a patch of one of its rows is its unit's (or UNIT_KEPT_WHOLE).
  await spreadOverUnits(ctx.db, jobId, outputDir, merged, before, personEdit);
  const named = new Set(ids);
  for (const id of merged.keys()) if (!named.has(id)) ids.push(id);
  const newCategories = [...merged.values()].flatMap((p) => (p.category === undefined ? [] : [p.category]));
  await assertKnownCategories(ctx.db, newCategories);
  const plan = {
    guard: ctx.guard,
    outputDir,
    sourceDir: typeof job.params.source_dir === "string" ? job.params.source_dir : undefined,
    template: parsed.ok ? parsed.template : undefined,
    refreshedStatus: refreshedRowStatus,
    personEdit,
    categoryTemplates: newCategories.length === 0 ? undefined : await categoryTemplates(ctx.db),
  };
  const updates = new Map<string, Partial<RowRecord>>();
  for (const [rowId, patch] of merged) {
    const r = before.get(rowId);
    if (r === undefined) continue;
    const next = await planRowPatch(plan, r, patch);
    if (next !== undefined) updates.set(rowId, next);
  }
  return { job, outputDir, ids, before, updates };
}

interface WrittenRows {
  accumulator: string;
  targetKeys: Set<string>;
  shas: Set<string>;
  audit: AuditInput[];
}

/** Writes each planned row change with its new bucket and digest; collects the conflict scope and audit. */
async function writeRowUpdates(
  tx: Tx,
  fresh: JobRecord,
  updates: ReadonlyMap<string, Partial<RowRecord>>,
  options: PatchOptions,
  at: number,
): Promise<WrittenRows> {
  const current = new Map((await loadRows(tx, fresh.id, [...updates.keys()])).map((r) => [r.id, r]));
  const out: WrittenRows = {
    accumulator: fresh.planAccumulator ?? "0".repeat(64),
    targetKeys: new Set(),
    shas: new Set(),
    audit: [],
  };
  for (const [rowId, next] of updates) {
    const r = current.get(rowId);
    if (r === undefined) continue;
    const merged = { ...r, ...next };
    const { reviewBucket, reasonCodes } = reviewOf(merged, thresholdOf(fresh));
    const planDigest = digestOf({ ...merged, reviewBucket });
    out.accumulator = xorDigest(xorDigest(out.accumulator, r.planDigest), planDigest);
    await tx
      .update(rows)
      .set({ ...next, reviewBucket, reasonCodes, planDigest, updatedAt: at })
      .where(eq(rows.id, rowId));
    out.targetKeys.add(r.targetKey);
    out.targetKeys.add(merged.targetKey);
    if (r.sha256 !== null) out.shas.add(r.sha256);
    if (merged.sha256 !== null) out.shas.add(merged.sha256);
    const fields = Object.keys(next).filter((k) => k !== "targetKey" && k !== "edited") as Array<
      keyof RowRecord
    >;
    out.audit.push({
      jobId: fresh.id,
      actor: options.actor,
      requestId: options.requestId ?? null,
      action: options.auditAction ?? "row.edited",
      subject: rowId,
      before: Object.fromEntries(fields.map((f) => [f, r[f]])),
      after: Object.fromEntries(fields.map((f) => [f, merged[f]])),
    });
  }
  return out;
}

/** The patch batch's transaction: revision check, lock check, row writes, conflicts, revision bump. */
async function commitPatch(
  ctx: EngineContext,
  prepared: PreparedPatch,
  options: PatchOptions,
): Promise<{ result: EditResult; messages: HubMessage[] }> {
  const { job, ids, updates } = prepared;
  const at = ctx.clock();
  return runTransaction(ctx.db, async (tx) => {
    const fresh = await findJob(tx, job.id);
    if (fresh === undefined) throw new NotFoundError("JOB_NOT_FOUND", `No job ${job.id}.`);
    const revision = fresh.revision ?? 0;
    assertRevision(revision, options.expectedRevision);
    await assertManifestUnlocked(tx, job.id);
    const written = await writeRowUpdates(tx, fresh, updates, options, at);
    const scope = { targetKeys: written.targetKeys, shas: written.shas, rowIds: new Set(updates.keys()) };
    const outcome = await recomputeConflicts(tx, fresh, scope, written.accumulator, at, options.resolutions);
    const nextRevision = revision + 1;
    await tx
      .update(jobs)
      .set({ revision: nextRevision, planAccumulator: outcome.accumulator, updatedAt: at })
      .where(eq(jobs.id, job.id));
    const edited = await appendEvent(
      tx,
      job.id,
      "manifest_edited",
      { revision: nextRevision, row_ids: [...updates.keys()].slice(0, 1000), rows: updates.size },
      at,
    );
    await appendAudit(tx, [...written.audit, ...(options.extraAudit ?? [])], at);
    const items = await loadRows(tx, job.id, ids);
    const order = new Map(ids.map((id, i) => [id, i]));
    items.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    const result = {
      revision: nextRevision,
      plan_hash: planHashOf(outcome.accumulator),
      items: items.map(toManifestRow),
    };
    return { result, messages: [...outcome.messages, edited] };
  });
}

async function notifyEdited(
  ctx: EngineContext,
  prepared: PreparedPatch,
  result: EditResult,
  options: PatchOptions,
): Promise<void> {
  if (ctx.rowsEditedListeners.length === 0) return;
  const edits: RowEdit[] = [];
  const afterById = new Map(result.items.map((row) => [row.row_id, row]));
  for (const rowId of prepared.updates.keys()) {
    const b = prepared.before.get(rowId);
    const a = afterById.get(rowId);
    if (b !== undefined && a !== undefined) edits.push({ before: toManifestRow(b), after: a });
  }
  const event: RowsEdited = {
    jobId: prepared.job.id,
    auditAction: options.auditAction ?? "row.edited",
    outputDir: prepared.outputDir,
    actor: options.actor,
    edits,
  };
  for (const listener of ctx.rowsEditedListeners) await listener(event);
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
  const prepared = await preparePatch(ctx, jobId, operations, options.personEdit !== false);
  if (prepared.updates.size === 0) {
    // Nothing changes: no revision bump, but a stale If-Match is still refused.
    const revision = prepared.job.revision ?? 0;
    assertRevision(revision, options.expectedRevision);
    const items = prepared.ids.flatMap((id) => {
      const r = prepared.before.get(id);
      return r === undefined ? [] : [toManifestRow(r)];
    });
    return { revision, plan_hash: planHashOfJob(prepared.job) ?? "", items };
  }
  const { result, messages } = await commitPatch(ctx, prepared, options);
  ctx.publish(messages);
  await notifyEdited(ctx, prepared, result, options);
  return result;
}
