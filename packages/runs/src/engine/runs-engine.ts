import { createFlows } from "./flows.js";
import { createGates } from "./gates.js";
import { createResources, LeaseLost, type RunsEngineOptions } from "./resources.js";
import { createRunQueries } from "./run-queries.js";
import { createRunVerbs } from "./run-verbs.js";
import { createTemplates } from "./templates.js";
import { createLeases, execute } from "./worker.js";

/**
 * Creates the run engine: flows, templates and durable runs over one database, composed of one module per
 * concern over one shared resources object. `start()` launches this process's worker (claims queued runs
 * under a lease, executes steps, expires gates); `stop()` ends it. `subscribe()` streams a run's events.
 */
export function createRunsEngine(options: RunsEngineOptions) {
  const r = createResources(options);
  const leases = createLeases(r);
  const gates = createGates(r);
  const executions = new Set<Promise<void>>();
  const tokens = new Map<string, string>();
  let timer: ReturnType<typeof setInterval> | undefined;
  let pumping = false;
  let pumpAgain = false;
  let started = false;

  function launch(row: NonNullable<Awaited<ReturnType<typeof leases.claim>>>): void {
    if (row.leaseOwner !== null) tokens.set(row.id, row.leaseOwner);
    const p: Promise<void> = execute(r, leases, row).finally(() => {
      executions.delete(p);
      if (tokens.get(row.id) === row.leaseOwner) tokens.delete(row.id);
      r.kick();
    });
    executions.add(p);
  }

  /** One round of the worker: expire what is due, then claim and launch runs up to the concurrency. */
  async function pump(): Promise<void> {
    if (!started) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    try {
      do {
        pumpAgain = false;
        await gates.sweep();
        while (started && executions.size < r.concurrency) {
          const row = await leases.claim();
          if (row === undefined) break;
          launch(row);
        }
      } while (pumpAgain && started);
    } catch (err) {
      r.observer.error?.("the run worker failed a round", err);
    } finally {
      pumping = false;
    }
  }

  r.kick = () => {
    if (started) setImmediate(() => void pump());
  };

  /** Starts this process's worker: polls, claims, executes, expires gates. Idempotent. */
  function start(): void {
    if (started) return;
    started = true;
    timer = setInterval(() => void pump(), r.pollMs);
    r.kick();
  }

  /** Stops the worker, aborts running steps and hands their leases back; closes the event hub. */
  async function stop(): Promise<void> {
    r.hub.close();
    if (!started) return;
    started = false;
    if (timer !== undefined) clearInterval(timer);
    const held = [...tokens.values()];
    for (const c of r.controllers.values()) c.abort(new LeaseLost("worker stopping"));
    await Promise.allSettled([...executions]);
    try {
      await leases.handBack(held);
    } catch (err) {
      r.observer.error?.("could not hand the leases back; they expire on their own", err);
    }
  }

  return {
    workerId: r.workerId,
    /** Tells the outbound policy where this server listens, so `http` steps cannot call its own API. */
    setServerAddress: (address: string, port: number) => r.outbound.setServerAddress(address, port),
    ...createFlows(r),
    ...createTemplates(r),
    ...createRunVerbs(r),
    ...createRunQueries(r),
    /**
     * Streams the run's events after `after` (its backlog first, then each commit, from this process at once
     * and from other processes sharing the database within `catchUpMs`). Returns the unsubscribe.
     */
    subscribe: r.hub.subscribe,
    start,
    stop,
  };
}

/** The run engine. */
export type RunsEngine = ReturnType<typeof createRunsEngine>;
export type { EventListener } from "./hub.js";
export type { IdempotencyOptions } from "./idempotency.js";
export type { ListQuery } from "./lists.js";
export type { RunsEngineOptions, RunsObserver } from "./resources.js";
export type { EventListQuery, RunListQuery } from "./run-queries.js";
