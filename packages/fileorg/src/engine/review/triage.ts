import { join, posix } from "node:path";
import { and, asc, eq, type SQL } from "drizzle-orm";
import { renderedFileName } from "../../domain/content-check.js";
import type { Actor } from "../../domain/job.js";
import type { BatchTriageRequest, BatchTriageResult } from "../../domain/review-api.js";
import { parseTemplate, renderTemplate } from "../../domain/template.js";
import { FileorgError, NotFoundError } from "../../errors.js";
import { rows } from "../../store/schema.js";
import { assertKnownCategories } from "../categories.js";
import { type InternalPatch, loadRows, pathTextFilter, requireManifestJob } from "../manifest/index.js";
import type { JobRecord } from "../records.js";
import { summaryOf } from "./queue.js";
import { type ReviewResources, reasonFilter } from "./resources.js";
import { assertExpectedRevision, countChangedRows, type RevisionOptions } from "./revision-guard.js";

type RowOp = { row_id: string; patch: InternalPatch };

/** The rows a triage acts on: the given ids, or every row of the job matching the filter. */
async function triageRowIds(
  res: ReviewResources,
  jobId: string,
  request: BatchTriageRequest,
): Promise<string[]> {
  if (request.row_ids !== undefined) return [...new Set(request.row_ids)];
  const f = request.filter ?? {};
  const where: SQL[] = [eq(rows.jobId, jobId)];
  if (f.bucket !== undefined) where.push(eq(rows.reviewBucket, f.bucket));
  if (f.category !== undefined) where.push(eq(rows.category, f.category));
  if (f.reason !== undefined) where.push(reasonFilter(f.reason));
  if (f.q !== undefined) {
    const cond = pathTextFilter(f.q);
    if (cond !== undefined) where.push(cond);
  }
  const found = await res.db
    .select({ id: rows.id })
    .from(rows)
    .where(and(...where))
    .orderBy(asc(rows.seq));
  return found.map((r) => r.id);
}

/** `set_target`: a naming template rendered per row, or a folder keeping each file's name. */
async function targetOps(
  res: ReviewResources,
  job: JobRecord,
  rowIds: readonly string[],
  value: string,
): Promise<RowOp[]> {
  const current = await loadRows(res.db, job.id, rowIds);
  if (current.length !== rowIds.length) {
    const known = new Set(current.map((r) => r.id));
    const missing = rowIds.filter((id) => !known.has(id));
    throw new NotFoundError("ROW_NOT_FOUND", `No row ${missing[0]} in the manifest of ${job.id}.`, {
      row_ids: missing,
    });
  }
  const outputDir = String(job.params.output_dir ?? "");
  if (value.includes("{")) {
    const parsed = parseTemplate(value);
    if (!parsed.ok) throw new FileorgError("INVALID_TEMPLATE", parsed.message, { value });
    return current.map((r) => {
      const rel = renderTemplate(parsed.template, {
        category: r.category,
        mtime: r.mtime,
        date: r.date,
        fileName: renderedFileName(r.sourcePath, r.targetPath, r.reasonCodes),
        sha256: r.sha256,
        sourcePath: r.sourcePath,
        sourceRoot: String(job.params.source_dir ?? ""),
        meta: r.meta,
        unitRoot: r.unit?.root,
      });
      return { row_id: r.id, patch: { target_path: join(outputDir, rel) } };
    });
  }
  const folder = value.replace(/\/+$/, "");
  return current.map((r) => ({
    row_id: r.id,
    patch: { target_path: posix.join(folder || "/", posix.basename(r.targetPath)) },
  }));
}

async function triageOps(
  res: ReviewResources,
  job: JobRecord,
  rowIds: readonly string[],
  request: BatchTriageRequest,
): Promise<RowOp[]> {
  const value = request.value ?? "";
  switch (request.action) {
    case "approve":
      return rowIds.map((id) => ({ row_id: id, patch: { approved: true } }));
    case "skip":
      return rowIds.map((id) => ({ row_id: id, patch: { action: "skip" } }));
    case "set_category":
      return rowIds.map((id) => ({ row_id: id, patch: { category: value } }));
    case "set_target":
      return targetOps(res, job, rowIds, value);
  }
}

/**
 * One action over many rows (`row_ids`, or every row matching `filter`), in one atomic, audited patch
 * batch: approve (→ `auto_safe` unless blocked or conflicting), skip, set the category, or set the target
 * (a folder — relative to the output directory or absolute — keeping each file name, or a naming template).
 * `options.expectedRevision` (HTTP `If-Match`) refuses a stale manifest with REVISION_MISMATCH.
 */
export async function batchTriage(
  res: ReviewResources,
  jobId: string,
  request: BatchTriageRequest,
  actor: Actor,
  options: RevisionOptions = {},
): Promise<BatchTriageResult> {
  const job = await requireManifestJob(res.db, jobId);
  if (request.action === "set_category") await assertKnownCategories(res.db, [request.value ?? ""], "/value");
  const rowIds = await triageRowIds(res, jobId, request);
  if (rowIds.length === 0) {
    assertExpectedRevision(job, options.expectedRevision);
    const none = { matched_count: 0, changed_count: 0, applied_count: 0 };
    return { ...none, revision: job.revision ?? 0, summary: await summaryOf(res, jobId) };
  }
  const ops = await triageOps(res, job, rowIds, request);
  const before = await loadRows(res.db, jobId, rowIds);
  const result = await res.fileorg.applyPatches(jobId, ops, {
    expectedRevision: options.expectedRevision,
    actor: actor.actor,
    requestId: actor.requestId,
    auditAction: "review.triage",
    personEdit: false,
    extraAudit: [
      {
        jobId,
        actor: actor.actor,
        requestId: actor.requestId ?? null,
        action: "review.batch_triage",
        subject: jobId,
        before: null,
        after: { action: request.action, value: request.value ?? null, rows: rowIds.length },
      },
    ],
  });
  // matched: what the ids or the filter selected; changed: what the action really changed (applied_count).
  const changed = countChangedRows(before, result.items);
  return {
    matched_count: rowIds.length,
    changed_count: changed,
    applied_count: changed,
    revision: result.revision,
    summary: await summaryOf(res, jobId),
  };
}
