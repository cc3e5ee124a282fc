import type { Tx } from "@vetted/store";
import { eq } from "drizzle-orm";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import type { CDPSession } from "playwright-core";
import { BrowserUnavailableError, SessionNotFoundError } from "../kernel/errors.js";
import { browserStates } from "../store/schema.js";
import type { AcquireOptions, BrowserHost, BrowserLease, StorageState } from "./browser/host-api.js";
import type { EvidenceDraft } from "./evidence.js";
import type { RunVault } from "./run-vault.js";
import type { RunRow } from "./views.js";

/** Where a run bound to a session (`session_id`) takes its storage state from; the sessions lane implements it. */
export interface SessionStates {
  /** The session's saved storage state, or undefined when there is no such session (or nothing saved). */
  load(sessionId: string): Promise<StorageState | undefined>;
}

/** What the runtime keeps of one run's page between steps (what leaves it is judged by the lease's guard). */
export interface PageGuard {
  /**
   * The URL to reopen at a gate: the page's after the last step, or the one before a step whose navigation
   * to a protected provider was stopped (the page then shows an error, not a place to come back to).
   */
  resumeUrl: string | undefined;
  /** The "after" screenshot of the last step while the browser takes it (awaited before the next acts). */
  pendingShot?: Promise<void> | undefined;
  /** The last screenshot taken of the page, and where the page was. */
  lastShot?: { path: string; url: string } | undefined;
  /** Whether a step put a secret or a code on the page (screenshots then mask the fields holding them). */
  secretOnPage?: boolean | undefined;
  /** The 3-D Secure challenge the page showed after the last step that acted, if any. */
  challenge?: { signal: string; url: string } | undefined;
}

/** A run's page as this process holds it. */
export interface Held {
  lease: BrowserLease;
  guard: PageGuard;
  /** The page's CDP session, for screenshots (opened with the page; undefined if it could not be). */
  cdp?: Promise<CDPSession> | undefined;
}

/** What {@link BrowserRuntime} works with. */
export interface BrowserRuntimeDeps {
  host: BrowserHost | undefined;
  db: LibSQLDatabase;
  vault: RunVault;
  sessionStates: SessionStates | undefined;
  /** Called when a run starts waiting for a context (its worker slot is free for other work meanwhile). */
  onPark?: (() => void) | undefined;
}

const STATE_SLOT = "browser_state";

/**
 * The pages of the runs this process executes: one browser lease per run, opened on its first browser
 * step — from the state its last gate saved (URL and storage state), else from its session's storage
 * state — and released when the run stops executing (paused, ended, taken away). Every request the page
 * makes passes the host's outbound guard (the lease's `outbound`); a request to a protected payment
 * provider is stopped unless the step was approved.
 */
export class BrowserRuntime {
  private readonly held = new Map<string, Held>();
  /** The runs whose page is kept open at a gate (see park). */
  private readonly kept = new Set<string>();
  private readonly evidence = new Map<string, EvidenceDraft[]>();

  /** Keeps a step's evidence until the commit that settles the step stores it. */
  addEvidence(runId: string, draft: EvidenceDraft): void {
    const list = this.evidence.get(runId) ?? [];
    list.push(draft);
    this.evidence.set(runId, list);
  }

  private readonly writes = new Map<string, Set<Promise<void>>>();

  /** Keeps track of a screenshot being written for the run (awaited before its page closes). */
  track(runId: string, written: Promise<void>): void {
    const set = this.writes.get(runId) ?? new Set();
    this.writes.set(runId, set);
    const settled = written.catch(() => undefined);
    set.add(settled);
    void settled.then(() => set.delete(settled));
  }

  /** Waits for the run's screenshots being written. */
  async flush(runId: string): Promise<void> {
    await Promise.all(this.writes.get(runId) ?? []);
  }

  /** Takes the evidence waiting for the run's next commit. */
  takeEvidence(runId: string): EvidenceDraft[] {
    const list = this.evidence.get(runId) ?? [];
    this.evidence.delete(runId);
    return list;
  }

  constructor(private readonly d: BrowserRuntimeDeps) {}

  /** How many runs of this process are waiting for a browser context (parked: they hold no worker slot). */
  get parked(): number {
    return this.parkedRuns;
  }

  private parkedRuns = 0;

  /** Whether a browser step could get a context now (true without a browser: such a step fails at once). */
  hasFreeContext(): boolean {
    const host = this.d.host;
    return host === undefined || !host.available || host.hasFreeSlot();
  }

  /** Throws BROWSER_UNAVAILABLE unless there is a browser to run steps in. */
  assertAvailable(): BrowserHost {
    const host = this.d.host;
    if (host === undefined) throw new BrowserUnavailableError("the run engine was given no browser host");
    if (!host.available) throw new BrowserUnavailableError(host.status().reason ?? "no Chromium was found");
    return host;
  }

  /** The run's page and guard, opened (and restored) on first use. */
  async open(row: RunRow, signal: AbortSignal): Promise<Held> {
    const current = this.held.get(row.id);
    if (current !== undefined && !current.lease.signal.aborted) {
      // A page kept open at a gate (see park) is the run's again: no longer given up to other acquires.
      current.lease.adopt();
      this.kept.delete(row.id);
      return current;
    }
    const host = this.assertAvailable();
    const saved = await this.loadState(row.id);
    let storageState = saved?.storageState;
    if (storageState === undefined && row.sessionId !== null) {
      storageState = await this.d.sessionStates?.load(row.sessionId);
      if (storageState === undefined)
        throw new SessionNotFoundError(row.sessionId, "with a saved browser state");
    }
    const lease = await this.acquire(host, row.id, { storageState, signal, purpose: "run" });
    const guard: PageGuard = { resumeUrl: saved?.url };
    try {
      if (saved !== undefined && /^https?:/i.test(saved.url)) {
        lease.outbound.approved = true; // reopening where the run paused is not a new step
        await lease.page.goto(saved.url, { waitUntil: "load", timeout: 30_000 });
        lease.outbound.approved = false;
      }
    } catch (err) {
      await lease.release();
      throw err;
    }
    const cdp = lease.context.newCDPSession(lease.page);
    cdp.catch(() => undefined);
    const held = { lease, guard, cdp };
    this.held.set(row.id, held);
    return held;
  }

  /** Acquires a run's context; while it waits for a slot the run is parked (see {@link parked}). */
  private async acquire(host: BrowserHost, runId: string, options: AcquireOptions): Promise<BrowserLease> {
    if (host.hasFreeSlot()) return host.acquire(runId, options);
    this.parkedRuns += 1;
    this.d.onPark?.();
    try {
      return await host.acquire(runId, options);
    } finally {
      this.parkedRuns -= 1;
    }
  }

  /** The page URL and storage state of the run's page, to save at a gate; undefined without a page. */
  async capture(runId: string): Promise<{ url: string; storageState: StorageState } | undefined> {
    const held = this.held.get(runId);
    if (held === undefined || held.lease.signal.aborted) return undefined;
    try {
      const url = held.guard.resumeUrl ?? held.lease.page.url();
      return { url, storageState: await held.lease.context.storageState() };
    } catch {
      return undefined;
    }
  }

  /** Saves a captured state for `runId` (sealed), in the caller's transaction. */
  async saveState(tx: Tx, runId: string, state: { url: string; storageState: StorageState }, at: number) {
    const sealed = this.d.vault.sealText(runId, STATE_SLOT, JSON.stringify(state.storageState));
    await tx
      .insert(browserStates)
      .values({ runId, url: state.url, storageState: sealed, savedAt: at })
      .onConflictDoUpdate({
        target: browserStates.runId,
        set: { url: state.url, storageState: sealed, savedAt: at },
      });
  }

  /** Forgets the saved state of a run that ended. */
  async dropState(tx: Tx, runId: string): Promise<void> {
    await tx.delete(browserStates).where(eq(browserStates.runId, runId));
  }

  private async loadState(runId: string): Promise<{ url: string; storageState: StorageState } | undefined> {
    const [row] = await this.d.db.select().from(browserStates).where(eq(browserStates.runId, runId)).limit(1);
    if (row === undefined) return undefined;
    const text = this.d.vault.openText(runId, STATE_SLOT, row.storageState);
    if (text === undefined) return undefined;
    return { url: row.url, storageState: JSON.parse(text) as StorageState };
  }

  /** Closes the run's page (it paused, ended or was taken away). */
  async release(runId: string): Promise<void> {
    const held = this.held.get(runId);
    this.held.delete(runId);
    this.kept.delete(runId);
    this.evidence.delete(runId);
    await this.flush(runId);
    this.writes.delete(runId);
    await held?.lease.release();
  }

  /**
   * Keeps the page of a run that paused at a gate open (its state is saved as well), so a person can take
   * it over and the resume goes on in the same page. The page is taken back where the run would reopen it
   * (a stopped navigation to a protected provider left it on an error page), and its slot is lent: the
   * next acquire that would wait for a context closes it, and the resume then reopens the saved state.
   */
  async park(runId: string): Promise<void> {
    const held = this.held.get(runId);
    if (held === undefined || held.lease.signal.aborted) return this.release(runId);
    this.evidence.delete(runId);
    await this.flush(runId);
    this.writes.delete(runId);
    const back = held.guard.resumeUrl;
    try {
      if (back !== undefined && held.lease.page.url() !== back) {
        held.lease.outbound.approved = true; // going back where the run paused is not a new step
        await held.lease.page.goto(back, { waitUntil: "load", timeout: 30_000 });
        held.lease.outbound.approved = false;
      }
    } catch {
      return this.release(runId);
    }
    Object.assign(held.lease.outbound, { approved: false, blockedProvider: undefined, denied: undefined });
    held.lease.signal.addEventListener("abort", () => {
      if (this.held.get(runId) !== held) return;
      this.held.delete(runId);
      this.kept.delete(runId);
    });
    held.lease.lend();
    this.kept.add(runId);
  }

  /** The runs whose page is kept open at a gate. */
  keptPages(): string[] {
    return [...this.kept];
  }

  /** The run's page if this process holds it open (a waiting run's, kept by {@link park}). */
  live(runId: string): Held | undefined {
    const held = this.held.get(runId);
    return held === undefined || held.lease.signal.aborted ? undefined : held;
  }

  /**
   * Opens the page a waiting run saved at its gate (after a restart, or once its kept page was closed) and
   * keeps it as {@link park} does; undefined when the run saved none.
   */
  async reopen(row: RunRow, signal: AbortSignal): Promise<Held | undefined> {
    const current = this.live(row.id);
    if (current !== undefined) return current;
    if ((await this.loadState(row.id)) === undefined) return undefined;
    await this.open(row, signal);
    await this.park(row.id);
    return this.live(row.id);
  }

  /** Closes every page of this process. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held.keys()].map((id) => this.release(id)));
  }
}
