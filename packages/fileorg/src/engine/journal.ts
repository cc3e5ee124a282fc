import { createHmac, timingSafeEqual } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, link, lstat, open, unlink, utimes } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { inArray, sql } from "drizzle-orm";
import { createBulkInserter } from "../store/bulk-insert.js";
import { journal } from "../store/schema.js";
import type { Queryable } from "./db.js";
import { hashFile } from "./hash-file.js";

/** A journal record as stored. */
export type JournalRecord = typeof journal.$inferSelect;
/** A journal record about to be written. */
export type JournalDraft = Omit<JournalRecord, "id" | "signature">;

/**
 * What a signature covers: everything the record asks the disk to do (job, row, operation, paths, hash,
 * size, time). The state is deliberately outside it: every step re-checks the disk (hash at the target, free
 * source), so a forged state can at worst make rollback skip a row, never move a file somewhere else.
 */
function payload(
  r: Pick<JournalDraft, "jobId" | "rowId" | "op" | "fromPath" | "toPath" | "sha256" | "size" | "createdAt">,
): string {
  return JSON.stringify([r.jobId, r.rowId, r.op, r.fromPath, r.toPath, r.sha256, r.size, r.createdAt]);
}

/** Signs journal records with HMAC-SHA256 under the installation key. */
export interface JournalSigner {
  sign(record: JournalDraft): string;
  verify(record: JournalRecord): boolean;
}

/** Builds a signer over `key`. */
export function createJournalSigner(key: Uint8Array): JournalSigner {
  const sign = (r: JournalDraft) => createHmac("sha256", key).update(payload(r)).digest("hex");
  return {
    sign,
    verify(record) {
      const expected = Buffer.from(sign(record), "hex");
      const actual = Buffer.from(record.signature, "hex");
      return expected.length === actual.length && timingSafeEqual(expected, actual);
    },
  };
}

const insertJournal = createBulkInserter(journal);

/** Inserts signed intent records (one statement per 5000); returns them with their ids, in order. */
export async function writeIntents(
  tx: Queryable,
  signer: JournalSigner,
  drafts: readonly JournalDraft[],
): Promise<JournalRecord[]> {
  const out: JournalRecord[] = [];
  for (let i = 0; i < drafts.length; i += 5000) {
    const part = drafts.slice(i, i + 5000).map((d) => ({ ...d, signature: signer.sign(d) }));
    const statement = insertJournal(part);
    if (statement === undefined) continue;
    // AUTOINCREMENT ids of one multi-row insert (under the write lock) increase in the order the rows are
    // inserted (json_each's array order), whatever order RETURNING reports them in.
    const ids = (await tx.all<{ id: number }>(sql`${statement} RETURNING "id"`))
      .map((r) => Number(r.id))
      .sort((a, b) => a - b);
    part.forEach((record, k) => {
      const id = ids[k];
      if (id === undefined) throw new Error("journal insert returned fewer ids than records");
      out.push({ ...record, id });
    });
  }
  return out;
}

/** Completes records in bulk: one UPDATE per distinct (state, error code). */
export async function completeRecords(
  tx: Queryable,
  completions: ReadonlyArray<{ id: number; state: JournalRecord["state"]; errorCode: string | null }>,
  at: number,
): Promise<void> {
  const groups = new Map<string, number[]>();
  for (const c of completions) {
    const key = JSON.stringify([c.state, c.errorCode]);
    groups.set(key, [...(groups.get(key) ?? []), c.id]);
  }
  for (const [key, ids] of groups) {
    const [state, errorCode] = JSON.parse(key) as [JournalRecord["state"], string | null];
    for (let i = 0; i < ids.length; i += 500) {
      await tx
        .update(journal)
        .set({ state, errorCode, completedAt: at })
        .where(inArray(journal.id, ids.slice(i, i + 500)));
    }
  }
}

/** The temp name a cross-device copy of journal record `id` uses next to its target. */
export function tempPathFor(target: string, id: number): string {
  return join(dirname(target), `.${basename(target).slice(0, 180)}.vetted-tmp-${id}`);
}

/** Why a move did not happen. */
export class MoveError extends Error {
  constructor(
    readonly code: "TARGET_EXISTS" | "HASH_MISMATCH" | "SOURCE_MISSING" | "IO_ERROR",
    message: string,
  ) {
    super(message);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Moves a file without ever replacing what is at `to`: a hard link (atomic, fails when `to` exists) then
 * unlink of `from`. Across devices (or where links are unsupported) the file is copied to a temp name,
 * fsynced, verified against `sha256`, linked into place (still no-clobber), and only then is `from` removed.
 */
export async function moveNoClobber(
  from: string,
  to: string,
  sha256: string | null,
  tempPath: string,
  forceCopy = false,
): Promise<"renamed" | "copied"> {
  if (!forceCopy) {
    try {
      await link(from, to);
      await unlink(from);
      return "renamed";
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST") throw new MoveError("TARGET_EXISTS", `Something already exists at ${to}.`);
      if (code === "ENOENT" && !(await exists(from)))
        throw new MoveError("SOURCE_MISSING", `${from} is gone.`);
      if (
        code !== "EXDEV" &&
        code !== "EPERM" &&
        code !== "ENOTSUP" &&
        code !== "EMLINK" &&
        code !== "ENOSYS"
      ) {
        throw new MoveError("IO_ERROR", `Cannot move ${from} to ${to} (${code ?? "error"}).`);
      }
    }
  }
  try {
    await copyFile(from, tempPath, constants.COPYFILE_EXCL);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && !(await exists(from))) throw new MoveError("SOURCE_MISSING", `${from} is gone.`);
    throw new MoveError("IO_ERROR", `Cannot copy ${from} to ${to} (${code ?? "error"}).`);
  }
  try {
    // Keep the file's times, as a rename would (copyFile already keeps the mode).
    const times = await lstat(from);
    await utimes(tempPath, times.atime, times.mtime);
    await fsyncPath(tempPath);
    if (sha256 !== null && (await hashFile(tempPath)) !== sha256) {
      throw new MoveError("HASH_MISMATCH", `The copy of ${from} does not have the recorded SHA-256.`);
    }
    try {
      await link(tempPath, to);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EEXIST") throw new MoveError("TARGET_EXISTS", `Something already exists at ${to}.`);
      throw new MoveError("IO_ERROR", `Cannot place ${to} (${code ?? "error"}).`);
    }
  } finally {
    await unlink(tempPath).catch(() => undefined);
  }
  await fsyncPath(dirname(to)).catch(() => undefined);
  await unlink(from);
  return "copied";
}

/** What the disk says about an interrupted move. */
export type DiskVerdict =
  | { state: "done" }
  | { state: "not_done" }
  | { state: "failed"; code: "FILE_MISSING" };

/**
 * Resolves an interrupted move from the disk: removes our temp copy, finishes a move whose target is
 * complete (same inode, or same verified content), and otherwise leaves the source where it is.
 */
export async function resolveMoveFromDisk(record: JournalRecord): Promise<DiskVerdict> {
  const from = record.fromPath ?? "";
  const to = record.toPath;
  await unlink(tempPathFor(to, record.id)).catch(() => undefined);
  const [f, t] = await Promise.all([lstat(from).catch(() => undefined), lstat(to).catch(() => undefined)]);
  if (f !== undefined && t !== undefined) {
    const sameFile = f.ino === t.ino && f.dev === t.dev;
    const sameContent =
      !sameFile &&
      record.sha256 !== null &&
      f.size === t.size &&
      (await hashFile(to).catch(() => "")) === record.sha256 &&
      (await hashFile(from).catch(() => "")) === record.sha256;
    if (sameFile || sameContent) {
      await unlink(from);
      return { state: "done" };
    }
    return { state: "not_done" };
  }
  if (f !== undefined) return { state: "not_done" };
  if (t !== undefined) return { state: "done" };
  return { state: "failed", code: "FILE_MISSING" };
}
