import { type Clock, type IdGenerator, runTransaction, type Tx } from "@vetted/store";
import { and, asc, count, eq, gt, gte, lt } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { RunVault } from "../../core/run-vault.js";
import {
  type AutomationTask,
  appendTail,
  canMoveTask,
  type OwnerProcess,
  TASK_STATUSES,
  type TaskProcessRecord,
  type TaskReason,
  type TaskStatus,
} from "../../domain/automation.js";
import { IdempotencyKeyReusedError, IllegalTransitionError } from "../../kernel/errors.js";
import { automationOutput, automationTasks } from "../../store/schema.js";
import { QueueFullError, TaskNotFoundError } from "./automation-errors.js";

/** A stored task row. */
export type TaskRow = typeof automationTasks.$inferSelect;

/** One stored output line (or the end marker) of a task. */
export interface OutputEntry {
  seq: number;
  kind: "stdout" | "stderr" | "system" | "end";
  line: string;
  at: number;
}

/** A task's status change, as `onTransition` sees it: inside the transition's own transaction. */
export interface TaskTransition {
  from: TaskStatus;
  task: AutomationTask;
}

/** Runs extra writes in the transaction of every task status change (e.g. a webhooks outbox). */
export type OnTaskTransition = (tx: Tx, change: TaskTransition) => Promise<void>;

/** What the task store works with. */
export interface TaskStore {
  db: LibSQLDatabase;
  clock: Clock;
  ids: IdGenerator;
  vault: RunVault;
  workerId: string;
  onTransition?: OnTaskTransition | undefined;
  /** Tells in-process stream subscribers of a task's new output entries. */
  publish(taskId: string, entries: OutputEntry[]): void;
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The API view of a task row. */
export function toTask(row: TaskRow): AutomationTask {
  return {
    task_id: row.id,
    command_id: row.commandId,
    status: row.status,
    attempt: row.attempt,
    max_attempts: row.maxAttempts,
    exit_code: row.exitCode,
    created_at: new Date(row.createdAt).toISOString(),
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    output_tail: row.outputTail,
    message: row.message,
    reason: row.reason,
    cancel_requested: row.cancelRequested,
  };
}

/** The task row. @throws TASK_NOT_FOUND */
export async function readTask(db: LibSQLDatabase | Tx, taskId: string): Promise<TaskRow> {
  const [row] = await db.select().from(automationTasks).where(eq(automationTasks.id, taskId)).limit(1);
  if (row === undefined) throw new TaskNotFoundError(taskId);
  return row;
}

/** The params a task was created with (sealed at rest). */
export function openParams(s: TaskStore, row: TaskRow): Record<string, unknown> {
  const text = s.vault.openText(row.id, "automation-params", row.params);
  return text === undefined ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** Appends entries to a task's output in `tx`: numbered rows, the redacted tail, the next sequence number. */
async function appendInTx(tx: Tx, row: TaskRow, drafts: Omit<OutputEntry, "seq">[]): Promise<OutputEntry[]> {
  if (drafts.length === 0) return [];
  const entries = drafts.map((d, i) => ({ ...d, seq: row.outputSeq + i }));
  await tx.insert(automationOutput).values(entries.map((e) => ({ taskId: row.id, ...e })));
  const shown = entries.filter((e) => e.kind !== "end").map((e) => e.line);
  await tx
    .update(automationTasks)
    .set({ outputSeq: row.outputSeq + entries.length, outputTail: appendTail(row.outputTail, shown) })
    .where(eq(automationTasks.id, row.id));
  return entries;
}

/** Appends output lines of a running task (already redacted). */
export async function appendOutput(
  s: TaskStore,
  taskId: string,
  drafts: Omit<OutputEntry, "seq">[],
): Promise<void> {
  if (drafts.length === 0) return;
  const entries = await runTransaction(s.db, async (tx) =>
    appendInTx(tx, await readTask(tx, taskId), drafts),
  );
  s.publish(taskId, entries);
}

/** What a new task is made of. */
export interface NewTask {
  commandId: string;
  params: Record<string, unknown>;
  maxAttempts: number;
  idempotencyKey?: string | undefined;
  requestHash: string;
  queueMax: number;
}

/** The task an earlier request with this key created. @throws IDEMPOTENCY_KEY_REUSED on another body */
async function findByKey(db: LibSQLDatabase | Tx, key: string, hash: string): Promise<TaskRow | undefined> {
  const [hit] = await db
    .select()
    .from(automationTasks)
    .where(eq(automationTasks.idempotencyKey, key))
    .limit(1);
  if (hit !== undefined && hit.requestHash !== hash) throw new IdempotencyKeyReusedError();
  return hit;
}

/** Queues a task (or answers the one created under the same `Idempotency-Key`). @throws QUEUE_FULL */
export async function insertTask(s: TaskStore, input: NewTask): Promise<AutomationTask> {
  const key = input.idempotencyKey;
  const create = () =>
    runTransaction(s.db, async (tx) => {
      if (key !== undefined) {
        const hit = await findByKey(tx, key, input.requestHash);
        if (hit !== undefined) return hit;
      }
      const [queued] = await tx
        .select({ n: count() })
        .from(automationTasks)
        .where(eq(automationTasks.status, "queued"));
      if ((queued?.n ?? 0) >= input.queueMax) throw new QueueFullError(queued?.n ?? 0, 1);
      const now = s.clock.now();
      const id = s.ids("task");
      const row: TaskRow = {
        id,
        commandId: input.commandId,
        status: "queued",
        params: s.vault.sealText(id, "automation-params", JSON.stringify(input.params)),
        attempt: 0,
        maxAttempts: input.maxAttempts,
        exitCode: null,
        message: null,
        reason: null,
        outputTail: [],
        outputSeq: 1,
        cancelRequested: false,
        notBefore: now,
        owner: null,
        leaseUntil: null,
        ownerProcess: null,
        process: null,
        idempotencyKey: key ?? null,
        requestHash: key === undefined ? null : input.requestHash,
        createdAt: now,
        startedAt: null,
        finishedAt: null,
        updatedAt: now,
      };
      await tx.insert(automationTasks).values(row);
      return row;
    });
  try {
    return toTask(await create());
  } catch (err) {
    // Another process inserted the same key between our read and our insert: answer its task.
    const hit = key === undefined ? undefined : await findByKey(s.db, key, input.requestHash);
    if (hit !== undefined) return toTask(hit);
    throw err;
  }
}

/** What a status change writes besides the status. */
export interface TransitionPatch {
  attempt?: number;
  exitCode?: number | null;
  message?: string | null;
  reason?: TaskReason | null;
  notBefore?: number;
  owner?: string | null;
  leaseUntil?: number | null;
  ownerProcess?: OwnerProcess | null;
  process?: TaskProcessRecord | null;
  startedAt?: number;
  /** Lines recorded with the change (system notes); an `end` marker is added when the task ends. */
  lines?: string[];
}

/**
 * Moves a task from `from` to `to` with a compare-and-set on its status (and, when given, on the process
 * holding it or on its lease having run out), appends its notes, and runs `onTransition` in the same transaction. Answers
 * undefined when the task was no longer `from` (someone else moved it first).
 */
export async function moveTask(
  s: TaskStore,
  taskId: string,
  from: TaskStatus,
  to: TaskStatus,
  patch: TransitionPatch,
  guard: { owner?: string; leaseExpiredBefore?: number } = {},
): Promise<AutomationTask | undefined> {
  if (!canMoveTask(from, to)) throw new IllegalTransitionError(from, to);
  const result = await runTransaction(s.db, async (tx) => {
    const now = s.clock.now();
    const ended = to === "success" || to === "failed" || to === "cancelled";
    const { lines = [], ...fields } = patch;
    const where = and(
      eq(automationTasks.id, taskId),
      eq(automationTasks.status, from),
      ...(guard.owner === undefined ? [] : [eq(automationTasks.owner, guard.owner)]),
      ...(guard.leaseExpiredBefore === undefined
        ? []
        : [lt(automationTasks.leaseUntil, guard.leaseExpiredBefore)]),
    );
    const moved = await tx
      .update(automationTasks)
      .set({ ...fields, status: to, updatedAt: now, ...(ended ? { finishedAt: now, leaseUntil: null } : {}) })
      .where(where)
      .returning({ id: automationTasks.id });
    if (moved.length === 0) return undefined;
    const row = await readTask(tx, taskId);
    const drafts: Omit<OutputEntry, "seq">[] = lines.map((line) => ({ kind: "system", line, at: now }));
    if (ended) drafts.push({ kind: "end", line: to, at: now });
    const entries = await appendInTx(tx, row, drafts);
    const task = toTask(await readTask(tx, taskId));
    await s.onTransition?.(tx, { from, task });
    return { task, entries };
  });
  if (result === undefined) return undefined;
  s.publish(taskId, result.entries);
  return result.task;
}

/** Flags a running task for cancellation (its process aborts it at the next heartbeat or at once). */
export async function requestCancel(s: TaskStore, taskId: string): Promise<void> {
  await runTransaction(s.db, (tx) =>
    tx
      .update(automationTasks)
      .set({ cancelRequested: true, updatedAt: s.clock.now() })
      .where(and(eq(automationTasks.id, taskId), eq(automationTasks.status, "running"))),
  );
}

/** A task's output entries after `after`, oldest first. */
export async function listOutput(
  db: LibSQLDatabase,
  taskId: string,
  after: number,
  limit: number,
): Promise<OutputEntry[]> {
  return db
    .select({
      seq: automationOutput.seq,
      kind: automationOutput.kind,
      line: automationOutput.line,
      at: automationOutput.at,
    })
    .from(automationOutput)
    .where(and(eq(automationOutput.taskId, taskId), gt(automationOutput.seq, after)))
    .orderBy(asc(automationOutput.seq))
    .limit(limit);
}

/** How many tasks have each status (every status present, zero when none). */
export async function countTasks(db: LibSQLDatabase): Promise<Record<TaskStatus, number>> {
  const rows = await db
    .select({ status: automationTasks.status, n: count() })
    .from(automationTasks)
    .groupBy(automationTasks.status);
  const counts = Object.fromEntries(TASK_STATUSES.map((status) => [status, 0])) as Record<TaskStatus, number>;
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}

/** How many tasks finished (success, failed, cancelled) at or after `since` (epoch ms). */
export async function countTasksFinishedSince(
  db: LibSQLDatabase,
  since: number,
): Promise<{ success: number; failed: number; cancelled: number }> {
  const rows = await db
    .select({ status: automationTasks.status, n: count() })
    .from(automationTasks)
    .where(gte(automationTasks.finishedAt, since))
    .groupBy(automationTasks.status);
  const out = { success: 0, failed: 0, cancelled: 0 };
  for (const row of rows) {
    if (row.status === "success" || row.status === "failed" || row.status === "cancelled")
      out[row.status] = row.n;
  }
  return out;
}
