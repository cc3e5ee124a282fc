import { and, eq, inArray } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { jobs, journal, rows } from "../../store/schema.js";
import { chunk } from "../db.js";

/**
 * The paths among `paths` where an apply put a file that is still there as applied (a done `move` of an
 * apply job whose row is `applied`): files the service itself organized, which a scan never offers again —
 * even when the output root lies inside the watched folder. A file rolled back is no longer one of them.
 */
export async function placedByApply(db: LibSQLDatabase, paths: readonly string[]): Promise<Set<string>> {
  const placed = new Set<string>();
  for (const part of chunk(paths, 500)) {
    const found = await db
      .select({ path: journal.toPath })
      .from(journal)
      .innerJoin(jobs, eq(jobs.id, journal.jobId))
      .innerJoin(rows, eq(rows.id, journal.rowId))
      .where(
        and(
          inArray(journal.toPath, part),
          eq(journal.op, "move"),
          eq(journal.state, "done"),
          eq(jobs.kind, "apply"),
          eq(rows.status, "applied"),
          eq(rows.targetPath, journal.toPath),
        ),
      );
    for (const f of found) placed.add(f.path);
  }
  return placed;
}
