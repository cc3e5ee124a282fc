import type { Tx } from "@vetted/store";
import { createGates } from "./gates.js";
import { releaseGoneOwners } from "./gone-owners.js";
import { type Adoption, LeaseLost, type RunsResources } from "./resources.js";
import type { RunRow } from "./views.js";
import { execute, Leases } from "./worker.js";

/** How often the worker looks for runs whose lease owner is gone (engine clock, milliseconds). */
const GONE_SCAN_MS = 1000;

/**
 * This process's worker loop: every `pollMs` (and whenever something is kicked) it expires what is due,
 * then claims runs up to `concurrency` and executes each under its lease.
 */
export class Scheduler {
  private readonly leases: Leases;
  private readonly gates: ReturnType<typeof createGates>;
  private readonly executions = new Set<Promise<void>>();
  /** The lease token of each run this process executes, handed back on stop. */
  private readonly tokens = new Map<string, string>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private pumping = false;
  private pumpAgain = false;
  private started = false;
  /** When the leases of gone owners are next looked for (at start, then about once a second). */
  private goneScanAt = Number.NEGATIVE_INFINITY;
  /** Runs freed from gone owners, claimed before the queue: they were in progress. */
  private freed: string[] = [];

  constructor(
    private readonly r: RunsResources,
    /** Background chores run each round after the gates' sweep (inbound SMS matching, failure embeddings). */
    private readonly chores: ReadonlyArray<() => Promise<unknown>> = [],
  ) {
    this.leases = new Leases(r);
    this.gates = createGates(r);
    r.kick = () => {
      if (this.started) setImmediate(() => void this.pump());
    };
    r.adopt = (tx, runId, at) => this.adopt(tx, runId, at);
  }

  /** Slots taken by runs claimed in a transaction that has not committed yet. */
  private reserved = 0;

  /**
   * Claims `runId` in `tx` when a slot is free (held for it until `launch` or `cancel`); a run whose next
   * step needs the browser is left to the poll, which knows whether a context is free.
   */
  private async adopt(tx: Tx, runId: string, at: number): Promise<Adoption | undefined> {
    if (!this.started || this.busySlots() + this.reserved >= this.r.concurrency) return undefined;
    this.reserved += 1;
    let row: RunRow | undefined;
    try {
      row = await this.leases.claimIn(tx, runId, at, true);
    } finally {
      if (row === undefined) this.reserved -= 1;
    }
    if (row === undefined) return undefined;
    const claimed = row;
    let settled = false;
    const settle = () => {
      const first = !settled;
      settled = true;
      if (first) this.reserved -= 1;
      return first;
    };
    return {
      launch: () => {
        if (!settle()) return;
        if (this.started) this.launch(claimed);
        // Stopped meanwhile: hand its lease back so it is claimed at once elsewhere.
        else if (claimed.leaseOwner !== null)
          this.leases.handBack([claimed.leaseOwner]).catch(() => undefined);
      },
      cancel: () => void settle(),
    };
  }

  private launch(row: RunRow): void {
    const token = row.leaseOwner;
    if (token !== null) this.tokens.set(row.id, token);
    const p: Promise<void> = execute(this.r, this.leases, row).finally(() => {
      this.executions.delete(p);
      if (this.tokens.get(row.id) === token) this.tokens.delete(row.id);
      this.r.kick();
    });
    this.executions.add(p);
  }

  /**
   * The worker slots in use: the runs executing, less those parked waiting for a browser context (they
   * hold no slot while they wait, so a run that needs no browser is not stuck behind them). At most
   * `concurrency` parked runs are let off, which bounds the runs one process holds to twice `concurrency`.
   */
  private busySlots(): number {
    const parked = Math.min(this.r.browserRuntime.parked, this.r.concurrency);
    return this.executions.size - parked;
  }

  /**
   * Frees the runs leased to processes that are provably gone (this server's previous process, a dead peer
   * on this host), at start and then about once a second, so they are claimed now rather than when their
   * lease runs out; they are claimed before queued runs. A failure is logged: those runs wait for their
   * lease, as before.
   */
  private async releaseGone(): Promise<void> {
    const at = this.r.now();
    if (at < this.goneScanAt) return;
    this.goneScanAt = at + GONE_SCAN_MS;
    try {
      this.freed.push(...(await releaseGoneOwners(this.r)));
    } catch (err) {
      this.r.observer.error?.("could not free the runs of gone lease owners", err);
    }
  }

  /** One round: expire what is due, then claim and launch runs up to the concurrency. */
  private async pump(): Promise<void> {
    if (!this.started) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        await this.releaseGone();
        await this.gates.sweep();
        for (const chore of this.chores) {
          await chore().catch((err: unknown) => this.r.observer.error?.("a background chore failed", err));
        }
        while (this.started && this.busySlots() + this.reserved < this.r.concurrency) {
          const free = this.r.concurrency - this.busySlots() - this.reserved;
          const rows = await this.leases.claimSome(free, this.freed);
          if (rows.length === 0) break;
          for (const row of rows) this.launch(row);
        }
      } while (this.pumpAgain && this.started);
    } catch (err) {
      this.r.observer.error?.("the run worker failed a round", err);
    } finally {
      this.pumping = false;
    }
  }

  /** Starts polling, claiming, executing and expiring. Idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.timer = setInterval(() => void this.pump(), this.r.pollMs);
    this.r.kick();
  }

  /** Stops the loop, aborts running steps and hands their leases back so another process takes over at once. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    if (this.timer !== undefined) clearInterval(this.timer);
    const held = [...this.tokens.values()];
    for (const c of this.r.controllers.values()) c.abort(new LeaseLost("worker stopping"));
    await Promise.allSettled([...this.executions]);
    try {
      await this.leases.handBack(held);
    } catch (err) {
      this.r.observer.error?.("could not hand the leases back; they expire on their own", err);
    }
  }
}
