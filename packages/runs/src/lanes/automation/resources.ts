import { type Clock, type IdGenerator, randomIds, systemClock } from "@vetted/store";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { createRunVault } from "../../core/run-vault.js";
import type { AutomationCommand, CommandRegistry } from "./commands.js";
import { createCommandRegistry } from "./commands.js";
import { createOutputHub, type OutputHub } from "./output-hub.js";
import type { OnTaskTransition, TaskStore } from "./task-store.js";

/** What {@link createAutomationEngine} is built from. */
export interface AutomationEngineOptions {
  db: LibSQLDatabase;
  /** The installation's 32-byte secrets key: task params are sealed with it at rest. */
  secretsKey: Buffer;
  /** The allowlist: built-ins and operator commands. */
  commands: readonly AutomationCommand[];
  clock?: Clock;
  ids?: IdGenerator;
  /** Tasks this process runs at once (default 2). */
  maxParallel?: number;
  /** Queued tasks at most; one more is refused `QUEUE_FULL` (default 100). */
  queueMax?: number;
  /** How long a running task stays leased to this process without a heartbeat (default 30 000 ms). */
  leaseMs?: number;
  /** How often the worker looks for due tasks and expired leases (default 250 ms). */
  pollMs?: number;
  /** Milliseconds between SIGTERM and SIGKILL of an aborted process group (default 5 000). */
  killGraceMs?: number;
  /** The first retry's backoff ceiling (default 1 000 ms), doubled per attempt up to `retryMaxMs` (60 000). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** The jitter's random source (default `Math.random`). */
  random?: () => number;
  /**
   * Extra writes in the transaction of every task status change (`change.task.status` is the new one):
   * e.g. a webhooks outbox row on `task.finished`. Throwing rolls the change back.
   */
  onTransition?: OnTaskTransition;
  /** An unexpected error in background work (logged by the host, never thrown). */
  onError?: (message: string, err: unknown) => void;
}

/** The shared resources of the automation modules. */
export interface AutomationResources extends TaskStore {
  registry: CommandRegistry;
  hub: OutputHub;
  maxParallel: number;
  queueMax: number;
  leaseMs: number;
  pollMs: number;
  killGraceMs: number;
  retryBaseMs: number;
  retryMaxMs: number;
  random: () => number;
  onError: (message: string, err: unknown) => void;
}

/** Builds the resources from the options, with their defaults. */
export function createAutomationResources(o: AutomationEngineOptions): AutomationResources {
  const hub = createOutputHub();
  const ids = o.ids ?? randomIds;
  return {
    db: o.db,
    clock: o.clock ?? systemClock,
    ids,
    vault: createRunVault(o.secretsKey),
    workerId: ids("worker"),
    onTransition: o.onTransition,
    publish: (taskId, entries) => hub.publish(taskId, entries),
    registry: createCommandRegistry(o.commands),
    hub,
    maxParallel: o.maxParallel ?? 2,
    queueMax: o.queueMax ?? 100,
    leaseMs: o.leaseMs ?? 30_000,
    pollMs: o.pollMs ?? 250,
    killGraceMs: o.killGraceMs ?? 5_000,
    retryBaseMs: o.retryBaseMs ?? 1_000,
    retryMaxMs: o.retryMaxMs ?? 60_000,
    random: o.random ?? Math.random,
    onError: o.onError ?? (() => {}),
  };
}
