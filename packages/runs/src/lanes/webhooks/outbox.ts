import type { IdGenerator, Tx } from "@vetted/store";
import { sql } from "drizzle-orm";
import { isTerminal, isWaiting, type RunStatus } from "../../domain/status.js";
import { isSubscribed, type WebhookEventType } from "../../domain/webhooks.js";
import { webhookDeliveries, webhookEvents, webhooks } from "../../store/schema.js";

/** One event to put in the outbox. */
export interface OutboxEvent {
  type: WebhookEventType;
  /** The run, job or task the event is about. */
  subject: string;
  data: Record<string, unknown>;
}

/**
 * Writes `event` to the webhook outbox inside `tx` (the transaction of the transition it reports), with
 * one pending delivery, due now, for every webhook subscribed to its type. Nothing is written when no
 * webhook subscribes. Returns the number of deliveries queued.
 */
export async function enqueueWebhookEvent(
  tx: Tx,
  event: OutboxEvent,
  at: number,
  newId: IdGenerator,
): Promise<number> {
  // A webhook hears of events from its creation on (a relayed feed may lag behind the transition).
  // Plain SQL, not the query builder: every run's end asks, and most installations have no webhook.
  const hooks = await tx.all<{ id: string; events: string }>(
    sql`select ${webhooks.id}, ${webhooks.events} from ${webhooks} where ${webhooks.createdAt} <= ${at}`,
  );
  const targets = hooks.filter((h) => {
    const events: (typeof webhooks.$inferSelect)["events"] = JSON.parse(h.events);
    return isSubscribed(events, event.type);
  });
  if (targets.length === 0) return 0;
  const eventId = newId("whe");
  await tx.insert(webhookEvents).values({ id: eventId, ...event, createdAt: at });
  await tx.insert(webhookDeliveries).values(
    targets.map((h) => ({
      id: newId("whd"),
      webhookId: h.id,
      eventId,
      eventType: event.type,
      status: "pending" as const,
      attempts: 0,
      nextAttemptAt: at,
      attemptLog: [],
      createdAt: at,
    })),
  );
  return targets.length;
}

/** What a run transition reports to webhooks: the row before and after the write. */
export interface RunTransitionFacts {
  runId: string;
  flowId: string;
  templateId: string | null;
  from: RunStatus;
  to: RunStatus;
  /** Whether the run moved to another step (a second gate after the first is a new wait). */
  moved: boolean;
  reason: string | null;
  error: string | null;
  waitContext: unknown;
  waitExpiresAt: number | null;
}

/**
 * The webhook event of a run's status transition: `run.waiting` when it starts waiting at a gate (or
 * waits again at another), `run.finished` when it ends; none for other moves (see {@link runTransitionEvents}).
 */
export function runTransitionEvent(f: RunTransitionFacts, at: number): OutboxEvent | undefined {
  const base = { run_id: f.runId, flow_id: f.flowId, template_id: f.templateId, status: f.to };
  if (isWaiting(f.to) && (f.from !== f.to || f.moved)) {
    return {
      type: "run.waiting",
      subject: f.runId,
      data: {
        ...base,
        reason: f.reason,
        wait_context: f.waitContext ?? null,
        wait_expires_at: f.waitExpiresAt === null ? null : new Date(f.waitExpiresAt).toISOString(),
        at: new Date(at).toISOString(),
      },
    };
  }
  if (isTerminal(f.to) && !isTerminal(f.from)) {
    return {
      type: "run.finished",
      subject: f.runId,
      data: { ...base, reason: f.reason, error: f.error, at: new Date(at).toISOString() },
    };
  }
  return undefined;
}

/**
 * The webhook events of a run's transition: {@link runTransitionEvent}'s, and `run.failed` besides
 * `run.finished` when the run ends failed (a receiver that only wants failures subscribes to that alone).
 */
export function runTransitionEvents(f: RunTransitionFacts, at: number): OutboxEvent[] {
  const event = runTransitionEvent(f, at);
  if (event === undefined) return [];
  if (event.type === "run.finished" && f.to === "failed") return [event, { ...event, type: "run.failed" }];
  return [event];
}

/** Task statuses that end a task (the automation lane's `success | failed | cancelled`). */
const FINISHED_TASK_STATUSES = new Set(["success", "failed", "cancelled"]);

/** The automation task fields `task.finished` reports (the task view of the automation lane). */
export interface FinishedTaskFacts {
  task_id: string;
  command_id: string;
  status: string;
  attempt?: number | undefined;
  exit_code?: number | null | undefined;
  finished_at?: string | null | undefined;
  message?: string | null | undefined;
}

/**
 * The automation lane's transition hook for webhooks: call it inside the transaction that moves a task
 * (`onTransition(tx, task)`); when the task has reached a final status it queues `task.finished`. Returns
 * the number of deliveries queued.
 */
export function createTaskFinishedHook(newId: IdGenerator, now: () => number = Date.now) {
  return async (tx: Tx, task: FinishedTaskFacts): Promise<number> => {
    if (!FINISHED_TASK_STATUSES.has(task.status)) return 0;
    const data: Record<string, unknown> = {
      task_id: task.task_id,
      command_id: task.command_id,
      status: task.status,
      attempt: task.attempt ?? null,
      exit_code: task.exit_code ?? null,
      finished_at: task.finished_at ?? null,
      message: task.message ?? null,
    };
    return enqueueWebhookEvent(tx, { type: "task.finished", subject: task.task_id, data }, now(), newId);
  };
}

/** The run row fields {@link queueRunWebhook} reads. */
interface RunSide {
  id: string;
  flowId: string;
  templateId: string | null;
  status: RunStatus;
  cursor: number;
  reason: string | null;
  error: string | null;
  waitContext: unknown;
  waitExpiresAt: number | null;
}

/** Queues the webhook event of a run's transition from `before` to `after`, in the transition's `tx`. */
export async function queueRunWebhook(
  tx: Tx,
  before: RunSide,
  after: Omit<RunSide, "id" | "flowId" | "templateId">,
  at: number,
  newId: IdGenerator,
): Promise<void> {
  const events = runTransitionEvents(
    {
      runId: before.id,
      flowId: before.flowId,
      templateId: before.templateId,
      from: before.status,
      to: after.status,
      moved: before.cursor !== after.cursor,
      reason: after.reason,
      error: after.error,
      waitContext: after.waitContext,
      waitExpiresAt: after.waitExpiresAt,
    },
    at,
  );
  for (const event of events) await enqueueWebhookEvent(tx, event, at, newId);
}
