import { runTransaction } from "@vetted/store";
import { confinedFs } from "../confined-fs.js";
import { folderScope } from "../confined-moves.js";
import type { InspectPool } from "../inspect-pool.js";
import { type JournalDraft, type JournalRecord, recordCopyInode, writeIntents } from "../journal.js";
import {
  linkMovesOnThreads,
  MOVE_CONCURRENCY,
  type MoveOutcome,
  type MoveScope,
  moveOne,
} from "../move-steps.js";
import { mapLimit } from "../pool.js";
import type { JobRun } from "../run.js";
import { copyOne, uncopyOne } from "./copy-steps.js";
import {
  completeGroup,
  type Failure,
  type MoveKind,
  type MoveOptions,
  type PlannedMove,
  type RecordOutcome,
} from "./group.js";
import { moveTrashOne } from "./trash-moves.js";

/** What one executed group did. */
export interface GroupOutcome {
  moved: number;
  /** Of those, the copies made (apply) or removed (rollback). */
  copied: number;
  bytes: number;
  failed: number;
  /** Rows whose move failed on drift or an occupied target (they reopen as conflicts). */
  occupied: string[];
  byCode: Record<string, number>;
  /** The moves done: where each file was and where it is now. */
  done: Array<{ from: string; to: string }>;
}

/** A journal intent of `op` on `toPath` (and `fromPath`) for `jobId`. */
export function intentOf(
  jobId: string,
  at: number,
  op: JournalDraft["op"],
  toPath: string,
  move?: { rowId: string; fromPath: string; sha256: string | null; size: number },
): JournalDraft {
  return {
    jobId,
    rowId: move?.rowId ?? null,
    op,
    fromPath: move?.fromPath ?? null,
    toPath,
    sha256: move?.sha256 ?? null,
    size: move?.size ?? null,
    state: "intent",
    errorCode: null,
    createdAt: at,
    completedAt: null,
    copyDev: null,
    copyIno: null,
  };
}

function makeFolders(records: readonly JournalRecord[], scope: MoveScope): RecordOutcome[] {
  const out: RecordOutcome[] = [];
  for (const record of records) {
    if (record.op !== "mkdir") continue;
    const made = confinedFs.mkdirIn(folderScope(scope.allowed, scope.folders, record.toPath), record.toPath);
    // EEXIST: someone else made it; it is not ours to remove later
    out.push(
      made.code === undefined
        ? { record, state: "done", error: null }
        : {
            record,
            state: made.code === "EEXIST" ? "not_done" : "failed",
            error: { code: made.code, message: made.code },
          },
    );
  }
  return out;
}

/** Planned moves of one group, as {@link executeGroup} takes them. */
export interface PlannedGroup {
  moves: readonly PlannedMove[];
  mkdirs: readonly string[];
  failures: readonly Failure[];
}

/** A group whose intents are committed and whose folders are made: its moves may start. */
export interface JournaledGroup {
  planned: PlannedGroup;
  records: readonly JournalRecord[];
  /** The outcomes of its folders (made right after the commit). */
  folders: RecordOutcome[];
  at: number;
}

/**
 * The first step of a group: every intent (folders and moves) committed in one transaction, then the
 * folders made. Nothing of the group moves before this resolves: the journal is written ahead of every move.
 */
export async function journalGroup(
  run: JobRun,
  options: MoveOptions,
  planned: PlannedGroup,
  scope: MoveScope,
): Promise<JournaledGroup> {
  const { ctx, job } = run;
  const at = ctx.clock();
  const drafts: JournalDraft[] = [
    ...planned.mkdirs.map((dir) => intentOf(job.id, at, "mkdir", dir)),
    ...planned.moves.map((m) =>
      intentOf(job.id, at, m.trash?.op ?? m.copy ?? "move", m.to, {
        rowId: m.row.id,
        fromPath: m.from,
        sha256: m.row.sha256,
        size: m.row.size,
      }),
    ),
  ];
  const records =
    drafts.length === 0 ? [] : await runTransaction(ctx.db, (tx) => writeIntents(tx, options.signer, drafts));
  return { planned, records, folders: makeFolders(records, scope), at };
}

/** The moves of a journaled group: links on the file threads (or copies, trash moves), in their outcomes. */
async function moveJournaled(
  run: JobRun,
  options: MoveOptions,
  journaled: JournaledGroup,
  scope: MoveScope,
  files: InspectPool | undefined,
): Promise<MoveOutcome[]> {
  const { ctx } = run;
  const { planned, records, at } = journaled;
  const moveRecords = records.filter((r) => r.op === "move");
  const identities = new Map(planned.moves.map((m) => [m.row.id, m.identity]));
  // Moves of one group touch distinct paths, so they run a few at a time.
  const moveOutcomes =
    files === undefined || options.forceCopy
      ? await mapLimit(moveRecords, MOVE_CONCURRENCY, (record) =>
          moveOne(record, identities.get(record.rowId ?? "") ?? null, scope, options.forceCopy),
        )
      : await linkMovesOnThreads(files, moveRecords, identities, scope);
  const trashMoves = new Map(planned.moves.flatMap((m) => (m.trash === undefined ? [] : [[m.row.id, m]])));
  moveOutcomes.push(
    ...(await mapLimit(
      records.filter((r) => r.op === "trash" || r.op === "untrash"),
      MOVE_CONCURRENCY,
      (record) => {
        const move = trashMoves.get(record.rowId ?? "");
        if (move === undefined) throw new Error(`no planned trash move for journal record ${record.id}`);
        return moveTrashOne(record, move, scope, options.forceCopy, at);
      },
    )),
  );
  moveOutcomes.push(
    ...(await mapLimit(
      records.filter((r) => r.op === "copy" || r.op === "uncopy"),
      MOVE_CONCURRENCY,
      async (record) =>
        record.op === "copy"
          ? copyOne(record, identities.get(record.rowId ?? "") ?? null, scope, (inode) =>
              recordCopyInode(ctx.db, options.signer, record, inode),
            )
          : uncopyOne(record, identities.get(record.rowId ?? "") ?? null, scope.source),
    )),
  );
  return moveOutcomes;
}

/**
 * The second step of a group whose intents are committed ({@link journalGroup}): its moves, then its
 * completions and rows in one transaction.
 */
export async function runJournaledGroup(
  run: JobRun,
  options: MoveOptions,
  kind: MoveKind,
  journaled: JournaledGroup,
  progress: number,
  scope: MoveScope,
  files?: InspectPool,
): Promise<GroupOutcome> {
  const { planned } = journaled;
  const outcomes = [...journaled.folders];
  const result: GroupOutcome = {
    moved: 0,
    copied: 0,
    bytes: 0,
    failed: planned.failures.length,
    occupied: [],
    byCode: {},
    done: [],
  };
  for (const o of await moveJournaled(run, options, journaled, scope, files)) {
    outcomes.push(o);
    if (o.state === "done") {
      result.moved++;
      result.bytes += o.record.size ?? 0;
      // A copy leaves its source where it is: no link to it dangles.
      if (o.record.op === "copy" || o.record.op === "uncopy") result.copied++;
      else result.done.push({ from: o.record.fromPath ?? "", to: o.record.toPath });
    } else {
      result.failed++;
      result.byCode[o.error.code] = (result.byCode[o.error.code] ?? 0) + 1;
      const reopens = o.error.code === "TARGET_EXISTS" || o.error.code === "SOURCE_CHANGED";
      if (reopens && o.record.rowId !== null) result.occupied.push(o.record.rowId);
    }
  }
  await completeGroup(run.ctx, run.job, kind, outcomes, planned.failures, progress);
  return result;
}

/** Executes planned moves as one journaled group: intents committed first, then the moves, then completions. */
export async function executeGroup(
  run: JobRun,
  options: MoveOptions,
  kind: MoveKind,
  planned: PlannedGroup,
  progress: number,
  scope: MoveScope,
  files?: InspectPool,
): Promise<GroupOutcome> {
  const journaled = await journalGroup(run, options, planned, scope);
  return runJournaledGroup(run, options, kind, journaled, progress, scope, files);
}
