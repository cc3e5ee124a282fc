import type { BrowserContext, Page } from "playwright-core";
import type { HoldPolicy, LeasePurpose } from "./holding.js";
import type { OutboundGuard, OutboundJudge } from "./network-guard.js";

/** Cookies and localStorage of a browser context, as Playwright saves and restores them. */
export type StorageState = Awaited<ReturnType<BrowserContext["storageState"]>>;

/** Where the host reports what happens to the browser (the server passes its logger). */
export interface BrowserHostLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** What {@link createBrowserHost} is built from. */
export interface BrowserHostOptions {
  /** The Chromium to drive (see `findChromium`); undefined: no browser, every acquire is refused. */
  executablePath: string | undefined;
  /** At most this many contexts live at once; further acquires queue (default 4). */
  maxContexts?: number;
  /** A run's lease unused for this long is closed and its slot freed (default 300 000 ms). */
  idleMs?: number;
  /**
   * The idle timeout and the longest wait for a slot, by purpose (see {@link DEFAULT_HOLDING}): a session
   * idles out after 300 s, a computer-use page after 60 s; both wait at most 5 s for a slot, then
   * `BROWSER_BUSY`. A run waits as long as it takes.
   */
  holding?: { [P in LeasePurpose]?: HoldPolicy };
  /** How long Chromium may take to start (default 30 000 ms). */
  launchTimeoutMs?: number;
  /** Why there is no browser, when `executablePath` is undefined (shown in health and errors). */
  unavailableReason?: string;
  logger?: BrowserHostLogger;
  /**
   * Judges every request of every context (see {@link BrowserHost.setOutbound}); default: the default
   * outbound policy with the default protected providers.
   */
  outbound?: OutboundJudge;
}

/** What `GET /api/health` shows of the browser. */
export interface BrowserHostStatus {
  available: boolean;
  executable_path?: string;
  running: boolean;
  contexts: number;
  queued: number;
  restarts: number;
  reason?: string;
}

/** What an acquire may carry. */
export interface AcquireOptions {
  /** Cookies and localStorage to open the context with (a session's, or a paused run's). */
  storageState?: StorageState | undefined;
  /** Records the context's traffic as a HAR written when the lease is released (sessions use it). */
  recordHar?: { path: string; content?: "omit" | "embed" } | undefined;
  /** Gives up waiting for a slot (or for the context) when aborted. */
  signal?: AbortSignal | undefined;
  /** Who holds the lease (default `run`): sets its idle timeout and its longest wait for a slot. */
  purpose?: LeasePurpose | undefined;
  /** Overrides the purpose's longest wait for a slot (0: only a slot free now; then `BROWSER_BUSY`). */
  waitMs?: number | undefined;
  /**
   * A context opened ahead of use (a session's spare): closed as soon as another acquire would have to
   * wait for its slot, until {@link BrowserLease.adopt} makes it an ordinary lease.
   */
  spare?: boolean | undefined;
}

/**
 * One isolated browser context and its page, held by one owner (a run, a session) until released. Its
 * `signal` aborts when the lease ends: released, closed for idleness, or the browser crashed (then the
 * reason is a {@link BrowserCrashedError} and `crashed` is true).
 */
export interface BrowserLease {
  readonly id: string;
  readonly owner: string;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly signal: AbortSignal;
  readonly crashed: boolean;
  /** The context's outbound guard: set `approved` while a person-approved step acts; read what it stopped. */
  readonly outbound: OutboundGuard;
  /** Marks the lease used now (idle contexts are closed after their purpose's `idleMs`). */
  touch(): void;
  /** Makes a spare lease (see {@link AcquireOptions.spare}) an ordinary one, no longer given up to waiters. */
  adopt(): void;
  /**
   * Makes the lease a spare again (a run's page kept open while the run waits at a gate): its slot goes to
   * the next acquire that would otherwise wait, until {@link adopt} takes it back.
   */
  lend(): void;
  /** Closes the context and frees its slot. Idempotent. */
  release(): Promise<void>;
}

/** One browser process shared by every session and run of the server. */
export interface BrowserHost {
  /** Whether an executable was found (a launch may still fail: see {@link status}). */
  readonly available: boolean;
  status(): BrowserHostStatus;
  /** Whether an acquire now would find a slot without waiting (true without a browser: it fails at once). */
  hasFreeSlot(): boolean;
  /**
   * A fresh context and page for `owner`, waiting in line when `maxContexts` are taken — at most the
   * purpose's `waitMs`.
   * @throws BrowserUnavailableError when there is no browser or it will not start
   * @throws BrowserBusyError when no slot freed within the wait
   */
  acquire(owner: string, options?: AcquireOptions): Promise<BrowserLease>;
  /**
   * Sets the one outbound policy every context of this host is held to (the run engine hands over its
   * own, so runs, sessions, computer use and spare contexts share it). Requests already judged by a
   * context keep their decision.
   */
  setOutbound(judge: OutboundJudge): void;
  /** Starts the browser ahead of the first acquire. */
  warm(): Promise<void>;
  /** Closes every context and the browser; later acquires are refused. */
  close(): Promise<void>;
}
