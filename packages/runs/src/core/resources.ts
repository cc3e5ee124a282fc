import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Clock,
  type IdGenerator,
  randomIds,
  runTransaction,
  type Tx,
  type WriteOptions,
} from "@vetted/store";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { parseProtectedDomains } from "../domain/providers.js";
import { type ChangeHub, createChangeHub } from "../kernel/change-hub.js";
import { createEventHub, type EventHub, type StoredEvent } from "../kernel/hub.js";
import { createOutboundPolicy, type OutboundPolicy, type OutboundPolicyOptions } from "../kernel/outbound.js";
import { currentOwner, ownerTag } from "../kernel/owner-process.js";
import type { BrowserHost } from "./browser/host-api.js";
import { BrowserRuntime, type SessionStates } from "./browser-runtime.js";
import { createInboundMessagesOtpSource, type OtpSource } from "./otp-source.js";
import { createRunVault, type RunVault } from "./run-vault.js";
import type { RunRow } from "./views.js";

/** Hooks the engine calls as things happen (the server turns them into Prometheus metrics). */
export interface RunsObserver {
  gateResolved?(info: { kind: string; waitedSeconds: number }): void;
  /** Milliseconds from a resume's commit to the next step being claimed. */
  resumeToNextStep?(ms: number): void;
  timedOut?(reason: "wait_timeout" | "run_timeout"): void;
  leaseExpired?(): void;
  /** An unexpected error in background work (logged by the host, never thrown). */
  error?(message: string, err: unknown): void;
  /** Which path answered a similar-failure search: libSQL's vector index, or the brute-force scan. */
  failureSearch?(path: "index" | "scan"): void;
}

/** What the run core is built from (`createRunsEngine` adds the options of the lanes it carries). */
export interface RunsCoreOptions {
  db: LibSQLDatabase;
  /**
   * The per-installation 32-byte key (see `loadSecretsKey`) that encrypts secret params, one-time codes and
   * vars holding them at rest (AES-256-GCM). Every process sharing the database needs the same key.
   */
  secretsKey: Buffer;
  clock?: Clock;
  ids?: IdGenerator;
  /** Protected payment provider domains; default: {@link parseProtectedDomains}(undefined). */
  protectedDomains?: readonly string[];
  /** Where `POST /otp` without a code takes one from; default: the inbound-messages table. */
  otpSource?: OtpSource;
  /** How long a claimed run stays leased without a heartbeat (default 30 000 ms). */
  leaseMs?: number;
  /** How often the worker looks for work and expired gates (default 500 ms). */
  pollMs?: number;
  /** How many runs this process executes at once (default 4). */
  concurrency?: number;
  fetch?: typeof globalThis.fetch;
  observer?: RunsObserver;
  /** Where `http` steps may connect (`VETTED_HTTP_ALLOW`, `VETTED_HTTP_DENY`, the resolver). */
  outbound?: OutboundPolicyOptions;
  /** The largest `http` response body read (default 5 MiB); larger fails the step `RESPONSE_TOO_LARGE`. */
  maxResponseBytes?: number;
  /**
   * How often event subscribers catch up on events committed by other processes sharing the database
   * (default 1 000 ms; one query for all subscribed runs, not one per subscriber).
   */
  catchUpMs?: number;
  /** The browser host browser steps run in; without one (or without a browser) they fail `BROWSER_UNAVAILABLE`. */
  browser?: BrowserHost;
  /** Where evidence (screenshots) is written; default: a `vetted-runs` temp dir. */
  dataDir?: string;
  /**
   * Where a run bound to a session (`session_id` on create) takes its browser storage state from; without
   * it, `session_id` is refused with `SESSION_NOT_FOUND`.
   */
  sessionStates?: SessionStates;
}

/** The run row fields a transition writes that a {@link TransitionHook} reads. */
export type TransitionChange = Pick<
  RunRow,
  "status" | "cursor" | "reason" | "error" | "waitContext" | "waitExpiresAt"
>;

/**
 * Work a lane adds to every run transition, in the transition's own transaction, so that it commits or rolls
 * back with it (the webhooks lane queues its outbox row). The core knows no lane: the lanes hand it these.
 */
export type TransitionHook = (
  tx: Tx,
  before: RunRow,
  after: TransitionChange,
  at: number,
  newId: IdGenerator,
) => Promise<void>;

/** Why a claimed run's execution was stopped (cancel, timeout, lost lease, shutdown). */
export class LeaseLost extends Error {
  override readonly name = "LeaseLost";
}

/**
 * What every concern of the engine works over: the database, the ports, the vault, the outbound policy,
 * the observer, the settings, and the little shared state of this process (its worker id, the abort
 * controllers of the runs it executes, the event hub, and the worker's wake-up call).
 */
export interface RunsResources {
  db: LibSQLDatabase;
  now(): number;
  newId: IdGenerator;
  vault: RunVault;
  outbound: OutboundPolicy;
  observer: RunsObserver;
  otpSource: OtpSource;
  protectedDomains: readonly string[];
  leaseMs: number;
  pollMs: number;
  concurrency: number;
  fetch: typeof globalThis.fetch;
  maxResponseBytes: number | undefined;
  /** The browser host, when the engine was given one. */
  browser: BrowserHost | undefined;
  /** Where evidence files live. */
  dataDir: string;
  /** The pages of the runs this process executes. */
  browserRuntime: BrowserRuntime;
  sessionStates: SessionStates | undefined;
  /**
   * This process's worker (`<id>@<pid:start:boot:host>`, see `ownerTag`); each claim's lease token starts
   * with it.
   */
  workerId: string;
  /** The abort controllers of the runs this process executes, by run id. */
  controllers: Map<string, AbortController>;
  hub: EventHub;
  /** What the lanes do in each run transition's transaction, in order. */
  transitionHooks: readonly TransitionHook[];
  /** The runs list's changes (a run created, a status changed), for the list stream. */
  changes: ChangeHub;
  /** Asks the worker to look for work soon (a no-op until it starts). */
  kick(): void;
  /**
   * Claims the queued run `runId` for this process's worker inside `tx` (the transaction that queued it),
   * when the worker runs and has a free slot: the run's next step then starts without another commit or
   * a poll. Call `launch` once `tx` committed, `cancel` if it did not; undefined when the run stays queued.
   */
  adopt(tx: Tx, runId: string, at: number): Promise<Adoption | undefined>;
  /**
   * One write transaction; the runs given new events in it are announced to the hub once it commits.
   * Background work passes `{ background: true }`: it waits while requests are queued for the writer.
   */
  write<T>(fn: (tx: Tx) => Promise<T>, options?: WriteOptions): Promise<T>;
}

/** A run a transaction claimed for this worker (see {@link RunsResources.adopt}). */
export interface Adoption {
  launch(): void;
  cancel(): void;
}

const touchedRuns = new WeakMap<Tx, Map<string, StoredEvent[]>>();

/** Notes the events `runId` got in `tx`, so the hub is handed them once `tx` commits. */
export function noteEvents(tx: Tx, runId: string, rows: readonly StoredEvent[]): void {
  const touched = touchedRuns.get(tx);
  if (touched === undefined) return;
  const list = touched.get(runId);
  if (list === undefined) touched.set(runId, [...rows]);
  else list.push(...rows);
}

/** Builds the shared resources of one engine from its options. */
export function createResources(
  options: RunsCoreOptions,
  transitionHooks: readonly TransitionHook[] = [],
): RunsResources {
  const { db } = options;
  const clock = options.clock;
  const now = clock === undefined ? () => Date.now() : () => clock.now();
  const newId = options.ids ?? randomIds;
  const observer = options.observer ?? {};
  const hub = createEventHub({
    db,
    catchUpMs: options.catchUpMs ?? 1000,
    onError: (err) => observer.error?.("the event hub could not read new events", err),
  });
  const changes = createChangeHub({
    db,
    catchUpMs: options.catchUpMs ?? 1000,
    onError: (err) => observer.error?.("the run-list hub could not read new changes", err),
  });
  const vault = createRunVault(options.secretsKey);
  const outbound = createOutboundPolicy(options.outbound);
  const protectedDomains = options.protectedDomains ?? parseProtectedDomains(undefined);
  // One outbound policy for every context of the browser host: runs, sessions, computer use, spares.
  options.browser?.setOutbound({ decide: (url) => outbound.decide(url, protectedDomains) });
  const resources: RunsResources = {
    db,
    now,
    newId,
    vault,
    outbound,
    observer,
    otpSource:
      options.otpSource ??
      createInboundMessagesOtpSource({ db, secretsKey: options.secretsKey, ...(clock ? { clock } : {}) }),
    protectedDomains,
    leaseMs: options.leaseMs ?? 30_000,
    pollMs: options.pollMs ?? 500,
    concurrency: options.concurrency ?? 4,
    fetch: options.fetch ?? globalThis.fetch,
    maxResponseBytes: options.maxResponseBytes,
    browser: options.browser,
    dataDir: options.dataDir ?? join(tmpdir(), "vetted-runs"),
    sessionStates: options.sessionStates,
    browserRuntime: new BrowserRuntime({
      host: options.browser,
      db,
      vault,
      sessionStates: options.sessionStates,
      // A run parked waiting for a context frees its worker slot: look for other work at once.
      onPark: () => resources.kick(),
    }),
    // The worker names its process: a restarted server knows its predecessor is gone and takes its runs at once.
    workerId: `${newId("wrk")}@${ownerTag(currentOwner())}`,
    controllers: new Map(),
    hub,
    transitionHooks,
    changes,
    kick: () => undefined,
    adopt: async () => undefined,
    async write(fn, writeOptions) {
      let touched = new Map<string, StoredEvent[]>();
      const result = await runTransaction(
        db,
        (tx) => {
          // Fresh for each attempt: only what the attempt that committed wrote is announced.
          touched = new Map();
          touchedRuns.set(tx, touched);
          return fn(tx);
        },
        writeOptions,
      );
      // The committed events themselves: the hub hands them to subscribers without reading them back.
      for (const [id, rows] of touched) hub.announce(id, rows);
      if (touched.size > 0) changes.announce();
      return result;
    },
  };
  return resources;
}
