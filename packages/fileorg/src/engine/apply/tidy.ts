import { readdirSync } from "node:fs";
import { dirname, sep } from "node:path";
import { runTransaction } from "@vetted/store";
import { and, asc, eq, gt } from "drizzle-orm";
import { isInside } from "../../domain/posix-path.js";
import { rows } from "../../store/schema.js";
import { confinedFs } from "../confined-fs.js";
import { writeIntents } from "../journal.js";
import type { JobRun } from "../run.js";
import { intentOf } from "./execute.js";
import { completeGroup, type MoveOptions, type RecordOutcome } from "./group.js";

/** Where an apply may tidy: inside the source, never a root, the output or anything around it. */
export interface TidyScope {
  sourceDir: string;
  outputDir: string;
  /** The allowed roots: never removed themselves. */
  allowed: readonly string[];
}

/** What tidying found and did. */
export interface TidyOutcome {
  removed: number;
  /** Folders that were empty when looked at but could not be removed (something arrived, refused…). */
  kept: number;
}

/** Whether `dir` is a folder apply may remove once it is empty. */
export function isTidyable(scope: TidyScope, dir: string): boolean {
  if (dir === scope.sourceDir || !isInside(scope.sourceDir, dir)) return false;
  if (scope.allowed.includes(dir)) return false;
  // Never the output root or a folder that holds it (folders inside it are fair game when it is the source).
  return !isInside(dir, scope.outputDir);
}

/** The source folders of the manifest's applied rows, with every ancestor up to (not including) the source. */
async function candidateFolders(run: JobRun, manifestId: string, scope: TidyScope): Promise<string[]> {
  const found = new Set<string>();
  let after = 0;
  for (;;) {
    const page = await run.ctx.db
      .select({ seq: rows.seq, sourcePath: rows.sourcePath })
      .from(rows)
      .where(and(eq(rows.jobId, manifestId), eq(rows.status, "applied"), gt(rows.seq, after)))
      .orderBy(asc(rows.seq))
      .limit(5000);
    if (page.length === 0) break;
    after = page[page.length - 1]?.seq ?? after;
    for (const r of page) {
      for (let dir = dirname(r.sourcePath); isTidyable(scope, dir) && !found.has(dir); dir = dirname(dir)) {
        found.add(dir);
      }
    }
  }
  return [...found];
}

function isEmptyFolder(dir: string): boolean {
  try {
    return readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}

const depthOf = (dir: string) => dir.split(sep).length;

/**
 * Removes the source folders an apply emptied, deepest first: each folder found empty is journaled (an
 * `rmdir` intent committed first) and then removed through the confined layer (a real folder, its real
 * parent inside the source). `rmdir` itself refuses a folder that holds anything, so one that filled up
 * meanwhile stays (`not_done`). Rollback recreates the removed folders; recovery settles an interrupted one
 * from the disk.
 */
export async function removeEmptiedFolders(
  run: JobRun,
  options: MoveOptions,
  manifestId: string,
  scope: TidyScope,
): Promise<TidyOutcome> {
  const { ctx, job } = run;
  const outcome: TidyOutcome = { removed: 0, kept: 0 };
  const byDepth = new Map<number, string[]>();
  for (const dir of await candidateFolders(run, manifestId, scope)) {
    byDepth.set(depthOf(dir), [...(byDepth.get(depthOf(dir)) ?? []), dir]);
  }
  const roots = [scope.sourceDir];
  for (const depth of [...byDepth.keys()].sort((a, b) => b - a)) {
    const empty = (byDepth.get(depth) ?? []).filter(isEmptyFolder).sort();
    if (empty.length === 0) continue;
    const at = ctx.clock();
    const records = await runTransaction(ctx.db, (tx) =>
      writeIntents(
        tx,
        options.signer,
        empty.map((dir) => intentOf(job.id, at, "rmdir", dir)),
      ),
    );
    const outcomes: RecordOutcome[] = records.map((record) => {
      const gone = confinedFs.rmdirIn(roots, record.toPath);
      if (gone.code === undefined) {
        outcome.removed++;
        return { record, state: "done", error: null };
      }
      outcome.kept++;
      return { record, state: "not_done", error: { code: gone.code, message: gone.code } };
    });
    await completeGroup(ctx, job, "apply", outcomes, [], undefined);
  }
  return outcome;
}
