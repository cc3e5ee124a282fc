import { close, read } from "node:fs";
import { promisify } from "node:util";
import { and, eq, type SQL, sql } from "drizzle-orm";
import { imageSize } from "image-size";
import { z } from "zod";
import { buildFolderTree, type PlaceGroup, placeDirOf } from "../domain/folder-view.js";
import type { JobReport } from "../domain/job.js";
import { ManifestRow, RowError } from "../domain/manifest.js";
import { NotFoundError } from "../errors.js";
import { conflicts, jobs, journal, rows } from "../store/schema.js";
import { confinedFs } from "./confined-fs.js";
import type { EngineContext } from "./context.js";
import {
  loadRows,
  planHashOfJob,
  type RowRecord,
  requireManifestJob,
  toManifestRow,
} from "./manifest/index.js";
import { findJob } from "./records.js";

/** One folder of the target tree: files directly in it and in it with every subfolder. */
export const ManifestFolder = z.object({
  path: z
    .string()
    .meta({ description: "Relative to the output directory; `` is the output directory itself" }),
  depth: z.number().int(),
  files: z.number().int(),
  total_files: z.number().int(),
  total_bytes: z.number().int(),
});

/** The grouped view of a manifest: the target folder tree with counts, and summaries. */
export const ManifestView = z
  .object({
    job_id: z.string(),
    revision: z.number().int(),
    plan_hash: z.string(),
    output_dir: z.string(),
    folders: z.array(ManifestFolder),
    outside: z.number().int().meta({ description: "Rows whose target is outside the output directory" }),
    by_bucket: z.record(z.string(), z.number().int()),
    by_category: z.record(z.string(), z.number().int()),
    by_status: z.record(z.string(), z.number().int()),
    by_action: z.record(z.string(), z.number().int()),
  })
  .meta({ id: "FileorgManifestView" });
/** The grouped view of a manifest. */
export type ManifestView = z.infer<typeof ManifestView>;

async function countBy(
  ctx: EngineContext,
  jobId: string,
  column: typeof rows.reviewBucket | typeof rows.category | typeof rows.status | typeof rows.action,
): Promise<Record<string, number>> {
  const found = await ctx.db
    .select({ key: column, n: sql<number>`count(*)` })
    .from(rows)
    .where(eq(rows.jobId, jobId))
    .groupBy(column);
  return Object.fromEntries(found.map((r) => [String(r.key), Number(r.n)]));
}

/** Where a row's file will be (the path the schema's `place_dir` is the folder of). */
const placeOf = sql`(CASE WHEN ${rows.action} = 'move' THEN ${rows.targetPath} ELSE ${rows.sourcePath} END)`;

/** Rows of one action counted by the folder their files will be directly in. */
type ActionGroup = PlaceGroup & { action: string };

/**
 * Builds the grouped view of a manifest (rows that will not move are counted where they are). The rows
 * are counted by (action, folder) in SQLite over the covering `fileorg_rows_place_idx` (no row is read),
 * so the view is computed afresh on every call — never stale — in one ordered pass over the index.
 */
export async function viewManifest(ctx: EngineContext, jobId: string): Promise<ManifestView> {
  const job = await requireManifestJob(ctx.db, jobId);
  const outputDir = String(job.params.output_dir ?? "");
  const groups = await countByPlace(ctx, jobId);
  const byAction: Record<string, number> = {};
  for (const g of groups) byAction[g.action] = (byAction[g.action] ?? 0) + g.files;
  groups.push(...(await rowsAtOutputDir(ctx, jobId, outputDir, groups)));
  return {
    job_id: jobId,
    revision: job.revision ?? 0,
    plan_hash: planHashOfJob(job) ?? "",
    output_dir: outputDir,
    ...buildFolderTree(outputDir, groups),
    by_bucket: await countBy(ctx, jobId, rows.reviewBucket),
    by_category: await countBy(ctx, jobId, rows.category),
    by_status: await countBy(ctx, jobId, rows.status),
    by_action: byAction,
  };
}

async function countByPlace(ctx: EngineContext, jobId: string, where: SQL[] = []): Promise<ActionGroup[]> {
  const found = await ctx.db
    .select({
      action: rows.action,
      dir: rows.placeDir,
      files: sql<number>`count(*)`,
      bytes: sql<number>`coalesce(sum(${rows.size}), 0)`,
    })
    .from(rows)
    .where(and(eq(rows.jobId, jobId), ...where))
    .groupBy(rows.jobId, rows.action, rows.placeDir);
  return found.map((g) => ({
    action: g.action,
    dir: g.dir ?? "",
    files: Number(g.files),
    bytes: Number(g.bytes),
  }));
}

/**
 * Rows whose file will be at the output directory's own path count directly in it, not in its parent
 * folder where `place_dir` groups them: takes them out of those groups (changed in place) and answers
 * them as groups of the output directory. An index lookup, only when that parent folder has rows.
 */
async function rowsAtOutputDir(
  ctx: EngineContext,
  jobId: string,
  outputDir: string,
  groups: ActionGroup[],
): Promise<ActionGroup[]> {
  const parent = placeDirOf(outputDir);
  if (!groups.some((g) => g.dir === parent)) return [];
  const exact = await countByPlace(ctx, jobId, [eq(rows.placeDir, parent), sql`${placeOf} = ${outputDir}`]);
  for (const e of exact) {
    const holder = groups.find((g) => g.action === e.action && g.dir === parent);
    if (holder === undefined) continue;
    holder.files -= e.files;
    holder.bytes -= e.bytes;
  }
  const root = outputDir.endsWith("/") ? outputDir : `${outputDir}/`;
  return exact.map((e) => ({ ...e, dir: root }));
}

/** A row's metadata and a safe, cheap preview of its file. */
export const RowPreview = z
  .object({
    row: ManifestRow,
    path: z.string().meta({ description: "Where the file is now" }),
    exists: z.boolean(),
    kind: z.enum(["text", "image", "pdf", "none"]),
    text: z.string().optional().meta({ description: "The first lines of a text file (at most 4 KiB)" }),
    truncated: z.boolean().optional(),
    image: z.object({ width: z.number(), height: z.number(), type: z.string().optional() }).optional(),
    pdf: z.object({ pages: z.number().int() }).optional(),
    error: RowError.optional().meta({
      description:
        "Why there is no preview: UNREADABLE (no permission, an I/O error), FILE_MISSING, NOT_A_FILE or OUTSIDE_ROOT",
    }),
  })
  .meta({ id: "FileorgRowPreview" });
/** A row's metadata and a safe preview. */
export type RowPreview = z.infer<typeof RowPreview>;

const readAsync = promisify(read);
const closeAsync = promisify(close);

const TEXT_BYTES = 4096;
const TEXT_LINES = 40;
const PDF_SCAN_BYTES = 4 << 20;

/**
 * Previews a row's file where it is now (target once applied, else source): never through a symlink and
 * never outside the allowed roots. Text: the first lines; images: dimensions; PDFs: a page count when small.
 */
export async function previewRow(ctx: EngineContext, jobId: string, rowId: string): Promise<RowPreview> {
  await requireManifestJob(ctx.db, jobId);
  const [row] = await loadRows(ctx.db, jobId, [rowId]);
  if (row === undefined)
    throw new NotFoundError("ROW_NOT_FOUND", `No row ${rowId} in ${jobId}.`, { row_id: rowId });
  const path = row.status === "applied" ? row.targetPath : row.sourcePath;
  const base = { row: toManifestRow(row), path };
  // Through the confined layer: real parent inside the allowed roots, opened with O_NOFOLLOW.
  const opened = confinedFs.openReadIn(ctx.guard.roots, path);
  if (opened.code !== undefined) {
    return { ...base, exists: opened.code !== "ENOENT", kind: "none", error: previewError(opened.code) };
  }
  const handle = {
    read: (buffer: Buffer, offset: number, length: number, position: number) =>
      readAsync(opened.fd, buffer, offset, length, position),
    close: () => closeAsync(opened.fd),
  };
  try {
    return await previewContent(base, row, opened.facts.size, handle);
  } catch (err) {
    // A read that fails (an I/O error, a file turned unreadable meanwhile) is the row's, not the server's.
    const code = (err as NodeJS.ErrnoException).code ?? "EIO";
    return { ...base, exists: true, kind: "none", error: previewError(code) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The row-level error of a preview that could not read its file. */
function previewError(code: string): RowError {
  switch (code) {
    case "ENOENT":
      return { code: "FILE_MISSING", message: "The file is no longer where the manifest says it is." };
    case "NOT_A_FILE":
      return { code: "NOT_A_FILE", message: "The path is no longer a regular file (a folder or a symlink)." };
    case "OUTSIDE_ROOT":
      return { code: "OUTSIDE_ROOT", message: "The file's folder now resolves outside the allowed roots." };
    default:
      return { code: "UNREADABLE", message: `The file cannot be read (${code}).` };
  }
}

interface PreviewHandle {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<unknown>;
}

/** The preview of an opened file by its type: image size, PDF page count, or the first lines of text. */
async function previewContent(
  base: Pick<RowPreview, "row" | "path">,
  row: Pick<RowRecord, "mime">,
  size: number,
  handle: PreviewHandle,
): Promise<RowPreview> {
  const headSize = Math.min(size, Math.max(TEXT_BYTES, 64 * 1024));
  const head = Buffer.alloc(headSize);
  await handle.read(head, 0, headSize, 0);
  const mime = row.mime ?? "";
  if (mime.startsWith("image/") && mime !== "image/svg+xml") {
    try {
      const dim = imageSize(head);
      return {
        ...base,
        exists: true,
        kind: "image",
        image: {
          width: dim.width,
          height: dim.height,
          ...(dim.type === undefined ? {} : { type: dim.type }),
        },
      };
    } catch {
      return { ...base, exists: true, kind: "none" };
    }
  }
  if (mime === "application/pdf") {
    if (size > PDF_SCAN_BYTES) return { ...base, exists: true, kind: "pdf" };
    const all = Buffer.alloc(size);
    await handle.read(all, 0, size, 0);
    const pages = (all.toString("latin1").match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
    return { ...base, exists: true, kind: "pdf", pdf: { pages } };
  }
  const sample = head.subarray(0, TEXT_BYTES);
  if (sample.includes(0)) return { ...base, exists: true, kind: "none" };
  const text = sample.toString("utf8").replace(/\uFFFD+$/, "");
  const lines = text.split(/\r?\n/);
  const truncated = lines.length > TEXT_LINES || size > TEXT_BYTES;
  return { ...base, exists: true, kind: "text", text: lines.slice(0, TEXT_LINES).join("\n"), truncated };
}

/** Builds the report of any job: totals and counts over its manifest, its bytes moved and phase durations. */
export async function reportJob(ctx: EngineContext, jobId: string): Promise<JobReport> {
  const job = await findJob(ctx.db, jobId);
  if (job === undefined) throw new NotFoundError("JOB_NOT_FOUND", `No job ${jobId}.`, { job_id: jobId });
  const manifestId = job.manifestJobId;
  const [totals] = await ctx.db
    .select({ n: sql<number>`count(*)`, bytes: sql<number>`coalesce(sum(${rows.size}), 0)` })
    .from(rows)
    .where(eq(rows.jobId, manifestId));
  const errors = await ctx.db
    .select({ code: sql<string>`json_extract(${rows.error}, '$.code')`, n: sql<number>`count(*)` })
    .from(rows)
    .where(and(eq(rows.jobId, manifestId), sql`${rows.error} is not null`))
    .groupBy(sql`json_extract(${rows.error}, '$.code')`);
  const [dups] = await ctx.db
    .select({
      groups: sql<number>`count(*)`,
      rows: sql<number>`coalesce(sum(n), 0)`,
      bytes: sql<number>`coalesce(sum(size * (n - 1)), 0)`,
    })
    .from(
      sql`(select count(*) as n, max(${rows.size}) as size from ${rows} where ${rows.jobId} = ${manifestId} and ${rows.sha256} is not null and ${rows.size} > 0 group by ${rows.sha256} having count(*) > 1)`,
    );
  const conflictCounts = await ctx.db
    .select({ status: conflicts.status, n: sql<number>`count(*)` })
    .from(conflicts)
    .where(eq(conflicts.jobId, manifestId))
    .groupBy(conflicts.status);
  const moveJobs =
    job.kind === "analyze"
      ? sql`(select ${jobs.id} from ${jobs} where ${jobs.manifestJobId} = ${manifestId} and ${jobs.kind} = 'apply')`
      : sql`(${jobId})`;
  const [moved] = await ctx.db
    .select({ bytes: sql<number>`coalesce(sum(${journal.size}), 0)` })
    .from(journal)
    .where(and(sql`${journal.jobId} in ${moveJobs}`, eq(journal.op, "move"), eq(journal.state, "done")));
  return {
    job_id: job.id,
    kind: job.kind,
    status: job.status,
    totals: { rows: Number(totals?.n ?? 0), bytes: Number(totals?.bytes ?? 0) },
    by_bucket: await countBy(ctx, manifestId, rows.reviewBucket),
    by_category: await countBy(ctx, manifestId, rows.category),
    by_status: await countBy(ctx, manifestId, rows.status),
    by_error_code: Object.fromEntries(errors.map((e) => [String(e.code), Number(e.n)])),
    duplicates: {
      groups: Number(dups?.groups ?? 0),
      rows: Number(dups?.rows ?? 0),
      bytes: Number(dups?.bytes ?? 0),
    },
    conflicts: {
      open: Number(conflictCounts.find((c) => c.status === "open")?.n ?? 0),
      resolved: Number(conflictCounts.find((c) => c.status === "resolved")?.n ?? 0),
    },
    bytes_moved: Number(moved?.bytes ?? 0),
    durations_ms: job.phaseDurations ?? {},
  };
}
