import { executeInTx, type Tx } from "@vetted/store";
import { and, eq, inArray } from "drizzle-orm";
import { isTerminal, isWaiting } from "../domain/status.js";
import { recoverInFlight } from "../domain/step-recovery.js";
import type { Step } from "../domain/steps.js";
import { claimRun, type Transition } from "../domain/transitions.js";
import { runs } from "../store/schema.js";
import { needsBrowserNext, usesBrowser } from "./browser-claims.js";
import { findClaimableIds, isClaimable } from "./claim-query.js";
import { insertEvidence } from "./evidence.js";
import { appendEvents, persist, planTransition, type Written, writeTransition } from "./persist.js";
import { LeaseLost, type RunsResources } from "./resources.js";
import { decodeRun, selectRunStatement, updateRunStatement } from "./run-sql.js";
import { redactError, spendCode } from "./run-vault.js";
import { type CrashDeps, failRunOnError, leaseToken, prepareOutbound } from "./step-guard.js";
import { advanceInstant, runStep, type SlowStep, transitionFor } from "./step-runner.js";
import { type RunRow, stateOf } from "./views.js";

/** Whether a step, when executed, must be marked in flight first (it has effects and may not be repeated). */
function inFlightOf(s: SlowStep): boolean {
  return s.type.effect === "external" && !(s.type.idempotent?.(s.resolvedStep) ?? false);
}

/**
 * Whether the start of the step that comes next may be written with the commit before it (the commit that
 * ended the previous step, or the claim): a `timer` step (`wait`: no effect on the outside world; its start
 * only dates the timer), or a browser step that contacts no URL of its own (a click, type, select, wait,
 * read). In both, nothing (the outbound check of a `navigate`, or of an `http` step) is judged between its
 * start and its execution. Its start — and its in-flight mark — is then durable before it acts, as when
 * written on its own. Pure steps and gates have no start of their own: they run inside that commit.
 */
export function startsEarly(s: SlowStep): boolean {
  if (s.type.effect === "timer") return true;
  return s.type.browser === true && (s.type.targets?.(s.resolvedStep) ?? []).length === 0;
}

/** Rows this process committed with the next step's start already written (the step's id). */
const startedEarly = new WeakMap<RunRow, string>();

/**
 * The leases: claiming a run (each claim under its own lease token), the heartbeat, and the worker's
 * writes, which land only while the run's lease token is still the one this claim got.
 */
export class Leases {
  private claims = 0;
  /** What failing a run on an unexpected error needs. */
  readonly crash: CrashDeps;

  constructor(private readonly r: RunsResources) {
    this.crash = {
      write: r.write,
      workerId: r.workerId,
      now: r.now,
      persist: (tx, row, t, at) => persist(r, tx, row, t, at),
    };
  }

  /** Claims `runId` if it is still claimable, and runs its instant steps, in one transaction. */
  claimById(runId: string, at: number): Promise<RunRow | undefined> {
    return this.r.write((tx) => this.claimIn(tx, runId, at));
  }

  /**
   * {@link claimById} in the caller's transaction `tx` (a resume hands its run to this worker in its own
   * commit); `browserless`: only when the run's next step needs no browser.
   */
  async claimIn(tx: Tx, runId: string, at: number, browserless = false): Promise<RunRow | undefined> {
    const r = this.r;
    const read = selectRunStatement(runId);
    const [raw] = (await executeInTx(r.db, tx, read.sql, read.args)).rows;
    const row = raw === undefined ? undefined : decodeRun(raw);
    if (row === undefined || !isClaimable(row, at)) return undefined;
    if (browserless && needsBrowserNext(row.steps, row.cursor)) return undefined;
    const expired = row.status === "running";
    // A step a previous worker left in flight is in doubt: pause rather than send it again.
    const claimed = recoverInFlight(
      claimRun(stateOf(row), expired),
      row.steps,
      row.inFlightStepId,
      row.policies,
      at,
    );
    // Instant steps run inside the claim's transaction: a flow without I/O completes in one commit.
    const ahead = await advanceInstant(r, { ...row, status: "running" }, claimed);
    this.claims += 1;
    const extra = {
      leaseOwner: leaseToken(r.workerId, this.claims),
      leaseExpiresAt: at + r.leaseMs,
      resumedAt: null,
    };
    // A step that may not be repeated is not marked in flight by the claim: its page is not open yet.
    const next = ahead.slow !== undefined && inFlightOf(ahead.slow) ? undefined : ahead.slow;
    const planned = planTransition(r, row, ahead, at, extra);
    // The claim's own new lease is live: the version guard is the start's too.
    const written = this.withStart(planned, { ...row, ...planned.changes }, next, at);
    const updated = await writeTransition(r, tx, row, written.plan, at, { version: row.version });
    if (updated !== undefined && written.started !== undefined) startedEarly.set(updated, written.started);
    if (expired) r.observer.leaseExpired?.();
    if (row.resumedAt !== null) r.observer.resumeToNextStep?.(at - row.resumedAt);
    return updated;
  }

  /** The oldest claimable runs' ids, up to `limit` (see {@link findClaimableIds}). */
  findClaimableIds(at: number, limit: number): Promise<string[]> {
    return findClaimableIds(this.r, at, limit);
  }

  /** The oldest claimable run's id (see {@link findClaimableIds}). */
  async findClaimable(at: number): Promise<string | undefined> {
    return (await this.findClaimableIds(at, 1))[0];
  }

  /** Claims one run; an error is that run's alone (it fails, and undefined is returned). */
  private async claimOne(id: string, at: number): Promise<RunRow | undefined> {
    const r = this.r;
    try {
      return await this.claimById(id, at);
    } catch (err) {
      r.observer.error?.(`run ${id} failed on an unexpected error`, err);
      const failed = await failRunOnError(this.crash, id, err).catch(() => false);
      if (!failed)
        r.observer.error?.(`could not fail run ${id}; it is claimed again when its lease ends`, err);
      r.kick();
      return undefined;
    }
  }

  /**
   * Claims up to `n` runs: first of `first` (ids taken off it as they are tried: the runs of gone owners,
   * which were in progress), then the oldest claimable. The claims are sent together, each its own
   * transaction: group commit commits them as one. Another process may claim a run between the read and
   * the claim: then the next ones are tried (a few times).
   */
  async claimSome(n: number, first: string[] = []): Promise<RunRow[]> {
    const r = this.r;
    for (let attempt = 0; attempt < 3 || first.length > 0; attempt++) {
      const at = r.now();
      const ids = first.splice(0, n);
      if (ids.length < n) {
        const found = await this.findClaimableIds(at, n - ids.length);
        ids.push(...found.filter((id) => !ids.includes(id)));
      }
      if (ids.length === 0) return [];
      const rows = await Promise.all(ids.map((id) => this.claimOne(id, at)));
      const claimed = rows.filter((row): row is RunRow => row !== undefined);
      if (claimed.length > 0) return claimed;
    }
    return [];
  }

  /** The heartbeat: extends this claim's lease while the run is still running and leased to it. */
  async renewLease(runId: string, token: string): Promise<boolean> {
    const r = this.r;
    const at = r.now();
    const updated = await r.write((tx) =>
      tx
        .update(runs)
        .set({ leaseExpiresAt: at + r.leaseMs })
        .where(and(eq(runs.id, runId), eq(runs.leaseOwner, token), eq(runs.status, "running")))
        .returning({ id: runs.id }),
    );
    return updated.length > 0;
  }

  /**
   * Commits a transition of a claimed run, only while the run is still leased to this claim; `also` runs
   * in the same transaction once the write landed. The start of `next` is written in the same UPDATE when
   * it {@link startsEarly} and the lease is live; when it is not, the transition is written alone and the
   * step records its start on its own (and fails as it would).
   */
  async commit(
    row: RunRow,
    t: Transition,
    also?: (tx: Tx, at: number) => Promise<void>,
    next?: SlowStep,
  ): Promise<RunRow | undefined> {
    const r = this.r;
    const token = row.leaseOwner;
    if (token === null) return undefined;
    const at = r.now();
    return r.write(async (tx) => {
      const guard = { leaseOwner: token };
      const planned = planTransition(r, row, t, at);
      const written = this.withStart(planned, { ...row, ...planned.changes }, next, at);
      let updated =
        written.started === undefined
          ? undefined
          : await writeTransition(r, tx, row, written.plan, at, guard, at);
      if (updated !== undefined && written.started !== undefined) startedEarly.set(updated, written.started);
      else updated = await writeTransition(r, tx, row, planned, at, guard);
      if (updated === undefined) return undefined;
      await also?.(tx, at);
      return updated;
    });
  }

  /**
   * `planned` with the start of `next` added (the columns and the `step_started` event), when `next`
   * {@link startsEarly} and the run goes on running; `after` is the row as `planned` leaves it.
   */
  private withStart(
    planned: Written,
    after: RunRow,
    next: SlowStep | undefined,
    at: number,
  ): { plan: Written; started?: string } {
    if (next === undefined || after.status !== "running" || !startsEarly(next)) return { plan: planned };
    const start = this.startOf(after, next.step, inFlightOf(next), at);
    const plan = {
      changes: { ...planned.changes, ...start.changes },
      events: [...planned.events, start.event],
    };
    return { plan, started: next.step.id };
  }

  /** The columns and event that mark `step` of `row` started (and in flight, when it may not be repeated). */
  private startOf(row: RunRow, step: Step, inFlight: boolean, at: number) {
    const firstStart = row.stepStartedAt === null || row.stepStartedCursor !== row.cursor;
    // Starting a step with side effects needs a live lease, and renews it for the step's sake.
    const changes = {
      eventSeq: row.eventSeq + 1,
      updatedAt: at,
      leaseExpiresAt: at + this.r.leaseMs,
      ...(firstStart ? { stepStartedAt: at, stepStartedCursor: row.cursor } : {}),
      // Durable before a non-idempotent request leaves: a re-claim finds it and does not repeat it.
      ...(inFlight ? { inFlightStepId: step.id } : {}),
    } satisfies Partial<RunRow>;
    const event = { type: "step_started" as const, data: { step_id: step.id, type: step.type } };
    return { changes, event };
  }

  /**
   * Marks a step that takes time started (and in flight, when it may not be repeated) in its own
   * transaction: only while `row` is current, leased to this claim, and its lease is live; undefined when
   * it is not.
   */
  async recordStepStart(row: RunRow, step: Step, inFlight: boolean): Promise<RunRow | undefined> {
    const r = this.r;
    const token = row.leaseOwner;
    if (token === null) return undefined;
    const at = r.now();
    const start = this.startOf(row, step, inFlight, at);
    return r.write(async (tx) => {
      const update = updateRunStatement(start.changes, [
        { column: "id", op: "=", value: row.id },
        { column: "version", op: "=", value: row.version },
        { column: "leaseOwner", op: "=", value: token },
        { column: "leaseExpiresAt", op: ">", value: at },
      ]);
      const result = await executeInTx(r.db, tx, update.sql, update.args);
      if (result.rowsAffected === 0) return undefined;
      await appendEvents(r, tx, row.id, row.eventSeq, [start.event], at);
      // The row as written (the version guard held, so the rest is as read): no row read back, no JSON
      // column (the flow's steps among them) parsed again.
      return { ...row, ...start.changes };
    });
  }

  /** Hands this worker's leases back so another process picks the runs up at once. */
  async handBack(tokens: readonly string[]): Promise<void> {
    const r = this.r;
    if (tokens.length === 0) return;
    await r.write((tx) =>
      tx
        .update(runs)
        .set({ leaseExpiresAt: 0 })
        .where(and(inArray(runs.leaseOwner, [...tokens]), eq(runs.status, "running"))),
    );
  }
}

/**
 * Commits a transition, keeping the browser state with it: a run pausing at a gate saves its page URL and
 * storage state in the same transaction (resume reopens them, after a restart too); a run that ends
 * forgets them.
 */
async function commitKeepingPage(
  r: RunsResources,
  leases: Leases,
  row: RunRow,
  t: Transition & { slow?: SlowStep | undefined },
): Promise<RunRow | undefined> {
  const runtime = r.browserRuntime;
  const snapshot = isWaiting(t.state.status) ? await runtime.capture(row.id) : undefined;
  const ends = isTerminal(t.state.status);
  // A run that stops here (paused or ended) has every screenshot its evidence names on disk.
  if (ends || snapshot !== undefined) await runtime.flush(row.id);
  const evidence = runtime.takeEvidence(row.id);
  // Only a run with browser steps ever saved a browser state: the others end without a DELETE.
  const forget = ends && usesBrowser(row.steps);
  if (snapshot === undefined && !forget && evidence.length === 0)
    return leases.commit(row, t, undefined, t.slow);
  const also = async (tx: Tx, at: number) => {
    await insertEvidence(tx, row.id, evidence);
    if (snapshot !== undefined) await runtime.saveState(tx, row.id, snapshot, at);
    if (forget) await runtime.dropState(tx, row.id);
  };
  return leases.commit(row, t, also, t.slow);
}

/**
 * Advances a claimed run by one commit: the instant steps ahead of it, or else one step that takes time
 * (external I/O, timers) — marked started in its own transaction, executed under the run's AbortSignal,
 * and committed together with the instant steps after it. Returns the run as committed, or undefined
 * when the run was taken away (cancelled, timed out, lease lost).
 */
export async function executeStep(
  r: RunsResources,
  leases: Leases,
  row: RunRow,
  signal: AbortSignal,
): Promise<RunRow | undefined> {
  const ahead = await advanceInstant(r, row, { state: stateOf(row), events: [] });
  if (ahead.slow === undefined || ahead.events.length > 0) return commitKeepingPage(r, leases, row, ahead);
  const { step, resolvedStep, type } = ahead.slow;
  const base = { policy: r.outbound, protectedDomains: r.protectedDomains, fetch: r.fetch };
  const target = await prepareOutbound({ ...base, row, step, resolvedStep, type, now: r.now() });
  if (target.kind === "blocked") return commitKeepingPage(r, leases, row, target.transition);
  const inFlight = inFlightOf(ahead.slow);
  let marked: RunRow | undefined;
  let ran: Awaited<ReturnType<typeof runStep>>;
  try {
    // Started with the previous commit, or now.
    marked = startedEarly.get(row) === step.id ? row : await leases.recordStepStart(row, step, inFlight);
    if (marked === undefined) return undefined;
    ran = await runStep(r, type, resolvedStep, marked, signal, target.fetch);
  } finally {
    await target.close();
  }
  if (signal.aborted) return undefined;
  // The step that sent the one-time code has finished: the code (and any copy of it) is spent.
  const done = spendCode(step, transitionFor(r, stateOf(marked), marked, ran.outcome, ran.durationMs));
  return commitKeepingPage(r, leases, marked, await advanceInstant(r, marked, done));
}

/** Drives one claimed run until it pauses, ends or is taken away, renewing its lease meanwhile. */
export async function execute(r: RunsResources, leases: Leases, claimed: RunRow): Promise<void> {
  const controller = new AbortController();
  r.controllers.set(claimed.id, controller);
  const token = claimed.leaseOwner ?? "";
  const beat = () => {
    leases
      .renewLease(claimed.id, token)
      .then((ok) => {
        if (!ok) controller.abort(new LeaseLost("lease lost"));
      })
      .catch((err: unknown) => r.observer.error?.("lease renewal failed", err));
  };
  const heartbeat = setInterval(beat, Math.max(10, Math.floor(r.leaseMs / 3)));
  let row: RunRow | undefined = claimed;
  try {
    while (row !== undefined && row.status === "running" && !controller.signal.aborted) {
      row = await executeStep(r, leases, row, controller.signal);
    }
  } catch (err) {
    if (!controller.signal.aborted) {
      r.observer.error?.(
        `run ${claimed.id} stopped on an unexpected error`,
        redactError(r.vault, claimed, err),
      );
      await failRunOnError(leases.crash, claimed.id, err).catch((e: unknown) =>
        r.observer.error?.(`could not fail run ${claimed.id}`, redactError(r.vault, claimed, e)),
      );
    }
  } finally {
    clearInterval(heartbeat);
    // Ended or taken away: its page (if it had one) is closed. Paused at a gate: the gate saved what resume
    // needs, and the page is kept open (lent to other acquires) for a person to take over and the resume to
    // go on in. Settled before the run may be claimed again here.
    const waits = row !== undefined && isWaiting(row.status) && !controller.signal.aborted;
    const runtime = r.browserRuntime;
    await (waits ? runtime.park(claimed.id) : runtime.release(claimed.id)).catch(() => undefined);
    if (r.controllers.get(claimed.id) === controller) r.controllers.delete(claimed.id);
  }
}
