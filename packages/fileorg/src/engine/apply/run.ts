import { dirname } from "node:path";
import { runTransaction } from "@vetted/store";
import { and, eq, inArray, type SQL } from "drizzle-orm";
import type { ApplyResult } from "../../domain/apply-plan.js";
import type { RowError } from "../../domain/manifest.js";
import { isInside } from "../../domain/posix-path.js";
import { moveRow } from "../../domain/transitions.js";
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
import { chooseTrashSlot, TrashError, type TrashOptions, type TrashSlot, trashDirFor } from "../trash.js";
import { createConfinement, missingDirectories } from "./confinement.js";
import {
  type GroupOutcome,
  type JournaledGroup,
  journalGroup,
  type PlannedGroup,
  runJournaledGroup,
} from "./execute.js";
import {
  type Failure,
  lstatOrUndefined,
  type MoveOptions,
  type MoveRow,
  type PlannedMove,
  readMoveGroup,
} from "./group.js";
import { type LinkWatch, watchLinks } from "./links.js";
import { eligibleRows, namesOf, tallyManifest } from "./selection.js";
import { removeEmptiedFolders } from "./tidy.js";

/** What an apply has done so far. */
interface ApplyTotals {
  moved: number;
  copied: number;
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
  /** Where `trash` rows go, and the trash names handed out so far. */
  trash: TrashOptions;
  trashNames: Set<string>;
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

/** Why a `copy` row cannot be copied: a copy is verified and undone by its SHA-256, so it needs one. */
function copyProblem(row: MoveRow): RowError | undefined {
  if (row.action !== "copy" || row.sha256 !== null) return undefined;
  return {
    code: "HASH_UNKNOWN",
    message: `${row.sourcePath} has no recorded SHA-256: a copy could not be verified nor undone.`,
  };
}

/** A free slot in the trash of the row's device, or why there is none (nothing is written yet). */
function slotFor(p: ApplyPlanning, row: MoveRow, dev: number | undefined): TrashSlot | RowError {
  if (dev === undefined)
    return { code: "SOURCE_MISSING", message: `${row.sourcePath} is gone since analyze.` };
  try {
    return chooseTrashSlot(trashDirFor(row.sourcePath, dev, p.trash), row.sourcePath, p.trashNames);
  } catch (err) {
    if (err instanceof TrashError) return { code: err.code, message: err.message };
    return { code: "TRASH_UNAVAILABLE", message: err instanceof Error ? err.message : String(err) };
  }
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
    const seen = sources[i];
    const trashing = row.action === "trash";
    const problem =
      protectedRowProblem(p.isProtected, row) ??
      sourceProblem(seen, row) ??
      copyProblem(row) ??
      (trashing ? undefined : await targetProblem(p, row, plannedTargets, occupiedNow[i] === true));
    const slot =
      problem === undefined && trashing && !p.dryRun
        ? slotFor(p, row, seen !== undefined && seen !== null && "dev" in seen ? seen.dev : undefined)
        : undefined;
    const error = problem ?? (slot !== undefined && "code" in slot ? slot : undefined);
    if (error !== undefined) {
      failures.push({ row, error });
      totals.byError[error.code] = (totals.byError[error.code] ?? 0) + 1;
      if (error.code === "SOURCE_CHANGED" || error.code === "TARGET_EXISTS")
        totals.changedRowIds.push(row.id);
      continue;
    }
    if (slot !== undefined && "file" in slot) {
      const trash = { op: "trash" as const, slot, original: row.sourcePath };
      moves.push({ row, from: row.sourcePath, to: slot.file, identity: identityOfRow(row), trash });
      continue;
    }
    if (trashing) {
      // a dry run: the trash is neither made nor looked into
      moves.push({ row, from: row.sourcePath, to: row.sourcePath, identity: identityOfRow(row) });
      continue;
    }
    plannedTargets.add(row.targetPath);
    if (!p.dryRun) {
      for (const dir of await missingDirectories(dirname(row.targetPath), p.known)) {
        p.known.add(dir);
        mkdirs.push(dir);
      }
    }
    const copy = row.action === "copy" ? ("copy" as const) : undefined;
    moves.push({ row, from: row.sourcePath, to: row.targetPath, identity: identityOfRow(row), copy });
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

/** The counts of what the apply does (or, in a dry run, would do). */
function outcomeOf(dryRun: boolean, t: ApplyTotals) {
  return dryRun
    ? { dry_run: true, would_move: t.would_move, would_fail: t.would_fail, by_error: t.byError }
    : {
        moved: t.moved,
        ...(t.copied > 0 ? { copied: t.copied } : {}),
        failed: t.failed,
        failed_rows: t.failed,
        completed_with_errors: t.failed > 0,
        bytes_moved: t.bytes,
        by_error: t.byError,
      };
}

/** The warnings of the watched links, as the result's fields. */
async function warningsOf(links: LinkWatch, checkDangling: boolean) {
  const found = await links.warnings(checkDangling);
  return { warnings: found.items, ...(found.count > 0 ? { moved_link_targets: found.count } : {}) };
}

/** After the moves: emptied source folders are removed (journaled). */
async function tidyUp(run: JobRun, options: MoveOptions, manifest: JobRecord, outputDir: string) {
  await run.phase("tidying");
  const sourceDir = String(manifest.params.source_dir ?? "");
  const scope = { sourceDir, outputDir, allowed: run.ctx.guard.roots };
  const tidy = await removeEmptiedFolders(run, options, manifest.id, scope);
  return { folders_removed: tidy.removed, ...(tidy.kept > 0 ? { folders_kept: tidy.kept } : {}) };
}

/** The planning state of an apply: where files go, the file threads, the folders known to exist. */
function planningOf(run: JobRun, manifest: JobRecord, dryRun: boolean, trash: TrashOptions): ApplyPlanning {
  const allowed = run.ctx.guard.roots;
  const outputDir = String(manifest.params.output_dir ?? "");
  return {
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
    isProtected: (path) => run.ctx.guard.isProtected(path),
    trash,
    trashNames: new Set(),
  };
}

/** Reads the eligible rows group by group, in `seq` order, with the progress each group reaches. */
function groupReader(run: JobRun, eligible: SQL | undefined, groupSize: number, total: number) {
  let after = 0;
  let done = 0;
  return async (): Promise<{ group: MoveRow[]; progress: number; done: number }> => {
    const group = await readMoveGroup(run.ctx.db, eligible, after, groupSize);
    after = group[group.length - 1]?.seq ?? after;
    done += group.length;
    return { group, progress: total === 0 ? 1 : Math.min(1, done / total), done };
  };
}

type NextGroup = ReturnType<typeof groupReader>;

/** A dry run: every group planned, nothing written. Answers whether it was cancelled. */
async function simulateGroups(
  run: JobRun,
  p: ApplyPlanning,
  next: NextGroup,
  t: ApplyTotals,
  links: LinkWatch,
): Promise<boolean> {
  for (;;) {
    const { group, progress, done } = await next();
    if (group.length === 0) return false;
    const planned = await planGroup(p, group, t);
    t.would_move += planned.moves.length;
    t.would_fail += planned.failures.length;
    for (const m of planned.moves) links.note(m.from, m.to);
    await run.progress(progress, { rows: done });
    if (await run.isCancelled()) return true;
  }
}

/** Adds what a group did to the totals. */
function tally(t: ApplyTotals, links: LinkWatch, outcome: GroupOutcome): void {
  t.moved += outcome.moved;
  t.copied += outcome.copied;
  t.bytes += outcome.bytes;
  t.failed += outcome.failed;
  t.changedRowIds.push(...outcome.occupied);
  for (const m of outcome.done) links.note(m.from, m.to);
  for (const [code, n] of Object.entries(outcome.byCode)) t.byError[code] = (t.byError[code] ?? 0) + n;
}

/**
 * The moves, group by group, pipelined: while one group's files move on the file thread, the main thread
 * reads, plans and journals the next one. A group's intents are still committed (and its folders made)
 * before any of its moves starts — {@link journalGroup} resolves before {@link runJournaledGroup} is
 * called for it — and every journaled group is moved, so a cancel never leaves an intent open: a cancel
 * seen before the next group is journaled stops after the group moving (at most one more group than
 * before). The next group's sources are stat'ed before the current group's moves are handed to the file
 * thread, so that the planning does not wait behind them. Answers whether it was cancelled.
 */
async function moveGroups(
  run: JobRun,
  options: MoveOptions,
  p: ApplyPlanning,
  next: NextGroup,
  t: ApplyTotals,
  links: LinkWatch,
): Promise<boolean> {
  const first = await next();
  if (first.group.length === 0) return false;
  const journal = (planned: PlannedGroup) => journalGroup(run, options, planned, p.scope);
  let current: { journaled: JournaledGroup; progress: number } | undefined = {
    journaled: await journal(await planGroup(p, first.group, t)),
    progress: first.progress,
  };
  while (current !== undefined) {
    const cancelled = await run.isCancelled();
    const { group, progress } = cancelled ? { group: [], progress: 0 } : await next();
    // The next group's stat is posted first (one file thread runs its messages in order).
    const planning = group.length === 0 ? undefined : planGroup(p, group, t);
    planning?.catch(() => undefined); // awaited below
    const moving = runJournaledGroup(
      run,
      options,
      "apply",
      current.journaled,
      current.progress,
      p.scope,
      p.files,
    );
    moving.catch(() => undefined); // awaited below, whatever the next group's planning does
    let following: typeof current | undefined;
    try {
      if (planning !== undefined) following = { journaled: await journal(await planning), progress };
    } finally {
      tally(t, links, await moving);
    }
    if (cancelled) return true;
    current = following;
  }
  return false;
}

/**
 * Runs an apply job: journaled group commits over the eligible rows of the manifest. Its result reports,
 * by bucket, what moves and what stays and why, every warning raised, and what moved (or would) and failed.
 */
export async function runApply(run: JobRun, options: MoveOptions): Promise<ApplyResult> {
  const { ctx, job } = run;
  const manifest = await findJob(ctx.db, job.manifestJobId);
  if (manifest === undefined) throw new Error(`manifest job ${job.manifestJobId} is gone`);
  const dryRun = job.params.dry_run === true;
  const names = namesOf(job.params);
  const eligible = eligibleRows(manifest.id, names);
  await run.phase("planning");
  const plan = await tallyManifest(ctx.db, manifest.id, names);
  const links = await watchLinks(ctx.db, manifest.id, String(manifest.params.source_dir ?? ""));
  await run.phase(dryRun ? "simulating" : "moving");
  const p = planningOf(run, manifest, dryRun, options.trash);
  const t: ApplyTotals = {
    ...{ moved: 0, copied: 0, bytes: 0, failed: 0, would_move: 0, would_fail: 0 },
    byError: {},
    changedRowIds: [],
  };
  const groups = groupReader(run, eligible, options.groupSize, plan.rows);
  let cancelled = false;
  try {
    cancelled = dryRun
      ? await simulateGroups(run, p, groups, t, links)
      : await moveGroups(run, options, p, groups, t, links);
  } finally {
    await p.files.close();
  }
  if (cancelled)
    return { ...plan, ...outcomeOf(dryRun, t), ...(await warningsOf(links, false)), cancelled: true };
  if (dryRun) return { ...plan, ...outcomeOf(dryRun, t), ...(await warningsOf(links, false)) };
  await settleManifest(run, manifest, t.changedRowIds);
  const tidy = await tidyUp(run, options, manifest, p.outputDir);
  return { ...plan, ...outcomeOf(dryRun, t), ...tidy, ...(await warningsOf(links, true)) };
}
