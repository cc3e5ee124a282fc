import { dirname } from "node:path";
import { runTransaction } from "@vetted/store";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { RowError } from "../../domain/manifest.js";
import { journal, rows } from "../../store/schema.js";
import { createConfinement, missingDirectories } from "../apply/confinement.js";
import { checkUncopy } from "../apply/copy-steps.js";
import { executeGroup, intentOf } from "../apply/execute.js";
import {
  completeGroup,
  type Failure,
  GROUP_SIZE,
  MOVE_COLUMNS,
  type MoveOptions,
  type MoveRow,
  type PlannedMove,
  type RecordOutcome,
} from "../apply/group.js";
import { confinedFs, confineScope } from "../confined-fs.js";
import { folderScope } from "../confined-moves.js";
import { chunk } from "../db.js";
import { type JournalRecord, writeIntents } from "../journal.js";
import { checkRollback, MOVE_CONCURRENCY, type MoveScope } from "../move-steps.js";
import { mapLimit } from "../pool.js";
import { findJob } from "../records.js";
import type { JobRun } from "../run.js";
import { infoPathOf, trashRootOf } from "../trash.js";
import { restoreRemovedFolders } from "./restore-folders.js";

/** What planning the rollback of one group needs. */
interface RollbackPlanning {
  options: MoveOptions;
  scope: MoveScope;
  rowById: Map<string, MoveRow>;
  known: Set<string>;
  confined: (dir: string) => Promise<boolean>;
  byError: Record<string, number>;
}

/** The scope a done move is undone in: a trashed file leaves its trash, any other file the output. */
function scopeOf(scope: MoveScope, record: JournalRecord): MoveScope {
  return record.op === "trash" ? { ...scope, source: [trashRootOf(record.toPath)] } : scope;
}

/** A trashed file's way back out of its trash (its info is removed once it is back). */
function untrashOf(record: JournalRecord): PlannedMove["trash"] {
  if (record.op !== "trash") return undefined;
  const slot = {
    root: trashRootOf(record.toPath),
    file: record.toPath,
    info: infoPathOf(record.toPath),
    infoPath: "",
  };
  return { op: "untrash", slot, original: record.fromPath ?? "" };
}

/** Checks each done move of a group (journal signature, content, confinement) and plans its way back. */
async function planGroup(p: RollbackPlanning, group: readonly JournalRecord[]) {
  const moves: PlannedMove[] = [];
  const failures: Failure[] = [];
  const mkdirs: string[] = [];
  const checks = await mapLimit(group, MOVE_CONCURRENCY, (record) =>
    record.op === "copy"
      ? checkUncopy(record, p.options.signer, p.scope.source)
      : checkRollback(record, p.options.signer, scopeOf(p.scope, record)),
  );
  for (const [i, record] of group.entries()) {
    const row = p.rowById.get(record.rowId ?? "");
    if (row === undefined || row.status !== "applied") continue;
    const check = checks[i];
    if (record.op === "copy") {
      // Only the copy goes: the source never moved and is never touched.
      if (check !== undefined && "error" in check) {
        failures.push({ row, error: check.error });
        p.byError[check.error.code] = (p.byError[check.error.code] ?? 0) + 1;
      } else {
        const identity = check !== undefined && "identity" in check ? check.identity : null;
        moves.push({ row, from: record.toPath, to: record.fromPath ?? "", identity, copy: "uncopy" });
      }
      continue;
    }
    const error: RowError | undefined =
      (check !== undefined && "error" in check ? check.error : undefined) ??
      ((await p.confined(dirname(record.fromPath ?? "")))
        ? undefined
        : { code: "OUTSIDE_ROOT", message: `${record.fromPath} now resolves outside the source directory.` });
    if (error !== undefined) {
      failures.push({ row, error });
      p.byError[error.code] = (p.byError[error.code] ?? 0) + 1;
      continue;
    }
    for (const dir of await missingDirectories(dirname(record.fromPath ?? ""), p.known)) {
      p.known.add(dir);
      mkdirs.push(dir);
    }
    // The file moves back only if it still is the inode whose content was just verified.
    const identity = check !== undefined && "identity" in check ? check.identity : null;
    moves.push({ row, from: record.toPath, to: record.fromPath ?? "", identity, trash: untrashOf(record) });
  }
  return { moves, failures, mkdirs };
}

/** Removes the folders the apply created, deepest first, through the confined layer; a non-empty one stays. */
async function removeFolders(
  run: JobRun,
  options: MoveOptions,
  done: readonly JournalRecord[],
  outputDir: string,
): Promise<number> {
  const { ctx, job } = run;
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
        group.map((dir) => intentOf(job.id, at, "rmdir", dir)),
      ),
    );
    const outcomes: RecordOutcome[] = [];
    for (const record of records) {
      // A folder whose real parent left the output (a symlink swapped in) stays.
      const gone = confinedFs.rmdirIn(folderScope(ctx.guard.roots, outputDir, record.toPath), record.toPath);
      if (gone.code === undefined) {
        removed++;
        outcomes.push({ record, state: "done", error: null });
      } else {
        outcomes.push({ record, state: "not_done", error: { code: gone.code, message: gone.code } });
      }
    }
    await completeGroup(ctx, job, "rollback", outcomes, [], undefined);
  }
  return removed;
}

/** The rows of the moves a rollback undoes, by id. */
async function loadMoveRows(run: JobRun, moveRecords: readonly JournalRecord[]) {
  const rowById = new Map<string, MoveRow>();
  const ids = moveRecords.map((r) => r.rowId ?? "");
  for (const part of chunk(ids, 500)) {
    const found = await run.ctx.db.select(MOVE_COLUMNS).from(rows).where(inArray(rows.id, part));
    for (const r of found) rowById.set(r.id, r);
  }
  return rowById;
}

/** Runs a rollback job: moves files back (hash and occupancy checked), journaled, then removes the folders apply made. */
export async function runRollback(run: JobRun, options: MoveOptions): Promise<Record<string, unknown>> {
  const { ctx, job } = run;
  const target = String(job.targetJobId ?? "");
  const only = Array.isArray(job.params.row_ids) ? new Set(job.params.row_ids.map(String)) : undefined;
  const manifest = await findJob(ctx.db, job.manifestJobId);
  const sourceDir = String(manifest?.params.source_dir ?? "/");
  const outputDir = String(manifest?.params.output_dir ?? "/");
  const allowed = ctx.guard.roots;
  await run.phase("planning");
  const done = (
    await ctx.db
      .select()
      .from(journal)
      .where(and(eq(journal.jobId, target), eq(journal.state, "done")))
      .orderBy(asc(journal.id))
  ).filter((r) => r.op === "mkdir" || only === undefined || (r.rowId !== null && only.has(r.rowId)));
  const moveRecords = done.filter(
    (r) => (r.op === "move" || r.op === "trash" || r.op === "copy") && r.rowId !== null,
  );
  const p: RollbackPlanning = {
    options,
    // Files go back from the output to the source; folders are recreated under the source.
    scope: {
      source: confineScope(allowed, outputDir),
      target: confineScope(allowed, sourceDir),
      allowed,
      folders: sourceDir,
    },
    rowById: await loadMoveRows(run, moveRecords),
    known: new Set(),
    confined: createConfinement(sourceDir),
    byError: {},
  };
  // A full rollback first recreates the source folders the apply removed after emptying them.
  const restored = only === undefined ? await restoreRemovedFolders(run, options, done, p.scope, p.known) : 0;
  await run.phase("moving_back");
  const totals = { moved: 0, failed: 0, bytes: 0 };
  let processed = 0;
  for (const group of chunk(moveRecords, options.groupSize)) {
    const planned = await planGroup(p, group);
    processed += group.length;
    const progress = moveRecords.length === 0 ? 1 : (0.95 * processed) / moveRecords.length;
    const outcome = await executeGroup(run, options, "rollback", planned, progress, p.scope);
    totals.moved += outcome.moved;
    totals.failed += outcome.failed;
    totals.bytes += outcome.bytes;
    if (await run.isCancelled()) return { ...totals, by_error: p.byError, cancelled: true };
  }
  await run.phase("cleanup");
  const removed = await removeFolders(run, options, done, outputDir);
  return {
    moved_back: totals.moved,
    failed: totals.failed,
    failed_rows: totals.failed,
    completed_with_errors: totals.failed > 0,
    bytes_moved: totals.bytes,
    directories_removed: removed,
    directories_restored: restored,
    by_error: p.byError,
  };
}
