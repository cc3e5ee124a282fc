import type { ResolveRequest } from "../domain/conflict.js";
import type { Actor, JobReport } from "../domain/job.js";
import type { EditResult, ManifestPage, ManifestRow, RowPatch } from "../domain/manifest.js";
import { NotFoundError } from "../errors.js";
import { type ManifestView, previewRow, type RowPreview, reportJob, viewManifest } from "./insights.js";
import { previewConflict } from "./manifest/conflict-preview.js";
import {
  chooseOriginal,
  type InternalPatch,
  type ListRowsOptions,
  listConflicts,
  listRows,
  loadRows,
  type PatchOptions,
  patchRows,
  requireManifestJob,
  resolveConflicts,
  splitUnit,
  toManifestRow,
} from "./manifest/index.js";
import { createTextSearch } from "./manifest/text-search.js";
import { makeThumbnail, type Thumbnail, type ThumbnailSize } from "./previews.js";
import type { FileorgResources } from "./resources.js";

/** The engine's manifest verbs (rows, patches, conflicts, views), over the shared resources. */
export function manifestVerbs(res: FileorgResources) {
  const { ctx } = res;
  const { db } = ctx;
  // The text filter's search copies of recently listed manifests (built in the background).
  const search = createTextSearch();
  return {
    /** Reads manifest rows by filter and cursor. */
    listRows: (jobId: string, query: ListRowsOptions = {}): Promise<ManifestPage> =>
      listRows(db, jobId, query, search),
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
    applyPatches: (
      jobId: string,
      operations: ReadonlyArray<{ row_id: string; patch: RowPatch | InternalPatch }>,
      opts: PatchOptions,
    ): Promise<EditResult> => patchRows(ctx, jobId, operations, opts),
    /** Edits one row (field-level); `expectedRevision` comes from `If-Match`. */
    async editRow(jobId: string, rowId: string, patch: RowPatch, opts: PatchOptions): Promise<ManifestRow> {
      const result = await patchRows(ctx, jobId, [{ row_id: rowId, patch }], opts);
      const [row] = result.items;
      if (row === undefined) throw new NotFoundError("ROW_NOT_FOUND", `No row ${rowId} in ${jobId}.`);
      return row;
    },
    /** Lists a manifest's conflicts. */
    listConflicts: (
      jobId: string,
      query: {
        status?: "open" | "resolved" | undefined;
        cursor?: string | undefined;
        limit?: number | undefined;
      } = {},
    ) => listConflicts(db, jobId, query),
    /** Resolves conflicts atomically. */
    resolveConflicts: (
      jobId: string,
      request: ResolveRequest,
      opts: Actor & { expectedRevision?: number | undefined },
    ) => resolveConflicts(ctx, jobId, request, opts),
    /**
     * Splits a unit (a folder kept whole): its rows are planned one by one again. Throws UNIT_NOT_FOUND,
     * MANIFEST_LOCKED, REVISION_MISMATCH.
     */
    splitUnit: (jobId: string, unitId: string, opts: Actor & { expectedRevision?: number | undefined }) =>
      splitUnit(ctx, jobId, unitId, opts),
    /**
     * Names another copy of a duplicate group (a `duplicate_content` conflict) its original. Throws
     * CONFLICT_NOT_FOUND, STRATEGY_NOT_APPLICABLE, CONFLICT_NOT_OPEN, NOT_IN_DUPLICATE_GROUP.
     */
    chooseOriginal: (jobId: string, conflictId: string, rowId: string, opts: Actor) =>
      chooseOriginal(ctx, jobId, conflictId, rowId, opts),
    /** The grouped view of a manifest: target folder tree with counts, and summaries. */
    viewManifest: (jobId: string): Promise<ManifestView> => viewManifest(ctx, jobId),
    /** A row's metadata and a safe preview of its file. */
    previewRow: (jobId: string, rowId: string): Promise<RowPreview> => previewRow(ctx, jobId, rowId),
    /**
     * A WebP thumbnail of a row's file where it is now (target once applied, else source): an image, or a
     * PDF's first page; cached in `cacheDir` (the caller's folder, e.g. under its data dir), kept to
     * `cacheMaxBytes` (default 256 MiB) by evicting the least recently used thumbnails. Read through
     * the confined layer only. Throws JOB_NOT_FOUND, ROW_NOT_FOUND, NOT_PREVIEWABLE, FILE_MISSING,
     * PATH_OUTSIDE_ROOT, FILE_UNREADABLE, PREVIEW_FAILED, PREVIEW_UNAVAILABLE.
     */
    async thumbnailRow(
      jobId: string,
      rowId: string,
      options: { size: ThumbnailSize; cacheDir: string; cacheMaxBytes?: number | undefined },
    ): Promise<Thumbnail> {
      await requireManifestJob(db, jobId);
      const [row] = await loadRows(db, jobId, [rowId]);
      if (row === undefined)
        throw new NotFoundError("ROW_NOT_FOUND", `No row ${rowId} in ${jobId}.`, { row_id: rowId });
      const path = row.status === "applied" ? row.targetPath : row.sourcePath;
      return makeThumbnail({ roots: ctx.guard.roots, path, mime: row.mime, ...options });
    },
    /**
     * A conflict with its files and a dry run of each resolution (the plan after it; nothing changes).
     * Throws JOB_NOT_FOUND, CONFLICT_NOT_FOUND.
     */
    previewConflict: (jobId: string, conflictId: string) => previewConflict(ctx, jobId, conflictId),
    /** A job's report: totals, counts by bucket/category/status/error, duplicates, conflicts, bytes moved, durations. */
    report: (jobId: string): Promise<JobReport> => reportJob(ctx, jobId),
  };
}
