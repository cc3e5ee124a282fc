import { lstat } from "node:fs/promises";
import { dirname } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import type { ApplyWarning } from "../../domain/apply-plan.js";
import { isInside } from "../../domain/posix-path.js";
import { rows } from "../../store/schema.js";
import { linkTargetOf, SYMLINK_REASON } from "../analyze/special-rows.js";
import type { Queryable } from "../db.js";

/** At most this many warnings are listed in an apply's result (all are counted). */
const MAX_LISTED = 100;

interface WatchedLink {
  id: string;
  link: string;
  target: string;
}

interface FolderLink extends WatchedLink {
  moved: number;
}

/**
 * The in-tree symlinks of a manifest, watched while an apply (or its dry run) moves files: a link to a file
 * that moves dangles (`SYMLINK_TARGET_MOVED`); a link to a folder whose files move out points at less, or at
 * nothing once the emptied folder is tidied away (`FOLDER_LINK_TARGET_MOVED`). The links are never changed.
 */
export interface LinkWatch {
  /** Tells the watch that the file at `from` moved (or, in a dry run, would move) to `to`. */
  note(from: string, to: string): void;
  /** The warnings so far (the first 100) and their count; `checkDangling` looks whether each folder is gone. */
  warnings(checkDangling: boolean): Promise<{ count: number; items: ApplyWarning[] }>;
}

/** Builds the watch over the manifest's listed symlinks (blocked rows with `SYMLINK`) that point inside `sourceDir`. */
export async function watchLinks(db: Queryable, manifestId: string, sourceDir: string): Promise<LinkWatch> {
  const listed = await db
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
  const fileLinks = new Map<string, WatchedLink[]>();
  const folderLinks = new Map<string, FolderLink[]>();
  for (const l of listed) {
    const target = await linkTargetOf(l.sourcePath);
    if (target === undefined || !isInside(sourceDir, target)) continue;
    const seen = await lstat(target).catch(() => undefined);
    const watched = { id: l.id, link: l.sourcePath, target };
    if (seen?.isDirectory() === true) {
      folderLinks.set(target, [...(folderLinks.get(target) ?? []), { ...watched, moved: 0 }]);
    } else {
      fileLinks.set(target, [...(fileLinks.get(target) ?? []), watched]);
    }
  }
  const moved: ApplyWarning[] = [];
  let count = 0;
  return {
    note(from, to) {
      for (const l of fileLinks.get(from) ?? []) {
        count++;
        if (moved.length < MAX_LISTED)
          moved.push({
            code: "SYMLINK_TARGET_MOVED",
            row_id: l.id,
            link: l.link,
            target: from,
            moved_to: to,
          });
      }
      if (folderLinks.size === 0) return;
      // Every folder above the file, up to the source folder, may be a link's target.
      for (let dir = dirname(from); isInside(sourceDir, dir); dir = dirname(dir)) {
        for (const l of folderLinks.get(dir) ?? []) l.moved++;
        if (dir === sourceDir || dirname(dir) === dir) break;
      }
    },
    async warnings(checkDangling) {
      const folders: ApplyWarning[] = [];
      for (const l of [...folderLinks.values()].flat()) {
        if (l.moved === 0) continue;
        const gone = checkDangling ? (await lstat(l.target).catch(() => undefined)) === undefined : undefined;
        folders.push({
          code: "FOLDER_LINK_TARGET_MOVED",
          row_id: l.id,
          link: l.link,
          target: l.target,
          files_moved: l.moved,
          ...(gone === undefined ? {} : { dangling: gone }),
        });
      }
      const items = [...folders, ...moved].slice(0, MAX_LISTED);
      return { count: count + folders.length, items };
    },
  };
}
