import { and, eq, inArray, sql } from "drizzle-orm";
import { isInside } from "../../domain/template.js";
import { journal, rows } from "../../store/schema.js";
import { linkTargetOf, SYMLINK_REASON } from "../analyze/special-rows.js";
import { chunk } from "../db.js";
import type { JobRun } from "../run.js";

/** An in-tree symlink whose target this apply moved: the link now points at nothing (or something else). */
export interface MovedLinkTarget {
  code: "SYMLINK_TARGET_MOVED";
  row_id: string;
  link: string;
  target: string;
  moved_to: string;
}

/** At most this many moved link targets are listed in an apply's result (all are counted). */
const MAX_LISTED = 100;

/**
 * The symlinks of the manifest (rows listed with `SYMLINK`) that point inside the source folder at a file
 * this apply moved: each is reported (the link itself is never changed).
 */
export async function movedLinkTargets(
  run: JobRun,
  manifestId: string,
  sourceDir: string,
): Promise<{ count: number; items: MovedLinkTarget[] }> {
  const { db } = run.ctx;
  const links = await db
    .select({ id: rows.id, sourcePath: rows.sourcePath })
    .from(rows)
    .where(
      and(
        // Listed symlinks are blocked rows: the bucket index narrows the scan to them.
        eq(rows.jobId, manifestId),
        eq(rows.reviewBucket, "blocked"),
        sql`json_extract(${rows.error}, '$.code') = ${SYMLINK_REASON}`,
      ),
    );
  const byTarget = new Map<string, Array<{ id: string; link: string }>>();
  for (const l of links) {
    const target = await linkTargetOf(l.sourcePath);
    if (target === undefined || !isInside(sourceDir, target)) continue;
    byTarget.set(target, [...(byTarget.get(target) ?? []), { id: l.id, link: l.sourcePath }]);
  }
  const items: MovedLinkTarget[] = [];
  let count = 0;
  for (const part of chunk([...byTarget.keys()], 500)) {
    const moved = await db
      .select({ fromPath: journal.fromPath, toPath: journal.toPath })
      .from(journal)
      .where(
        and(
          eq(journal.jobId, run.job.id),
          eq(journal.op, "move"),
          eq(journal.state, "done"),
          inArray(journal.fromPath, part),
        ),
      );
    for (const m of moved) {
      for (const l of byTarget.get(m.fromPath ?? "") ?? []) {
        count++;
        if (items.length < MAX_LISTED) {
          items.push({
            code: "SYMLINK_TARGET_MOVED",
            row_id: l.id,
            link: l.link,
            target: m.fromPath ?? "",
            moved_to: m.toPath,
          });
        }
      }
    }
  }
  return { count, items };
}
