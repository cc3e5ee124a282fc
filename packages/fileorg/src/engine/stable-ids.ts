/**
 * Ids derived from content by SHA-256 (`node:crypto`, hence here and not in the pure domain): the same
 * input gives the same id in every process, so a re-detected conflict or a re-scanned batch keeps its id.
 */
import { createHash } from "node:crypto";
import type { ConflictKind } from "../domain/conflict.js";
import type { InboxFile } from "../domain/inbox-batch.js";

/** The stable id of a conflict: the same kind and key in the same job is the same conflict. */
export function conflictId(jobId: string, kind: ConflictKind, key: string): string {
  return `cfl_${createHash("sha256").update(`${jobId}\0${kind}\0${key}`).digest("hex").slice(0, 24)}`;
}

/**
 * The id of a batch: a hash of the exact set of (path, size, mtime), independent of order. The same files
 * give the same id on every scan; any added, removed, grown or touched file gives another.
 */
export function inboxBatchId(files: readonly InboxFile[]): string | null {
  if (files.length === 0) return null;
  const lines = files.map((f) => `${f.path}\u0000${f.size}\u0000${f.mtime}`).sort();
  const hash = createHash("sha256");
  for (const line of lines) hash.update(`${line}\n`);
  return `batch_${hash.digest("hex").slice(0, 32)}`;
}
