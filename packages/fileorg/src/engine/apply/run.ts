import { dirname } from "node:path";
import { runTransaction } from "@vetted/store";
import { and, asc, eq, gt, inArray, type SQL, sql } from "drizzle-orm";
import { APPLY_BUCKETS } from "../../domain/job.js";
import type { RowError } from "../../domain/manifest.js";
import { isInside } from "../../domain/template.js";
import { moveRow, ROW_TRANSITIONS, sourcesOf } from "../../domain/transitions.js";
import { jobs, rows } from "../../store/schema.js";
import { confineScope } from "../confined-fs.js";
import { identityOfRow, sourceProblem } from "../confined-moves.js";
import { createInspectPool, type InspectPool, readerThreadsFor } from "../inspect-pool.js";
import { recomputeConflicts } from "../manifest/index.js";
import { MOVE_CONCURRENCY, type MoveScope } from "../move-steps.js";
import { mapLimit } from "../pool.js";
import { protectedRowProblem } from "../protected-paths.js";
import { findJob, type JobRecord } from "../records.js";
import type { JobRun } from "../run.js";
import { createConfinement, missingDirectories } from "./confinement.js";
import { executeGroup } from "./execute.js";
import {
  type Failure,
  lstatOrUndefined,
  MOVE_COLUMNS,
  type MoveOptions,
  type MoveRow,
  type PlannedMove,
} from "./group.js";
import { movedLinkTargets } from "./links.js";
import { removeEmptiedFolders } from "./tidy.js";

/** Statuses of rows that apply (re)attempts: every status the row table lets move to `applied`. */
const APPLICABLE_STATUSES = sourcesOf(ROW_TRANSITIONS, "applied");

/** What an apply has done so far. */
interface ApplyTotals {
  moved: number;
  bytes: number;
  failed: number;
  would_move: number;
  would_fail: number;
  byError: Record<string, number>;
  changedRowIds: string[];
}

/** What planning one group needs. */
interface ApplyPlanning {
  outputDir: string;
  dryRun: boolean;
  scope: MoveScope;
  files: InspectPool;
  known: Set<string>;
  confined: (dir: string) => Promise<boolean>;
  /** The never-touch set, checked again per row: a plan may predate it. */
  isProtected: (path: string) => boolean;
}

async function targetProblem(
  p: ApplyPlanning,
  row: MoveRow,
  plannedTargets: Set<string>,
  occupiedNow: boolean,
): Promise<RowError | undefined> {
  if (!isInside(p.outputDir, row.targetPath) || !(await p.confined(dirname(row.targetPath)))) {
    return {
      code: "OUTSIDE_ROOT",
      message: `${row.targetPath} is outside the output directory (symlinks resolved).`,
    };
  }
  if (plannedTargets.has(row.targetPath) || occupiedNow) {
    return {
      code: "TARGET_EXISTS",
      message: `Something already exists at ${row.targetPath}; nothing was overwritten.`,
    };
  }
  return undefined;
}

/** Checks each row of a group (source identity, target confinement and occupancy) and plans its move. */
async function planGroup(p: ApplyPlanning, group: readonly MoveRow[], totals: ApplyTotals) {
  const moves: PlannedMove[] = [];
  const failures: Failure[] = [];
  const mkdirs: string[] = [];
  const plannedTargets = new Set<string>();
  const sources = await p.files.stat(
    group.map((row) => row.sourcePath),
    p.scope.source,
  );
  const occupiedNow = p.dryRun
    ? await mapLimit(
        group,
        MOVE_CONCURRENCY,
        async (row) => (await lstatOrUndefined(row.targetPath)) !== undefined,
      )
    : [];
  for (const [i, row] of group.entries()) {
    const error =
      protectedRowProblem(p.isProtected, row) ??
      sourceProblem(sources[i], row) ??
      (await targetProblem(p, row, plannedTargets, occupiedNow[i] === true));
    if (error !== undefined) {
      failures.push({ row, error });
      totals.byError[error.code] = (totals.byError[error.code] ?? 0) + 1;
      if (error.code === "SOURCE_CHANGED" || error.code === "TARGET_EXISTS")
        totals.changedRowIds.push(row.id);
      continue;
    }
    plannedTargets.add(row.targetPath);
    if (!p.dryRun) {
      for (const dir of await missingDirectories(dirname(row.targetPath), p.known)) {
        p.known.add(dir);
        mkdirs.push(dir);
      }
    }
    moves.push({ row, from: row.sourcePath, to: row.targetPath, identity: identityOfRow(row) });
  }
  return { moves, failures, mkdirs };
}

/**
 * After the moves: rows apply is told to skip are marked so, and rows that failed on drift or an occupied
 * target become conflicts (the manifest's revision moves on).
 */
async function settleManifest(run: JobRun, manifest: JobRecord, changedRowIds: readonly string[]) {
  const { ctx } = run;
  const at = ctx.clock();
  const messages = await runTransaction(ctx.db, async (tx) => {
    await tx
      .update(rows)
      .set({ status: moveRow("pending", "skipped"), updatedAt: at })
      .where(and(eq(rows.jobId, manifest.id), eq(rows.action, "skip"), eq(rows.status, "pending")));
    if (changedRowIds.length === 0) return [];
    const fresh = await findJob(tx, manifest.id);
    if (fresh === undefined) return [];
    const changed = await tx
      .select()
      .from(rows)
      .where(inArray(rows.id, changedRowIds.slice(0, 5000)));
    const scope = {
      targetKeys: new Set(changed.map((r) => r.targetKey)),
      shas: new Set<string>(),
      rowIds: new Set(changed.map((r) => r.id)),
    };
    const outcome = await recomputeConflicts(tx, fresh, scope, fresh.planAccumulator ?? "0".repeat(64), at);
    await tx
      .update(jobs)
      .set({ revision: (fresh.revision ?? 0) + 1, planAccumulator: outcome.accumulator, updatedAt: at })
      .where(eq(jobs.id, manifest.id));
    return outcome.messages;
  });
  ctx.publish(messages);
}

function summaryOf(dryRun: boolean, total: number, t: ApplyTotals): Record<string, unknown> {
  return dryRun
    ? { dry_run: true, rows: total, would_move: t.would_move, would_fail: t.would_fail, by_error: t.byError }
    : {
        rows: total,
        moved: t.moved,
        failed: t.failed,
        failed_rows: t.failed,
        completed_with_errors: t.failed > 0,
        bytes_moved: t.bytes,
        by_error: t.byError,
      };
}

/** The buckets an apply job moves rows of (its `buckets` parameter, else every bucket that may move). */
function bucketsOf(params: Record<string, unknown>): Array<(typeof APPLY_BUCKETS)[number]> {
  const asked = Array.isArray(params.buckets) ? params.buckets : [];
  const known = APPLY_BUCKETS.filter((b) => asked.includes(b));
  return known.length > 0 ? known : [...APPLY_BUCKETS];
}

/** The rows of the manifest that an apply moves. */
function eligibleRows(manifestId: string, buckets: ReturnType<typeof bucketsOf>): SQL | undefined {
  return and(
    eq(rows.jobId, manifestId),
    eq(rows.action, "move"),
    inArray(rows.reviewBucket, buckets),
    inArray(rows.status, APPLICABLE_STATUSES),
  );
}

/** After the moves: emptied source folders are removed (journaled) and moved symlink targets reported. */
async function tidyUp(run: JobRun, options: MoveOptions, manifest: JobRecord, outputDir: string) {
  await run.phase("tidying");
  const sourceDir = String(manifest.params.source_dir ?? "");
  const scope = { sourceDir, outputDir, allowed: run.ctx.guard.roots };
  const tidy = await removeEmptiedFolders(run, options, manifest.id, scope);
  const links = await movedLinkTargets(run, manifest.id, sourceDir);
  return {
    folders_removed: tidy.removed,
    ...(tidy.kept > 0 ? { folders_kept: tidy.kept } : {}),
    ...(links.count > 0 ? { warnings: links.items, moved_link_targets: links.count } : {}),
  };
}

/** Runs an apply job: journaled group commits over the eligible rows of the manifest. */
export async function runApply(run: JobRun, options: MoveOptions): Promise<Record<string, unknown>> {
  const { ctx, job } = run;
  const manifest = await findJob(ctx.db, job.manifestJobId);
  if (manifest === undefined) throw new Error(`manifest job ${job.manifestJobId} is gone`);
  const outputDir = String(manifest.params.output_dir ?? "");
  const allowed = ctx.guard.roots;
  const dryRun = job.params.dry_run === true;
  const eligible = eligibleRows(manifest.id, bucketsOf(job.params));
  await run.phase("planning");
  const [counted] = await ctx.db.select({ n: sql<number>`count(*)` }).from(rows).where(eligible);
  const total = Number(counted?.n ?? 0);
  await run.phase(dryRun ? "simulating" : "moving");
  const p: ApplyPlanning = {
    outputDir,
    dryRun,
    scope: {
      source: confineScope(allowed, String(manifest.params.source_dir ?? "")),
      target: confineScope(allowed, outputDir),
      allowed,
      folders: outputDir,
    },
    files: createInspectPool(readerThreadsFor(MOVE_CONCURRENCY)),
    known: new Set(),
    confined: createConfinement(outputDir),
    isProtected: (path) => ctx.guard.isProtected(path),
  };
  const t: ApplyTotals = {
    ...{ moved: 0, bytes: 0, failed: 0, would_move: 0, would_fail: 0 },
    byError: {},
    changedRowIds: [],
  };
  let after = 0;
  let done = 0;
  try {
    for (;;) {
      const group = await ctx.db
        .select(MOVE_COLUMNS)
        .from(rows)
        .where(and(eligible, gt(rows.seq, after)))
        .orderBy(asc(rows.seq))
        .limit(options.groupSize);
      if (group.length === 0) break;
      after = group[group.length - 1]?.seq ?? after;
      const planned = await planGroup(p, group, t);
      done += group.length;
      const progress = total === 0 ? 1 : done / total;
      if (dryRun) {
        t.would_move += planned.moves.length;
        t.would_fail += planned.failures.length;
        await run.progress(progress, { rows: done });
      } else {
        const outcome = await executeGroup(run, options, "apply", planned, progress, p.scope, p.files);
        t.moved += outcome.moved;
        t.bytes += outcome.bytes;
        t.failed += outcome.failed;
        t.changedRowIds.push(...outcome.occupied);
        for (const [code, n] of Object.entries(outcome.byCode)) t.byError[code] = (t.byError[code] ?? 0) + n;
      }
      if (await run.isCancelled()) return { ...summaryOf(dryRun, total, t), cancelled: true };
    }
  } finally {
    await p.files.close();
  }
  if (dryRun) return summaryOf(dryRun, total, t);
  await settleManifest(run, manifest, t.changedRowIds);
  return { ...summaryOf(dryRun, total, t), ...(await tidyUp(run, options, manifest, outputDir)) };
}
