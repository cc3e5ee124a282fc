import { executeAttempt } from "./attempt.js";
import type { AutomationResources } from "./resources.js";
import { claimNext, heartbeat, orphanedTasks } from "./task-claims.js";
import { killTaskProcesses } from "./task-processes.js";
import { moveTask, type TaskRow } from "./task-store.js";

/** An attempt this process is running. */
interface Live {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * This process's task worker: claims due queued tasks up to `maxParallel`, runs them, keeps their leases
 * alive (and learns of cancellations from other processes) with a heartbeat, and recovers tasks whose
 * process died: failed `INTERRUPTED`, or re-queued when their command is idempotent.
 */
export class AutomationWorker {
  readonly live = new Map<string, Live>();
  private poller: ReturnType<typeof setInterval> | undefined;
  private beater: ReturnType<typeof setInterval> | undefined;
  private ticking = false;
  private stopped = true;

  constructor(private readonly r: AutomationResources) {}

  /** Recovers expired tasks once, then polls. Idempotent. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    await this.recover();
    this.poller = setInterval(() => this.wake(), this.r.pollMs);
    this.beater = setInterval(() => void this.beat(), Math.max(50, Math.floor(this.r.leaseMs / 3)));
    this.wake();
  }

  /** Looks for work now (after a new task was queued). */
  wake(): void {
    if (this.stopped || this.ticking) return;
    this.ticking = true;
    this.tick()
      .catch((err: unknown) => this.r.onError("automation: worker tick failed", err))
      .finally(() => {
        this.ticking = false;
      });
  }

  private async tick(): Promise<void> {
    await this.recover();
    while (!this.stopped && this.live.size < this.r.maxParallel) {
      const row = await claimNext(this.r, this.r.leaseMs);
      if (row === undefined) return;
      this.run(row);
    }
  }

  private run(row: TaskRow): void {
    const controller = new AbortController();
    const done = executeAttempt(this.r, row, controller)
      .catch((err: unknown) => this.r.onError(`automation: task ${row.id} failed unexpectedly`, err))
      .finally(() => {
        this.live.delete(row.id);
        this.wake();
      });
    this.live.set(row.id, { controller, done });
  }

  /** Extends the leases of live tasks and aborts those cancelled from another process. */
  private async beat(): Promise<void> {
    try {
      const cancelled = await heartbeat(this.r, [...this.live.keys()], this.r.leaseMs);
      for (const taskId of cancelled) this.abort(taskId, "cancel");
    } catch (err) {
      this.r.onError("automation: heartbeat failed", err);
    }
  }

  /**
   * Recovers running tasks whose process died (lease run out, or owner gone from this machine): first
   * ends every process the task left behind (its recorded group, its marked and descendant processes:
   * SIGTERM, SIGKILL after the grace), then fails it `INTERRUPTED`, or re-queues it when its command is
   * idempotent — so a survivor never runs beside a second attempt. Answers how many were recovered.
   */
  async recover(): Promise<number> {
    let recovered = 0;
    for (const { row, guard } of await orphanedTasks(this.r)) {
      if (this.live.has(row.id)) continue;
      const killed = await killTaskProcesses(row.id, row.process, this.r.killGraceMs);
      const reaped = killed > 0 ? [`ended ${killed} process(es) the task left running`] : [];
      const idempotent = this.r.registry.has(row.commandId) && this.r.registry.get(row.commandId).idempotent;
      const moved = idempotent
        ? await moveTask(
            this.r,
            row.id,
            "running",
            "queued",
            {
              owner: null,
              ownerProcess: null,
              process: null,
              leaseUntil: null,
              notBefore: this.r.clock.now(),
              lines: [
                ...reaped,
                "INTERRUPTED: the process running this task stopped; re-queued (the command is idempotent)",
              ],
            },
            guard,
          )
        : await moveTask(
            this.r,
            row.id,
            "running",
            "failed",
            {
              reason: "INTERRUPTED",
              message: "INTERRUPTED: the process running this task stopped before it ended",
              lines: reaped,
            },
            guard,
          );
      if (moved !== undefined) recovered++;
    }
    return recovered;
  }

  /** Aborts a live attempt; answers whether this process runs it. */
  abort(taskId: string, why: "cancel" | "shutdown"): boolean {
    const live = this.live.get(taskId);
    if (live === undefined) return false;
    if (!live.controller.signal.aborted) live.controller.abort(why);
    return true;
  }

  /** Resolves once the live attempt of `taskId` ended (at once when there is none), or after `ms`. */
  async settled(taskId: string, ms: number): Promise<void> {
    const live = this.live.get(taskId);
    if (live === undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([live.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    if (timer !== undefined) clearTimeout(timer);
  }

  /** Stops claiming, aborts live attempts (their processes are killed; tasks fail or re-queue), waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poller !== undefined) clearInterval(this.poller);
    if (this.beater !== undefined) clearInterval(this.beater);
    const pending = [...this.live.values()].map((l) => l.done);
    for (const taskId of this.live.keys()) this.abort(taskId, "shutdown");
    await Promise.all(pending);
  }
}
