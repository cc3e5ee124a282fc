import { existsSync } from "node:fs";
import { sep } from "node:path";
import { missingDirectories } from "../apply/confinement.js";
import { executeGroup } from "../apply/execute.js";
import type { MoveOptions } from "../apply/group.js";
import type { JournalRecord } from "../journal.js";
import type { MoveScope } from "../move-steps.js";
import type { JobRun } from "../run.js";

/**
 * Recreates the source folders an apply removed once it had emptied them (its done `rmdir` records),
 * shallowest first, as journaled `mkdir`s of the rollback (confined to the source like every folder it
 * creates), so a full rollback gives the tree back as it was even where no file goes back into a folder.
 * Answers how many folders it recreated.
 */
export async function restoreRemovedFolders(
  run: JobRun,
  options: MoveOptions,
  done: readonly JournalRecord[],
  scope: MoveScope,
  known: Set<string>,
): Promise<number> {
  const removed = done
    .filter((r) => r.op === "rmdir")
    .map((r) => r.toPath)
    .sort((a, b) => a.split(sep).length - b.split(sep).length || (a < b ? -1 : 1));
  const mkdirs: string[] = [];
  for (const dir of removed) {
    for (const missing of await missingDirectories(dir, known)) {
      known.add(missing);
      mkdirs.push(missing);
    }
  }
  if (mkdirs.length === 0) return 0;
  await executeGroup(run, options, "rollback", { moves: [], mkdirs, failures: [] }, 0, scope);
  return mkdirs.filter((dir) => existsSync(dir)).length;
}
