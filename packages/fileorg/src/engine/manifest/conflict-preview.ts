import type { ResolutionStrategy } from "../../domain/conflict.js";
import {
  type ConflictFile,
  type ConflictPreview,
  PREVIEWED_STRATEGIES,
  type ResolutionOutcome,
  type ResolutionPreview,
  relativeTo,
  summarizeOutcome,
} from "../../domain/conflict-preview.js";
import { FileorgError } from "../../errors.js";
import { confineScope } from "../confined-fs.js";
import type { EngineContext } from "../context.js";
import { previewKindOf } from "../previews.js";
import { findConflict, opsOf, type ResolveScope, type RowOp } from "./resolve.js";
import { loadRows, type RowRecord, requireManifestJob } from "./rows.js";
import { toConflict } from "./views.js";

function fileOf(
  r: RowRecord,
  sourceDir: string,
  outputDir: string,
  originalId: string | undefined,
): ConflictFile {
  return {
    row_id: r.id,
    name: r.sourcePath.slice(r.sourcePath.lastIndexOf("/") + 1),
    source: relativeTo(sourceDir, r.sourcePath),
    target: relativeTo(outputDir, r.targetPath),
    action: r.action,
    size: r.size,
    mtime: new Date(r.mtime).toISOString(),
    date: r.date === null ? null : new Date(r.date).toISOString(),
    mime: r.mime,
    previewable: previewKindOf(r.mime) !== undefined,
    original: originalId === r.id,
  };
}

/** Each member's plan after `ops` (the rows the resolution does not touch stay as they are). */
function outcomeOf(
  members: readonly RowRecord[],
  ops: readonly RowOp[],
  outputDir: string,
): ResolutionOutcome[] {
  return members.map((r) => {
    const patch = ops.find((o) => o.row_id === r.id)?.patch;
    const note =
      patch?.refresh_source !== undefined
        ? ("source_refreshed" as const)
        : patch?.duplicate_accepted === true
          ? ("duplicate_accepted" as const)
          : undefined;
    return {
      row_id: r.id,
      action: patch?.action ?? r.action,
      target: relativeTo(outputDir, patch?.target_path ?? r.targetPath),
      changed: patch !== undefined,
      ...(note === undefined ? {} : { note }),
    };
  });
}

/**
 * A conflict with its files (names relative to the job's folders, size, dates, whether a thumbnail can be
 * had) and a dry run of each resolution the engine offers: what every file's plan would be after it, in
 * words too (`keep both → a.jpg, a (2).jpg`). Nothing is written; a strategy that does not apply to the
 * conflict's kind says so (`applicable: false` with the refusal's code). Throws JOB_NOT_FOUND,
 * WRONG_JOB_KIND, CONFLICT_NOT_FOUND.
 */
export async function previewConflict(
  ctx: EngineContext,
  jobId: string,
  conflictId: string,
): Promise<ConflictPreview> {
  const job = await requireManifestJob(ctx.db, jobId);
  const sourceDir = String(job.params.source_dir ?? "");
  const outputDir = String(job.params.output_dir ?? "");
  const record = await findConflict(ctx.db, jobId, conflictId);
  const members = (await loadRows(ctx.db, jobId, record.rowIds)).sort((a, b) => a.seq - b.seq);
  const originalId = record.original?.row_id;
  const byName = new Map(members.map((m) => [m.id, fileOf(m, sourceDir, outputDir, originalId)]));
  const resolutions: ResolutionPreview[] = [];
  if (record.status === "open") {
    for (const strategy of PREVIEWED_STRATEGIES) {
      resolutions.push(await dryRun(ctx, { jobId, sourceDir, outputDir, record, members, strategy, byName }));
    }
  }
  return {
    conflict: toConflict(record),
    source_dir: sourceDir,
    output_dir: outputDir,
    files: [...byName.values()],
    resolutions,
  };
}

async function dryRun(
  ctx: EngineContext,
  input: {
    jobId: string;
    sourceDir: string;
    outputDir: string;
    record: Awaited<ReturnType<typeof findConflict>>;
    members: readonly RowRecord[];
    strategy: ResolutionStrategy;
    byName: ReadonlyMap<string, ConflictFile>;
  },
): Promise<ResolutionPreview> {
  const { strategy, members, outputDir } = input;
  const scope: ResolveScope = {
    ctx,
    jobId: input.jobId,
    sourceRoots: confineScope(ctx.guard.roots, input.sourceDir),
    taken: new Set(),
    outputDir,
  };
  try {
    const ops = await opsOf(scope, input.record, { conflict_id: input.record.id, strategy });
    const files = outcomeOf(members, ops, outputDir);
    const named = files.map((f) => ({ ...f, name: input.byName.get(f.row_id)?.name ?? f.target }));
    return { strategy, applicable: true, files, summary: summarizeOutcome(strategy, named) };
  } catch (err) {
    if (!(err instanceof FileorgError)) throw err;
    return {
      strategy,
      applicable: false,
      files: [],
      summary: `${strategy.replaceAll("_", " ")}: not offered for this conflict`,
      refused: { code: err.code, message: err.message },
    };
  }
}
