import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { and, asc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { JobEventType } from "../domain/job.js";
import type { RowError } from "../domain/manifest.js";
import { isInside } from "../domain/template.js";
import { jobs, journal, rows } from "../store/schema.js";
import { confinedFs, confineScope, type SourceIdentity } from "./confined-fs.js";
import { folderScope, identityOfRow, sourceProblem } from "./confined-moves.js";
import type { EngineContext } from "./context.js";
import { chunk, runTransaction } from "./db.js";
import { createInspectPool, type InspectPool, readerThreadsFor } from "./inspect-pool.js";
import {
  completeRecords,
  type JournalDraft,
  type JournalRecord,
  type JournalSigner,
  resolveMoveFromDisk,
  writeIntents,
} from "./journal.js";
import { isLeaseTakeable } from "./lease.js";
import { type RowRecord, recomputeConflicts } from "./manifest.js";
import {
  checkRollback,
  linkMovesOnThreads,
  MOVE_CONCURRENCY,
  type MoveScope,
  moveOne,
} from "./move-steps.js";
import { mapLimit } from "./pool.js";
import { appendEvent, findJob, type HubMessage, type JobRecord } from "./records.js";
import type { JobRun } from "./run.js";

/** Rows per group commit. */
export const GROUP_SIZE = 500;

/** Statuses of rows that apply (re)attempts. */
const APPLICABLE_STATUSES = ["pending", "failed", "skipped", "rolled_back"] as const;

/** Options shared by apply and rollback. */
export interface MoveOptions {
  signer: JournalSigner;
  /** Always copy+verify instead of linking (exercises the cross-device path). */
  forceCopy: boolean;
  /** Rows per group commit. */
  groupSize: number;
}

/** The columns apply and rollback read of a row. */
type MoveRow = Pick<
  RowRecord,
  | "id"
  | "seq"
  | "sourcePath"
  | "targetPath"
  | "size"
  | "mtime"
  | "sourceDev"
  | "sourceIno"
  | "sourceCtime"
  | "sha256"
  | "status"
>;

const MOVE_COLUMNS = {
  id: rows.id,
  seq: rows.seq,
  sourcePath: rows.sourcePath,
  targetPath: rows.targetPath,
  size: rows.size,
  mtime: rows.mtime,
  sourceDev: rows.sourceDev,
  sourceIno: rows.sourceIno,
  sourceCtime: rows.sourceCtime,
  sha256: rows.sha256,
  status: rows.status,
};

interface PlannedMove {
  row: MoveRow;
  from: string;
  to: string;
  /** What must still be at `from` right before it moves (checked on the thread that moves it). */
  identity: SourceIdentity | null;
}

interface Failure {
  row: MoveRow;
  error: RowError;
}

async function lstatOrUndefined(path: string) {
  return lstat(path).catch(() => undefined);
}

/** Directories to create (shallowest first) so that `dir` exists; `known` caches directories seen. */
async function missingDirectories(dir: string, known: Set<string>): Promise<string[]> {
  const missing: string[] = [];
  let current = dir;
  while (!known.has(current)) {
    const info = await lstatOrUndefined(current);
    if (info?.isDirectory()) {
      known.add(current);
      break;
    }
    if (info !== undefined) break; // a file where a folder should be: the move will fail, nothing to create
    missing.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return missing.reverse();
}

/**
 * A check that a folder really lies inside `root` once symlinks are resolved (its nearest existing ancestor
 * is resolved; the rest is appended), cached per folder: a symlinked folder placed inside the output after
 * analyze must not carry a move outside it.
 */
function createConfinement(root: string): (dir: string) => Promise<boolean> {
  const cache = new Map<string, Promise<boolean>>();
  const resolveInside = async (dir: string): Promise<boolean> => {
    const rest: string[] = [];
    let current = dir;
    for (;;) {
      const real = await realpath(current).catch(() => undefined);
      if (real !== undefined) return isInside(root, join(real, ...rest.reverse()));
      const parent = dirname(current);
      if (parent === current) return false;
      rest.push(basename(current));
      current = parent;
    }
  };
  return (dir) => {
    let found = cache.get(dir);
    if (found === undefined) {
      found = resolveInside(dir);
      cache.set(dir, found);
    }
    return found;
  };
}

/** Row updates and events for completed moves of an apply (or rollback) job. */
async function completeGroup(
  ctx: EngineContext,
  job: JobRecord,
  kind: "apply" | "rollback",
  records: ReadonlyArray<{ record: JournalRecord; state: JournalRecord["state"]; error: RowError | null }>,
  failures: readonly Failure[],
  progress: number | undefined,
): Promise<void> {
  const at = ctx.clock();
  const messages = await runTransaction(ctx.db, async (tx) => {
    const out: HubMessage[] = [];
    const doneRows: string[] = [];
    await completeRecords(
      tx,
      records.map(({ record, state, error }) => ({ id: record.id, state, errorCode: error?.code ?? null })),
      at,
    );
    for (const { record, state, error } of records) {
      if (record.op !== "move" || record.rowId === null) continue;
      if (state === "done") {
        doneRows.push(record.rowId);
      } else if (error !== null) {
        await tx
          .update(rows)
          .set(
            kind === "apply"
              ? {
                  status: "failed",
                  error,
                  updatedAt: at,
                  ...(error.code === "TARGET_EXISTS" ? { targetOccupied: true } : {}),
                  ...(error.code === "SOURCE_CHANGED" ? { sourceChanged: true } : {}),
                }
              : { error, updatedAt: at },
          )
          .where(eq(rows.id, record.rowId));
        out.push(await appendEvent(tx, job.id, "row_failed", { row_id: record.rowId, error }, at));
      }
    }
    for (let i = 0; i < doneRows.length; i += 500) {
      await tx
        .update(rows)
        .set(
          kind === "apply"
            ? { status: "applied", error: null, updatedAt: at }
            : // Moved back (its ctime, and across devices its inode, changed): a re-apply checks size and mtime.
              {
                status: "rolled_back",
                error: null,
                sourceDev: null,
                sourceIno: null,
                sourceCtime: null,
                updatedAt: at,
              },
        )
        .where(inArray(rows.id, doneRows.slice(i, i + 500)));
    }
    for (const f of failures) {
      await tx
        .update(rows)
        .set({
          ...(kind === "apply" ? { status: "failed" as const } : {}),
          error: f.error,
          ...(f.error.code === "SOURCE_CHANGED" ? { sourceChanged: true } : {}),
          ...(f.error.code === "TARGET_EXISTS" && kind === "apply" ? { targetOccupied: true } : {}),
          updatedAt: at,
        })
        .where(eq(rows.id, f.row.id));
      out.push(await appendEvent(tx, job.id, "row_failed", { row_id: f.row.id, error: f.error }, at));
    }
    if (doneRows.length > 0) {
      const type: JobEventType = kind === "apply" ? "row_applied" : "row_rolled_back";
      out.push(await appendEvent(tx, job.id, type, { row_ids: doneRows, count: doneRows.length }, at));
    }
    if (progress !== undefined) {
      await tx.update(jobs).set({ progress, updatedAt: at }).where(eq(jobs.id, job.id));
      out.push(await appendEvent(tx, job.id, "progress", { progress }, at));
    }
    return out;
  });
  ctx.publish(messages);
}

/** Executes planned moves as one journaled group: intents committed first, then the moves, then completions. */
async function executeGroup(
  run: JobRun,
  options: MoveOptions,
  kind: "apply" | "rollback",
  moves: readonly PlannedMove[],
  mkdirs: readonly string[],
  failures: readonly Failure[],
  progress: number,
  scope: MoveScope,
  files?: InspectPool,
): Promise<{
  moved: number;
  bytes: number;
  failed: number;
  occupied: string[];
  byCode: Record<string, number>;
}> {
  const { ctx, job } = run;
  const at = ctx.clock();
  const drafts: JournalDraft[] = [
    ...mkdirs.map((dir) => ({
      jobId: job.id,
      rowId: null,
      op: "mkdir" as const,
      fromPath: null,
      toPath: dir,
      sha256: null,
      size: null,
      state: "intent" as const,
      errorCode: null,
      createdAt: at,
      completedAt: null,
    })),
    ...moves.map((m) => ({
      jobId: job.id,
      rowId: m.row.id,
      op: "move" as const,
      fromPath: m.from,
      toPath: m.to,
      sha256: m.row.sha256,
      size: m.row.size,
      state: "intent" as const,
      errorCode: null,
      createdAt: at,
      completedAt: null,
    })),
  ];
  const records =
    drafts.length === 0 ? [] : await runTransaction(ctx.db, (tx) => writeIntents(tx, options.signer, drafts));
  const outcomes: Array<{ record: JournalRecord; state: JournalRecord["state"]; error: RowError | null }> =
    [];
  let moved = 0;
  let bytes = 0;
  let failed = failures.length;
  const occupied: string[] = [];
  const byCode: Record<string, number> = {};
  for (const record of records) {
    if (record.op !== "mkdir") continue;
    const made = confinedFs.mkdirIn(folderScope(scope.allowed, scope.folders, record.toPath), record.toPath);
    // EEXIST: someone else made it; it is not ours to remove later
    outcomes.push(
      made.code === undefined
        ? { record, state: "done", error: null }
        : {
            record,
            state: made.code === "EEXIST" ? "not_done" : "failed",
            error: { code: made.code, message: made.code },
          },
    );
  }
  const moveRecords = records.filter((r) => r.op === "move");
  const identities = new Map(moves.map((m) => [m.row.id, m.identity]));
  // Moves of one group touch distinct paths, so they run a few at a time.
  const moveOutcomes =
    files === undefined || options.forceCopy
      ? await mapLimit(moveRecords, MOVE_CONCURRENCY, (record) =>
          moveOne(record, identities.get(record.rowId ?? "") ?? null, scope, options.forceCopy),
        )
      : await linkMovesOnThreads(files, moveRecords, identities, scope);
  for (const o of moveOutcomes) {
    outcomes.push(o);
    if (o.state === "done") {
      moved++;
      bytes += o.record.size ?? 0;
    } else {
      failed++;
      byCode[o.error.code] = (byCode[o.error.code] ?? 0) + 1;
      const reopens = o.error.code === "TARGET_EXISTS" || o.error.code === "SOURCE_CHANGED";
      if (reopens && o.record.rowId !== null) occupied.push(o.record.rowId);
    }
  }
  await completeGroup(ctx, job, kind, outcomes, failures, progress);
  return { moved, bytes, failed, occupied, byCode };
}

/** Runs an apply job: journaled group commits over the eligible rows of the manifest. */
export async function runApply(run: JobRun, options: MoveOptions): Promise<Record<string, unknown>> {
  const { ctx, job } = run;
  const manifest = await findJob(ctx.db, job.manifestJobId);
  if (manifest === undefined) throw new Error(`manifest job ${job.manifestJobId} is gone`);
  const outputDir = String(manifest.params.output_dir ?? "");
  const allowed = ctx.guard.roots;
  const scope: MoveScope = {
    source: confineScope(allowed, String(manifest.params.source_dir ?? "")),
    target: confineScope(allowed, outputDir),
    allowed,
    folders: outputDir,
  };
  const dryRun = job.params.dry_run === true;
  const eligible = and(
    eq(rows.jobId, manifest.id),
    eq(rows.action, "move"),
    inArray(rows.reviewBucket, ["auto_safe", "needs_review"]),
    inArray(rows.status, [...APPLICABLE_STATUSES]),
  );
  await run.phase("planning");
  const [counted] = await ctx.db.select({ n: sql<number>`count(*)` }).from(rows).where(eligible);
  const total = Number(counted?.n ?? 0);
  await run.phase(dryRun ? "simulating" : "moving");
  const known = new Set<string>();
  const confined = createConfinement(outputDir);
  let after = 0;
  let done = 0;
  const totals = { moved: 0, bytes: 0, failed: 0, would_move: 0, would_fail: 0 };
  const byError: Record<string, number> = {};
  const changedRowIds: string[] = [];
  const files = createInspectPool(readerThreadsFor(MOVE_CONCURRENCY));
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
      const moves: PlannedMove[] = [];
      const failures: Failure[] = [];
      const mkdirs: string[] = [];
      const plannedTargets = new Set<string>();
      const sources = await files.stat(
        group.map((row) => row.sourcePath),
        scope.source,
      );
      const occupiedNow = dryRun
        ? await mapLimit(
            group,
            MOVE_CONCURRENCY,
            async (row) => (await lstatOrUndefined(row.targetPath)) !== undefined,
          )
        : [];
      for (const [i, row] of group.entries()) {
        let error: RowError | undefined = sourceProblem(sources[i], row);
        if (
          error === undefined &&
          (!isInside(outputDir, row.targetPath) || !(await confined(dirname(row.targetPath))))
        ) {
          error = {
            code: "OUTSIDE_ROOT",
            message: `${row.targetPath} is outside the output directory (symlinks resolved).`,
          };
        }
        if (error === undefined && (plannedTargets.has(row.targetPath) || occupiedNow[i] === true)) {
          error = {
            code: "TARGET_EXISTS",
            message: `Something already exists at ${row.targetPath}; nothing was overwritten.`,
          };
        }
        if (error !== undefined) {
          failures.push({ row, error });
          byError[error.code] = (byError[error.code] ?? 0) + 1;
          if (error.code === "SOURCE_CHANGED" || error.code === "TARGET_EXISTS") changedRowIds.push(row.id);
          continue;
        }
        plannedTargets.add(row.targetPath);
        if (!dryRun) {
          for (const dir of await missingDirectories(dirname(row.targetPath), known)) {
            known.add(dir);
            mkdirs.push(dir);
          }
        }
        moves.push({ row, from: row.sourcePath, to: row.targetPath, identity: identityOfRow(row) });
      }
      done += group.length;
      if (dryRun) {
        totals.would_move += moves.length;
        totals.would_fail += failures.length;
        await run.progress(total === 0 ? 1 : done / total, { rows: done });
      } else {
        const outcome = await executeGroup(
          run,
          options,
          "apply",
          moves,
          mkdirs,
          failures,
          total === 0 ? 1 : done / total,
          scope,
          files,
        );
        totals.moved += outcome.moved;
        totals.bytes += outcome.bytes;
        totals.failed += outcome.failed;
        changedRowIds.push(...outcome.occupied);
        for (const [code, n] of Object.entries(outcome.byCode)) byError[code] = (byError[code] ?? 0) + n;
      }
      if (await run.isCancelled()) return { ...summary(), cancelled: true };
    }
  } finally {
    await files.close();
  }
  if (!dryRun) {
    const at = ctx.clock();
    // Rows apply is told to skip are marked so; rows that failed on drift or an occupied target become conflicts.
    const messages = await runTransaction(ctx.db, async (tx) => {
      await tx
        .update(rows)
        .set({ status: "skipped", updatedAt: at })
        .where(and(eq(rows.jobId, manifest.id), eq(rows.action, "skip"), eq(rows.status, "pending")));
      if (changedRowIds.length === 0) return [];
      const fresh = await findJob(tx, manifest.id);
      if (fresh === undefined) return [];
      const changed = await tx
        .select()
        .from(rows)
        .where(inArray(rows.id, changedRowIds.slice(0, 5000)));
      const outcome = await recomputeConflicts(
        tx,
        fresh,
        {
          targetKeys: new Set(changed.map((r) => r.targetKey)),
          shas: new Set(),
          rowIds: new Set(changed.map((r) => r.id)),
        },
        fresh.planAccumulator ?? "0".repeat(64),
        at,
      );
      await tx
        .update(jobs)
        .set({ revision: (fresh.revision ?? 0) + 1, planAccumulator: outcome.accumulator, updatedAt: at })
        .where(eq(jobs.id, manifest.id));
      return outcome.messages;
    });
    ctx.publish(messages);
  }
  return summary();

  function summary(): Record<string, unknown> {
    return dryRun
      ? {
          dry_run: true,
          rows: total,
          would_move: totals.would_move,
          would_fail: totals.would_fail,
          by_error: byError,
        }
      : {
          rows: total,
          moved: totals.moved,
          failed: totals.failed,
          bytes_moved: totals.bytes,
          by_error: byError,
        };
  }
}

/** Runs a rollback job: moves files back (hash and occupancy checked), journaled, then removes the folders apply made. */
export async function runRollback(run: JobRun, options: MoveOptions): Promise<Record<string, unknown>> {
  const { ctx, job } = run;
  const target = String(job.targetJobId ?? "");
  const only = Array.isArray(job.params.row_ids) ? new Set(job.params.row_ids.map(String)) : undefined;
  const manifest = await findJob(ctx.db, job.manifestJobId);
  const sourceDir = String(manifest?.params.source_dir ?? "/");
  const outputDir = String(manifest?.params.output_dir ?? "/");
  const confined = createConfinement(sourceDir);
  const allowed = ctx.guard.roots;
  // Files go back from the output to the source; folders are recreated under the source.
  const scope: MoveScope = {
    source: confineScope(allowed, outputDir),
    target: confineScope(allowed, sourceDir),
    allowed,
    folders: sourceDir,
  };
  await run.phase("planning");
  const done = (
    await ctx.db
      .select()
      .from(journal)
      .where(and(eq(journal.jobId, target), eq(journal.state, "done")))
      .orderBy(asc(journal.id))
  ).filter((r) => r.op === "mkdir" || only === undefined || (r.rowId !== null && only.has(r.rowId)));
  const moveRecords = done.filter((r) => r.op === "move" && r.rowId !== null);
  const rowById = new Map<string, MoveRow>();
  for (const part of chunk(
    moveRecords.map((r) => r.rowId ?? ""),
    500,
  )) {
    for (const r of await ctx.db.select(MOVE_COLUMNS).from(rows).where(inArray(rows.id, part)))
      rowById.set(r.id, r);
  }
  await run.phase("moving_back");
  const totals = { moved: 0, failed: 0, bytes: 0 };
  const byError: Record<string, number> = {};
  const known = new Set<string>();
  let processed = 0;
  for (const group of chunk(moveRecords, options.groupSize)) {
    const moves: PlannedMove[] = [];
    const failures: Failure[] = [];
    const mkdirs: string[] = [];
    const checks = await mapLimit(group, MOVE_CONCURRENCY, (record) =>
      checkRollback(record, options.signer, scope),
    );
    for (const [i, record] of group.entries()) {
      const row = rowById.get(record.rowId ?? "");
      if (row === undefined || row.status !== "applied") continue;
      const check = checks[i];
      const error: RowError | undefined =
        (check !== undefined && "error" in check ? check.error : undefined) ??
        ((await confined(dirname(record.fromPath ?? "")))
          ? undefined
          : {
              code: "OUTSIDE_ROOT",
              message: `${record.fromPath} now resolves outside the source directory.`,
            });
      if (error !== undefined) {
        failures.push({ row, error });
        byError[error.code] = (byError[error.code] ?? 0) + 1;
        continue;
      }
      for (const dir of await missingDirectories(dirname(record.fromPath ?? ""), known)) {
        known.add(dir);
        mkdirs.push(dir);
      }
      // The file moves back only if it still is the inode whose content was just verified.
      const identity = check !== undefined && "identity" in check ? check.identity : null;
      moves.push({ row, from: record.toPath, to: record.fromPath ?? "", identity });
    }
    processed += group.length;
    const outcome = await executeGroup(
      run,
      options,
      "rollback",
      moves,
      mkdirs,
      failures,
      moveRecords.length === 0 ? 1 : (0.95 * processed) / moveRecords.length,
      scope,
    );
    totals.moved += outcome.moved;
    totals.failed += outcome.failed;
    totals.bytes += outcome.bytes;
    if (await run.isCancelled()) return { ...totals, by_error: byError, cancelled: true };
  }
  await run.phase("cleanup");
  // Folders the apply created, deepest first; a folder that is not empty stays.
  const dirs = done
    .filter((r) => r.op === "mkdir")
    .map((r) => r.toPath)
    .sort((a, b) => b.length - a.length);
  let removed = 0;
  for (const group of chunk(dirs, GROUP_SIZE)) {
    const at = ctx.clock();
    const records = await runTransaction(ctx.db, (tx) =>
      writeIntents(
        tx,
        options.signer,
        group.map((dir) => ({
          jobId: job.id,
          rowId: null,
          op: "rmdir" as const,
          fromPath: null,
          toPath: dir,
          sha256: null,
          size: null,
          state: "intent" as const,
          errorCode: null,
          createdAt: at,
          completedAt: null,
        })),
      ),
    );
    const outcomes: Array<{ record: JournalRecord; state: JournalRecord["state"]; error: RowError | null }> =
      [];
    for (const record of records) {
      // Through the confined layer: a folder whose real parent left the output (a symlink swapped in) stays.
      const gone = confinedFs.rmdirIn(folderScope(allowed, outputDir, record.toPath), record.toPath);
      if (gone.code === undefined) {
        removed++;
        outcomes.push({ record, state: "done", error: null });
      } else {
        outcomes.push({ record, state: "not_done", error: { code: gone.code, message: gone.code } });
      }
    }
    await completeGroup(ctx, job, "rollback", outcomes, [], undefined);
  }
  return {
    moved_back: totals.moved,
    failed: totals.failed,
    bytes_moved: totals.bytes,
    directories_removed: removed,
    by_error: byError,
  };
}

/** What start-up recovery found for one job. */
export interface RecoveredJob {
  jobId: string;
  resolved: { done: number; not_done: number; missing: number; tampered: number };
}

/**
 * Start-up recovery: every job left `running`/`cancelling` by a crash is resolved. Each intent without a
 * completion is settled from the disk, rows follow, and the job ends `failed` with a clear error.
 */
export async function recoverInterruptedJobs(
  ctx: EngineContext,
  signer: JournalSigner,
  lease: { owner: string; leaseMs: number },
): Promise<RecoveredJob[]> {
  const stuck = await ctx.db
    .select()
    .from(jobs)
    .where(inArray(jobs.status, ["running", "cancelling"]));
  const out: RecoveredJob[] = [];
  for (const candidate of stuck) {
    // Only jobs whose lease ran out (or whose owner is gone) are taken over, each by one process: the
    // takeover is a compare-and-set on the lease it saw.
    const now = ctx.clock();
    if (!isLeaseTakeable(candidate, now)) continue;
    const [job] = await runTransaction(ctx.db, (tx) =>
      tx
        .update(jobs)
        .set({ leaseOwner: lease.owner, leaseExpiresAt: now + lease.leaseMs })
        .where(
          and(
            eq(jobs.id, candidate.id),
            inArray(jobs.status, ["running", "cancelling"]),
            candidate.leaseOwner === null
              ? isNull(jobs.leaseOwner)
              : eq(jobs.leaseOwner, candidate.leaseOwner),
            candidate.leaseExpiresAt === null
              ? isNull(jobs.leaseExpiresAt)
              : eq(jobs.leaseExpiresAt, candidate.leaseExpiresAt),
          ),
        )
        .returning(),
    );
    if (job === undefined) continue;
    const open = await ctx.db
      .select()
      .from(journal)
      .where(and(eq(journal.jobId, job.id), eq(journal.state, "intent")))
      .orderBy(asc(journal.id));
    const resolved = { done: 0, not_done: 0, missing: 0, tampered: 0 };
    const outcomes: Array<{ record: JournalRecord; state: JournalRecord["state"]; error: RowError | null }> =
      [];
    for (const record of open) {
      if (!signer.verify(record)) {
        resolved.tampered++;
        continue;
      }
      if (record.op === "move") {
        const verdict = await resolveMoveFromDisk(record, ctx.guard.roots);
        if (verdict.state === "done") resolved.done++;
        else if (verdict.state === "not_done") resolved.not_done++;
        else resolved.missing++;
        outcomes.push({
          record,
          state: verdict.state,
          error:
            verdict.state === "failed"
              ? { code: verdict.code, message: "Neither the source nor the target exists after a crash." }
              : null,
        });
      } else {
        const there = (await lstatOrUndefined(record.toPath)) !== undefined;
        const ok = record.op === "mkdir" ? there : !there;
        outcomes.push({ record, state: ok ? "done" : "not_done", error: null });
      }
    }
    const kind = job.kind === "rollback" ? "rollback" : "apply";
    for (const part of chunk(outcomes, GROUP_SIZE)) {
      await completeGroup(ctx, job, kind, part, [], undefined);
    }
    const at = ctx.clock();
    const message =
      `The process stopped while this ${job.kind} job ran. Recovery settled ${open.length} unfinished ` +
      `journal intents from the disk (${resolved.done} completed, ${resolved.not_done} not done` +
      `${resolved.missing > 0 ? `, ${resolved.missing} missing` : ""}${resolved.tampered > 0 ? `, ${resolved.tampered} tampered and left alone` : ""}). ` +
      "The journal is consistent: retry the job or roll it back.";
    const messages = await runTransaction(ctx.db, async (tx) => {
      await tx
        .update(jobs)
        .set({
          status: "failed",
          phase: "failed",
          error: { code: "INTERRUPTED", message, details: resolved },
          finishedAt: at,
          updatedAt: at,
          leaseExpiresAt: null,
        })
        .where(eq(jobs.id, job.id));
      return [
        await appendEvent(tx, job.id, "recovered", { ...resolved }, at),
        await appendEvent(
          tx,
          job.id,
          "finished",
          { status: "failed", error: { code: "INTERRUPTED", message } },
          at,
        ),
      ];
    });
    ctx.publish(messages);
    out.push({ jobId: job.id, resolved });
  }
  return out;
}
