import { createHash, createHmac, createSecretKey, timingSafeEqual } from "node:crypto";
import { closeSync, readSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { runTransaction } from "@vetted/store";
import { eq, sql } from "drizzle-orm";
import { createBulkInserter } from "../store/bulk-insert.js";
import { journal } from "../store/schema.js";
import { confinedFs } from "./confined-fs.js";
import { inList, type Queryable } from "./db.js";

/** A journal record as stored. */
export type JournalRecord = typeof journal.$inferSelect;
/** A journal record about to be written. */
export type JournalDraft = Omit<JournalRecord, "id" | "signature">;

/**
 * What a signature covers: everything the record asks the disk to do (job, row, operation, paths, hash,
 * size, time), and a copy's own inode once recorded (a record without one signs as it always did). The
 * state is deliberately outside it: every step re-checks the disk (hash at the target, free source), so a
 * forged state can at worst make rollback skip a row, never move a file somewhere else.
 */
function payload(
  r: Pick<
    JournalDraft,
    "jobId" | "rowId" | "op" | "fromPath" | "toPath" | "sha256" | "size" | "createdAt" | "copyDev" | "copyIno"
  >,
): string {
  const signed: unknown[] = [r.jobId, r.rowId, r.op, r.fromPath, r.toPath, r.sha256, r.size, r.createdAt];
  if (r.copyDev !== null || r.copyIno !== null) signed.push(r.copyDev, r.copyIno);
  return JSON.stringify(signed);
}

/** Signs journal records with HMAC-SHA256 under the installation key. */
export interface JournalSigner {
  sign(record: JournalDraft): string;
  verify(record: JournalRecord): boolean;
}

/** Builds a signer over `key`. */
export function createJournalSigner(key: Uint8Array): JournalSigner {
  // One key object for every record: a raw key would be copied into a new one at each signature.
  const secret = createSecretKey(key);
  const sign = (r: JournalDraft) => createHmac("sha256", secret).update(payload(r)).digest("hex");
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

/**
 * The ids of the `count` records one multi-row insert just wrote, from its last id: AUTOINCREMENT gives the
 * rows of one statement (under the write lock) consecutive ids in the order they are inserted (json_each's
 * array order). Checked, not assumed: exactly `count` ids must lie in that range (every id is above those
 * of the rows before), else the insert throws and its transaction rolls back.
 */
async function insertedIds(tx: Queryable, last: bigint | undefined, count: number): Promise<number[]> {
  if (last === undefined) throw new Error("the journal insert answered no last id");
  const first = Number(last) - count + 1;
  const [found] = await tx
    .select({ n: sql<number>`count(*)` })
    .from(journal)
    .where(sql`${journal.id} BETWEEN ${first} AND ${Number(last)}`);
  if (Number(found?.n) !== count) throw new Error("the journal insert's ids are not consecutive");
  return Array.from({ length: count }, (_, k) => first + k);
}

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
    const written = await tx.run(statement);
    if (written.rowsAffected !== part.length) throw new Error("the journal insert wrote fewer records");
    const ids = await insertedIds(tx, written.lastInsertRowid, part.length);
    part.forEach((record, k) => {
      const id = ids[k];
      if (id === undefined) throw new Error("journal insert returned fewer ids than records");
      out.push({ ...record, id });
    });
  }
  return out;
}

/**
 * Records (and signs) the device and inode of a copy's temp file before it is linked to the target, in its
 * own committed transaction: recovery then claims the target only while it still is that inode.
 */
export async function recordCopyInode(
  db: Parameters<typeof runTransaction>[0],
  signer: JournalSigner,
  record: JournalRecord,
  inode: { dev: number; ino: number },
): Promise<void> {
  const signed = { ...record, copyDev: inode.dev, copyIno: inode.ino };
  await runTransaction(db, (tx) =>
    tx
      .update(journal)
      .set({ copyDev: inode.dev, copyIno: inode.ino, signature: signer.sign(signed) })
      .where(eq(journal.id, record.id)),
  );
}

/** Completes records in bulk: one UPDATE per distinct (state, error code), the ids bound as one list. */
export async function completeRecords(
  tx: Queryable,
  completions: ReadonlyArray<{ id: number; state: JournalRecord["state"]; errorCode: string | null }>,
  at: number,
): Promise<void> {
  const groups = new Map<string, number[]>();
  for (const c of completions) {
    const key = JSON.stringify([c.state, c.errorCode]);
    const ids = groups.get(key);
    if (ids === undefined) groups.set(key, [c.id]);
    else ids.push(c.id);
  }
  for (const [key, ids] of groups) {
    const [state, errorCode] = JSON.parse(key) as [JournalRecord["state"], string | null];
    await tx.update(journal).set({ state, errorCode, completedAt: at }).where(inList(journal.id, ids));
  }
}

/** The temp name a cross-device copy of journal record `id` uses next to its target. */
export function tempPathFor(target: string, id: number): string {
  return join(dirname(target), `.${basename(target).slice(0, 180)}.vetted-tmp-${id}`);
}

/** Why a move did not happen. */
export class MoveError extends Error {
  constructor(
    readonly code:
      | "TARGET_EXISTS"
      | "HASH_MISMATCH"
      | "SOURCE_MISSING"
      | "SOURCE_CHANGED"
      | "OUTSIDE_ROOT"
      | "IO_ERROR",
    message: string,
  ) {
    super(message);
  }
}

/** What the disk says about an interrupted move. */
export type DiskVerdict =
  | { state: "done" }
  | { state: "not_done" }
  | { state: "failed"; code: "FILE_MISSING" };

async function hashThrough(roots: readonly string[], path: string): Promise<string> {
  const opened = confinedFs.openReadIn(roots, path);
  if (opened.code !== undefined) return "";
  try {
    const hash = createHash("sha256");
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (let n = readSync(opened.fd, buffer); n > 0; n = readSync(opened.fd, buffer)) {
      hash.update(buffer.subarray(0, n));
    }
    return hash.digest("hex");
  } catch {
    return "";
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Resolves an interrupted move from the disk, through the confined layer (real parents inside `roots`):
 * removes our temp copy, finishes a move whose target is complete (same inode, or same verified content),
 * and otherwise leaves the source where it is.
 */
export async function resolveMoveFromDisk(
  record: JournalRecord,
  roots: readonly string[],
): Promise<DiskVerdict> {
  const from = record.fromPath ?? "";
  const to = record.toPath;
  confinedFs.unlinkIn(roots, tempPathFor(to, record.id));
  const seenFrom = confinedFs.lstatIn(roots, from);
  const seenTo = confinedFs.lstatIn(roots, to);
  const f = seenFrom.code === undefined ? seenFrom.facts : undefined;
  const t = seenTo.code === undefined ? seenTo.facts : undefined;
  if (f !== undefined && t !== undefined) {
    const sameFile = f.ino === t.ino && f.dev === t.dev;
    const sameContent =
      !sameFile &&
      record.sha256 !== null &&
      f.size === t.size &&
      (await hashThrough(roots, to)) === record.sha256 &&
      (await hashThrough(roots, from)) === record.sha256;
    if (sameFile || sameContent) {
      confinedFs.unlinkIn(roots, from, f);
      return { state: "done" };
    }
    return { state: "not_done" };
  }
  if (f !== undefined) return { state: "not_done" };
  if (t !== undefined) return { state: "done" };
  return { state: "failed", code: "FILE_MISSING" };
}
