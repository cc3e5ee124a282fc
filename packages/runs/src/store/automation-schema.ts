import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { OwnerProcess, TaskProcessRecord } from "../domain/automation.js";
import { TASK_REASONS, TASK_STATUSES, type TaskReason, type TaskStatus } from "../domain/task-status.js";

/*
 * The tables of the automation command lane: tasks and their output lines. Re-exported by `schema.ts`, so
 * drizzle-kit and `migrate()` see them with the others.
 */

/** Tasks: a command's run with its attempts, lease, outcome and the tail of its output. */
export const automationTasks = sqliteTable(
  "runs_automation_tasks",
  {
    id: text("id").primaryKey(),
    commandId: text("command_id").notNull(),
    status: text("status", { enum: TASK_STATUSES }).$type<TaskStatus>().notNull(),
    /** The params as `v1:` ciphertext under the secrets key (they may hold secrets; retries need them). */
    params: text("params").notNull(),
    attempt: integer("attempt").notNull(),
    maxAttempts: integer("max_attempts").notNull(),
    exitCode: integer("exit_code"),
    message: text("message"),
    reason: text("reason", { enum: TASK_REASONS }).$type<TaskReason>(),
    /** Secrets redacted; the last `OUTPUT_TAIL_LINES` lines. */
    outputTail: text("output_tail", { mode: "json" }).$type<string[]>().notNull(),
    /** The next output sequence number (lines and the end marker are numbered from 1). */
    outputSeq: integer("output_seq").notNull(),
    cancelRequested: integer("cancel_requested", { mode: "boolean" }).notNull(),
    /** A queued task is not claimed before this (retry backoff). */
    notBefore: integer("not_before").notNull(),
    /** The process running it (its worker id) and until when its lease holds without a heartbeat. */
    owner: text("owner"),
    leaseUntil: integer("lease_until"),
    /** The owner's host, boot id, pid and start time: a task whose owner died is recovered at once. */
    ownerProcess: text("owner_process", { mode: "json" }).$type<OwnerProcess>(),
    /** The running attempt's process group and its leader's start time: killed before a recovery. */
    process: text("process", { mode: "json" }).$type<TaskProcessRecord>(),
    idempotencyKey: text("idempotency_key"),
    /** A keyed digest of the request the key was first used with. */
    requestHash: text("request_hash"),
    createdAt: integer("created_at").notNull(),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("runs_automation_tasks_created_idx").on(t.createdAt, t.id),
    index("runs_automation_tasks_status_idx").on(t.status, t.notBefore),
    uniqueIndex("runs_automation_tasks_idem_idx").on(t.idempotencyKey),
  ],
);

/** Output lines of tasks (stdout, stderr, the lane's own notes) and the end marker, numbered per task. */
export const automationOutput = sqliteTable(
  "runs_automation_output",
  {
    taskId: text("task_id").notNull(),
    seq: integer("seq").notNull(),
    kind: text("kind", { enum: ["stdout", "stderr", "system", "end"] }).notNull(),
    /** Secrets redacted. */
    line: text("line").notNull(),
    at: integer("at").notNull(),
  },
  (t) => [uniqueIndex("runs_automation_output_task_seq_idx").on(t.taskId, t.seq)],
);
