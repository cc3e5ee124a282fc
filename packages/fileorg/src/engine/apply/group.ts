import { lstat } from "node:fs/promises";
import { runTransaction } from "@vetted/store";
import { and, eq, gt, notInArray, type SQL, sql } from "drizzle-orm";
import type { JobEventType } from "../../domain/job.js";
import type { RowError } from "../../domain/manifest.js";
import { canMoveRow, moveRow, ROW_STATUSES, type RowStatus } from "../../domain/transitions.js";
import { jobs, rows } from "../../store/schema.js";
import type { SourceIdentity } from "../confined-fs.js";
import type { EngineContext } from "../context.js";
import { inList, type Queryable } from "../db.js";
import { completeRecords, type JournalRecord, type JournalSigner } from "../journal.js";
import type { RowRecord } from "../manifest/index.js";
import { appendEvent, type HubMessage, type JobRecord } from "../records.js";
import type { TrashOptions, TrashSlot } from "../trash.js";

/** Rows per group commit. */
export const GROUP_SIZE = 2000;

/** Options shared by apply and rollback. */
export interface MoveOptions {
  signer: JournalSigner;
  /** Always copy+verify instead of linking (exercises the cross-device path). */
  forceCopy: boolean;
  /** Rows per group commit. */
  groupSize: number;
  /** Where `trash` rows go. */
  trash: TrashOptions;
}

/** The columns apply and rollback read of a row. */
export type MoveRow = Pick<
  RowRecord,
  | "id"
  | "seq"
  | "sourcePath"
  | "targetPath"
  | "size"
  | "mtime"
  | "sourceDev"
  | "sourceIno"
  | "sourceCtime"
  | "sha256"
  | "status"
  | "action"
>;

/** The select list of {@link MoveRow}. */
export const MOVE_COLUMNS = {
  id: rows.id,
  seq: rows.seq,
  sourcePath: rows.sourcePath,
  targetPath: rows.targetPath,
  size: rows.size,
  mtime: rows.mtime,
  sourceDev: rows.sourceDev,
  sourceIno: rows.sourceIno,
  sourceCtime: rows.sourceCtime,
  sha256: rows.sha256,
  status: rows.status,
  action: rows.action,
};

/** The columns of {@link MOVE_COLUMNS} in order: the fields of each row of {@link readMoveGroup}'s array. */
const MOVE_ORDER = [
  rows.id,
  rows.seq,
  rows.sourcePath,
  rows.targetPath,
  rows.size,
  rows.mtime,
  rows.sourceDev,
  rows.sourceIno,
  rows.sourceCtime,
  rows.sha256,
  rows.status,
  rows.action,
] as const;

const numberOrNull = (v: unknown) => (v === null ? null : Number(v));

/**
 * The next `limit` rows matching `where` after `seq` (in `seq` order), read as ONE value: a JSON array of
 * arrays built by SQLite. The driver turns each result row into an object, column by column (about 12
 * property definitions a row here), which cost more than the rest of reading a group of moves.
 */
export async function readMoveGroup(
  db: Queryable,
  where: SQL | undefined,
  after: number,
  limit: number,
): Promise<MoveRow[]> {
  const picked = sql.join(
    MOVE_ORDER.map((column, i) => sql`${column} AS ${sql.raw(`c${i}`)}`),
    sql`, `,
  );
  const fields = sql.raw(MOVE_ORDER.map((_, i) => `c${i}`).join(", "));
  const [found] = await db.all<{ g: string | null }>(
    sql`SELECT json_group_array(json_array(${fields})) AS g FROM (SELECT ${picked} FROM ${rows} WHERE ${and(where, gt(rows.seq, after))} ORDER BY ${rows.seq} LIMIT ${limit})`,
  );
  const values = JSON.parse(found?.g ?? "[]") as unknown[][];
  return values
    .map(
      (v): MoveRow => ({
        id: String(v[0]),
        seq: Number(v[1]),
        sourcePath: String(v[2]),
        targetPath: String(v[3]),
        size: Number(v[4]),
        mtime: Number(v[5]),
        sourceDev: numberOrNull(v[6]),
        sourceIno: numberOrNull(v[7]),
        sourceCtime: numberOrNull(v[8]),
        sha256: v[9] === null ? null : String(v[9]),
        status: v[10] as MoveRow["status"],
        action: v[11] as MoveRow["action"],
      }),
    )
    .sort((a, b) => a.seq - b.seq);
}

/** One planned move of a group. */
export interface PlannedMove {
  row: MoveRow;
  from: string;
  to: string;
  /** What must still be at `from` right before it moves (checked on the thread that moves it). */
  identity: SourceIdentity | null;
  /** A move into the system trash (`trash`, with its slot), or back out of it (`untrash`). */
  trash?: { op: "trash" | "untrash"; slot: TrashSlot; original: string } | undefined;
  /** A copy to the target (the source stays), or rollback's removal of that copy (`from` the copy). */
  copy?: "copy" | "uncopy" | undefined;
}

/** Journal operations that move a row's file. */
export const FILE_OPS: ReadonlySet<string> = new Set(["move", "trash", "untrash", "copy", "uncopy"]);

/** A row that failed before its move was attempted. */
export interface Failure {
  row: MoveRow;
  error: RowError;
}

/** How one journal record ended. */
export interface RecordOutcome {
  record: JournalRecord;
  state: JournalRecord["state"];
  error: RowError | null;
}

/** Whether a move job applies or rolls back. */
export type MoveKind = "apply" | "rollback";

/** `lstat`, or undefined when nothing is there. */
export async function lstatOrUndefined(path: string) {
  return lstat(path).catch(() => undefined);
}

/**
 * The rows of `ids` whose current status (read inside the completing transaction) may not move to `to`: in
 * a normal apply or rollback none, so a group reads no row back.
 */
async function refusedStatuses(tx: Queryable, ids: readonly string[], to: RowStatus) {
  const out = new Map<string, RowStatus>();
  if (ids.length === 0) return out;
  const allowed = ROW_STATUSES.filter((from) => canMoveRow(from, to));
  const found = await tx
    .select({ id: rows.id, status: rows.status })
    .from(rows)
    .where(and(inList(rows.id, ids), notInArray(rows.status, allowed)));
  for (const r of found) out.set(r.id, r.status);
  return out;
}

/** Moves each row through the row table (throws ILLEGAL_TRANSITION on a move it forbids). */
async function checkMoves(tx: Queryable, ids: readonly string[], to: RowStatus): Promise<void> {
  const refused = await refusedStatuses(tx, ids, to);
  for (const id of ids) {
    const from = refused.get(id);
    if (from !== undefined) moveRow(from, to, id);
  }
}

/** A failed row's fields: an apply fails the row; a rollback only records the error (the file stays applied). */
function failedFields(kind: MoveKind, f: { error: RowError; attempted: boolean }, at: number) {
  if (kind === "rollback") {
    const drifted = !f.attempted && f.error.code === "SOURCE_CHANGED";
    return { error: f.error, updatedAt: at, ...(drifted ? { sourceChanged: true } : {}) };
  }
  return {
    status: "failed" as const,
    error: f.error,
    updatedAt: at,
    ...(f.error.code === "TARGET_EXISTS" ? { targetOccupied: true } : {}),
    ...(f.error.code === "SOURCE_CHANGED" ? { sourceChanged: true } : {}),
  };
}

async function markDone(tx: Queryable, kind: MoveKind, ids: readonly string[], at: number): Promise<void> {
  if (ids.length === 0) return;
  await tx
    .update(rows)
    .set(
      kind === "apply"
        ? { status: "applied", error: null, updatedAt: at }
        : // Moved back (its ctime, and across devices its inode, changed): a re-apply checks size and mtime.
          {
            status: "rolled_back",
            error: null,
            sourceDev: null,
            sourceIno: null,
            sourceCtime: null,
            updatedAt: at,
          },
    )
    .where(inList(rows.id, ids));
}

/** Row updates and events for completed moves of an apply (or rollback) job, in one transaction. */
export async function completeGroup(
  ctx: EngineContext,
  job: JobRecord,
  kind: MoveKind,
  records: readonly RecordOutcome[],
  failures: readonly Failure[],
  progress: number | undefined,
): Promise<void> {
  const at = ctx.clock();
  // Moves that were attempted and failed, then rows refused before their move.
  const failed: Array<{ rowId: string; error: RowError; attempted: boolean }> = [
    ...records.flatMap(({ record, state, error }) =>
      FILE_OPS.has(record.op) && record.rowId !== null && state !== "done" && error !== null
        ? [{ rowId: record.rowId, error, attempted: true }]
        : [],
    ),
    ...failures.map((f) => ({ rowId: f.row.id, error: f.error, attempted: false })),
  ];
  const doneRows = records.flatMap(({ record, state }) =>
    FILE_OPS.has(record.op) && record.rowId !== null && state === "done" ? [record.rowId] : [],
  );
  const messages = await runTransaction(ctx.db, async (tx) => {
    const out: HubMessage[] = [];
    await completeRecords(
      tx,
      records.map(({ record, state, error }) => ({ id: record.id, state, errorCode: error?.code ?? null })),
      at,
    );
    await checkMoves(tx, doneRows, kind === "apply" ? "applied" : "rolled_back");
    if (kind === "apply")
      await checkMoves(
        tx,
        failed.map((f) => f.rowId),
        "failed",
      );
    for (const f of failed) {
      await tx
        .update(rows)
        .set(failedFields(kind, f, at))
        .where(eq(rows.id, f.rowId));
      out.push(await appendEvent(tx, job.id, "row_failed", { row_id: f.rowId, error: f.error }, at));
    }
    await markDone(tx, kind, doneRows, at);
    if (doneRows.length > 0) {
      const type: JobEventType = kind === "apply" ? "row_applied" : "row_rolled_back";
      out.push(await appendEvent(tx, job.id, type, { row_ids: doneRows, count: doneRows.length }, at));
    }
    if (progress !== undefined) {
      await tx.update(jobs).set({ progress, updatedAt: at }).where(eq(jobs.id, job.id));
      out.push(await appendEvent(tx, job.id, "progress", { progress }, at));
    }
    return out;
  });
  ctx.publish(messages);
}
