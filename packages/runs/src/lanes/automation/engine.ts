import { decodeCursor, encodeCursor, type KeysetPage, toKeysetPage } from "@vetted/store";
import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import { canonicalJson } from "../../core/idempotency.js";
import { type ListQuery, pageLimit } from "../../core/lists.js";
import {
  type AutomationTask,
  type CommandInfo,
  isTaskTerminal,
  RunTaskInput,
  type TaskStatus,
} from "../../domain/automation.js";
import { InvalidInputError } from "../../kernel/errors.js";
import { ActionRefusedError } from "../../kernel/lane-errors.js";
import { automationTasks } from "../../store/schema.js";
import { TaskFinishedError } from "./automation-errors.js";
import type { OutputListener } from "./output-hub.js";
import {
  type AutomationEngineOptions,
  type AutomationResources,
  createAutomationResources,
} from "./resources.js";
import {
  countTasks,
  countTasksFinishedSince,
  insertTask,
  listOutput,
  moveTask,
  type OutputEntry,
  readTask,
  requestCancel,
  toTask,
} from "./task-store.js";
import { AutomationWorker } from "./worker.js";

const LIST = "automation-tasks";

/** `GET /api/automation/tasks` filters. */
export interface TaskListQuery extends ListQuery {
  status?: TaskStatus | undefined;
  command_id?: string | undefined;
}

/** Queues a task of an allowlisted command. @throws COMMAND_NOT_FOUND, CONFIRMATION_REQUIRED, PARAMS_INVALID, QUEUE_FULL, IDEMPOTENCY_KEY_REUSED */
async function runCommand(
  r: AutomationResources,
  worker: AutomationWorker,
  body: unknown,
  options: { idempotencyKey?: string | undefined } = {},
): Promise<AutomationTask> {
  const parsed = RunTaskInput.safeParse(body);
  if (!parsed.success) {
    throw new InvalidInputError(
      "REQUEST_INVALID",
      `Invalid run request: ${parsed.error.issues.map((i) => i.message).join("; ")}`,
    );
  }
  const input = parsed.data;
  const command = r.registry.get(input.command_id);
  if (command.highRisk && input.confirm !== true) {
    throw new ActionRefusedError(
      "CONFIRMATION_REQUIRED",
      `${command.id} is marked high-risk: send "confirm": true to run it.`,
      { command_id: command.id },
    );
  }
  const params = r.registry.parseParams(command, input.params);
  await command.precheck?.(params);
  const task = await insertTask(r, {
    commandId: command.id,
    params,
    maxAttempts: command.retries + 1,
    idempotencyKey: options.idempotencyKey,
    requestHash: r.vault.digest(
      canonicalJson({ command_id: command.id, params, confirm: input.confirm === true }),
    ),
    queueMax: r.queueMax,
  });
  worker.wake();
  return task;
}

/** Tasks newest first, by status and/or command. @throws CURSOR_INVALID */
async function listTasks(
  r: AutomationResources,
  query: TaskListQuery = {},
): Promise<KeysetPage<AutomationTask>> {
  const limit = pageLimit(query.limit);
  const conditions: (SQL | undefined)[] = [];
  if (query.status !== undefined) conditions.push(eq(automationTasks.status, query.status));
  if (query.command_id !== undefined) conditions.push(eq(automationTasks.commandId, query.command_id));
  if (query.cursor !== undefined) {
    const [createdAt, id] = decodeCursor(query.cursor, LIST, ["integer", "string"]);
    conditions.push(
      or(
        lt(automationTasks.createdAt, Number(createdAt)),
        and(eq(automationTasks.createdAt, Number(createdAt)), lt(automationTasks.id, String(id))),
      ),
    );
  }
  const rows = await r.db
    .select()
    .from(automationTasks)
    .where(and(...conditions))
    .orderBy(desc(automationTasks.createdAt), desc(automationTasks.id))
    .limit(limit + 1);
  return toKeysetPage(rows, limit, toTask, (last) => encodeCursor(LIST, [last.createdAt, last.id]));
}

/**
 * Cancels a task: a queued one at once; a running one is flagged and its process group killed (SIGTERM,
 * then SIGKILL after the grace period) by the process running it — here at once, elsewhere at its next
 * heartbeat. Answers the task as it stands after up to `killGraceMs` + 2 s. @throws TASK_NOT_FOUND, TASK_FINISHED
 */
async function cancelTask(
  r: AutomationResources,
  worker: AutomationWorker,
  taskId: string,
): Promise<AutomationTask> {
  for (let round = 0; round < 3; round++) {
    const row = await readTask(r.db, taskId);
    if (isTaskTerminal(row.status)) {
      if (round === 0) throw new TaskFinishedError(taskId, row.status);
      return toTask(row);
    }
    if (row.status === "queued") {
      const moved = await moveTask(r, taskId, "queued", "cancelled", {
        reason: "CANCELLED",
        message: "cancelled before it started",
      });
      if (moved !== undefined) return moved;
      continue; // claimed meanwhile: cancel the running attempt
    }
    await requestCancel(r, taskId);
    if (worker.abort(taskId, "cancel")) await worker.settled(taskId, r.killGraceMs + 2_000);
    const after = await readTask(r.db, taskId);
    if (after.status !== "queued") return toTask(after);
  }
  return toTask(await readTask(r.db, taskId));
}

/**
 * Creates the automation command lane's engine: an allowlist of commands (the port), durable tasks in the
 * database with a state machine, this process's worker (concurrency cap, timeouts, retries with backoff
 * and jitter, heartbeat leases, crash recovery), and output streams.
 */
export function createAutomationEngine(options: AutomationEngineOptions) {
  const r = createAutomationResources(options);
  const worker = new AutomationWorker(r);
  return {
    workerId: r.workerId,
    /** The allowlist. */
    listCommands: (): CommandInfo[] => r.registry.list(),
    /** Queues a task of a command (`{command_id, params, confirm?}`); the same `idempotencyKey` answers the same task. */
    runCommand: (body: unknown, opts?: { idempotencyKey?: string | undefined }) =>
      runCommand(r, worker, body, opts),
    /** One task. @throws TASK_NOT_FOUND */
    getTask: async (taskId: string) => toTask(await readTask(r.db, taskId)),
    listTasks: (query?: TaskListQuery) => listTasks(r, query),
    cancelTask: (taskId: string) => cancelTask(r, worker, taskId),
    /** A task's stored output entries after `after` (the last one is `kind: "end"` once it ended). */
    listOutput: (taskId: string, after: number, limit = 500): Promise<OutputEntry[]> =>
      listOutput(r.db, taskId, after, limit),
    /** New output entries of a task as this process commits them. Returns the unsubscribe. */
    subscribeOutput: (taskId: string, listener: OutputListener) => r.hub.subscribe(taskId, listener),
    /** How many tasks have each status (for diagnostics and alerts). */
    taskCounts: () => countTasks(r.db),
    /** How many tasks finished at or after `since` (epoch ms), by outcome (the alerts' failure rate). */
    finishedSince: (since: number) => countTasksFinishedSince(r.db, since),
    /** Fails (or re-queues, for idempotent commands) running tasks whose process died; how many. */
    recoverInterrupted: () => worker.recover(),
    /** Recovers interrupted tasks, then starts this process's worker. Idempotent. */
    start: () => worker.start(),
    /** Stops the worker: live attempts are aborted (processes killed), their tasks failed `INTERRUPTED` or re-queued. */
    stop: async () => {
      await worker.stop();
      r.hub.close();
    },
  };
}

/** The automation engine. */
export type AutomationEngine = ReturnType<typeof createAutomationEngine>;
