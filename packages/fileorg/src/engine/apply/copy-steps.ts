import type { RowError } from "../../domain/manifest.js";
import { confinedFs, type SourceIdentity } from "../confined-fs.js";
import { type BeforeLink, copyConfined, hashConfined, identityOfFacts } from "../confined-moves.js";
import type { PoolScope } from "../inspect-pool.js";
import {
  type DiskVerdict,
  type JournalRecord,
  type JournalSigner,
  MoveError,
  tempPathFor,
} from "../journal.js";
import type { MoveOutcome } from "../move-steps.js";

/**
 * The `copy` action's journaled steps. A copy's intent (`copy`: `fromPath` the source, `toPath` the target,
 * the source's SHA-256) is committed before anything is written; the file is then copied to a temp name
 * beside the target, fsynced and checked against that SHA-256; the temp file's device and inode are
 * committed to the record; then it is hard-linked into place (never replacing anything: an occupied target
 * is `TARGET_EXISTS`), so the target's name only ever holds a whole, verified copy, and the copy is the
 * recorded inode (a link keeps it). Recovery and rollback's `uncopy` claim exactly that copy — the file at
 * the target, only while it still is the recorded inode with the recorded SHA-256 — never an identical file
 * that someone else put there, and never the source.
 */

const failed = (record: JournalRecord, error: RowError): MoveOutcome => ({ record, state: "failed", error });

function errorOf(err: unknown): RowError {
  return err instanceof MoveError
    ? { code: err.code, message: err.message }
    : { code: "IO_ERROR", message: err instanceof Error ? err.message : String(err) };
}

/** Copies one journaled file (its intent is committed): source kept, target written whole and verified. */
export async function copyOne(
  record: JournalRecord,
  identity: SourceIdentity | null,
  scope: PoolScope,
  recordInode: BeforeLink,
): Promise<MoveOutcome> {
  const from = record.fromPath ?? "";
  if (record.sha256 === null) {
    return failed(record, {
      code: "HASH_UNKNOWN",
      message: `${from} has no recorded SHA-256: a copy could not be verified nor undone; nothing was copied.`,
    });
  }
  try {
    await copyConfined(
      {
        from,
        to: record.toPath,
        temp: tempPathFor(record.toPath, record.id),
        sha256: record.sha256,
        identity,
      },
      scope,
      recordInode,
    );
    return { record, state: "done", error: null };
  } catch (err) {
    return failed(record, errorOf(err));
  }
}

/**
 * Whether `facts` (of the file at a copy's target) are the copy's own file: the inode recorded before the
 * link. A record without one (written before inodes were recorded) is judged by its SHA-256 alone.
 */
function isOwnCopy(record: JournalRecord, facts: { dev: number; ino: number }): boolean {
  if (record.copyIno === null || record.copyDev === null) return true;
  return facts.ino === record.copyIno && facts.dev === record.copyDev;
}

/**
 * The checks before rollback removes a copy (`record` is the apply's done `copy`): the record verifies, and
 * the file at the target (read through the confined layer, `roots` the output's) still has the recorded
 * SHA-256; answers the identity of the verified file, the only one the removal may take. A copy changed
 * since is kept (`HASH_MISMATCH`), and said so.
 */
export async function checkUncopy(
  record: JournalRecord,
  signer: JournalSigner,
  roots: readonly string[],
): Promise<{ error: RowError } | { identity: SourceIdentity }> {
  if (!signer.verify(record)) {
    return {
      error: {
        code: "JOURNAL_TAMPERED",
        message: "The journal record of this copy does not verify; left alone.",
      },
    };
  }
  const read = await hashConfined(roots, record.toPath);
  if ("code" in read) {
    if (read.code === "OUTSIDE_ROOT")
      return {
        error: { code: "OUTSIDE_ROOT", message: `${record.toPath} now resolves outside the output.` },
      };
    return {
      error: { code: "FILE_MISSING", message: `The copy at ${record.toPath} is gone (${read.code}).` },
    };
  }
  if (read.sha256 !== record.sha256) {
    return {
      error: {
        code: "HASH_MISMATCH",
        message: `The copy at ${record.toPath} changed since apply (not the recorded SHA-256); kept.`,
      },
    };
  }
  if (!isOwnCopy(record, read.facts)) {
    return {
      error: {
        code: "SOURCE_CHANGED",
        message: `The file at ${record.toPath} is not the copy apply made (another file, same content); kept.`,
      },
    };
  }
  return { identity: identityOfFacts(read.facts) };
}

/**
 * Removes one copy (a rollback's `uncopy` intent: `fromPath` the copy), only while its path still is the
 * inode verified by {@link checkUncopy}; the source is never touched.
 */
export function uncopyOne(record: JournalRecord, identity: SourceIdentity | null, roots: readonly string[]) {
  const copy = record.fromPath ?? "";
  if (identity === null || identity.dev === null || identity.ino === null) {
    return failed(record, {
      code: "IO_ERROR",
      message: `No verified identity for the copy at ${copy}; kept.`,
    });
  }
  const gone = confinedFs.unlinkIn(roots, copy, { dev: identity.dev, ino: identity.ino });
  if (gone.code === undefined) return { record, state: "done" as const, error: null };
  return failed(record, {
    code: gone.code === "ENOENT" ? "FILE_MISSING" : "SOURCE_CHANGED",
    message: `The copy at ${copy} was not removed (${gone.code}); left alone.`,
  });
}

/**
 * Settles an interrupted `copy` or `uncopy` from the disk (start-up recovery), through the confined layer:
 * a copy's temp file is removed; the copy is done only when its target is the inode recorded before the
 * link and holds the recorded SHA-256 (only a whole, verified copy is ever linked there). A copy that never
 * recorded its inode never got to its link, so whatever is at its target is not ours: not done. An
 * `uncopy` is done when the copy is gone. The source is never touched.
 */
export async function resolveCopyFromDisk(
  record: JournalRecord,
  roots: readonly string[],
): Promise<DiskVerdict> {
  if (record.op === "uncopy") {
    const seen = confinedFs.lstatIn(roots, record.fromPath ?? "");
    return seen.code === "ENOENT" ? { state: "done" } : { state: "not_done" };
  }
  confinedFs.unlinkIn(roots, tempPathFor(record.toPath, record.id));
  if (record.copyIno === null || record.copyDev === null) return { state: "not_done" };
  const read = await hashConfined(roots, record.toPath);
  const ours = "sha256" in read && read.sha256 === record.sha256 && isOwnCopy(record, read.facts);
  return ours ? { state: "done" } : { state: "not_done" };
}
