import type { Browser, BrowserContext } from "playwright-core";
import { DEFAULT_PROTECTED_PROVIDER_DOMAINS } from "../../domain/providers.js";
import { BrowserBusyError, BrowserCrashedError, BrowserUnavailableError } from "../../kernel/errors.js";
import { createOutboundPolicy } from "../../kernel/outbound.js";
import { DEFAULT_HOLDING, type HoldPolicy, type LeasePurpose, policyOf } from "./holding.js";
import type {
  AcquireOptions,
  BrowserHost,
  BrowserHostOptions,
  BrowserHostStatus,
  BrowserLease,
} from "./host-api.js";
import { createLease, type LeaseHandle } from "./lease.js";
import { NetworkGuard, type OutboundJudge } from "./network-guard.js";

export { DEFAULT_HOLDING, type HoldPolicy, type LeasePurpose };

/** playwright-core, an optional peer: loaded on the first launch, or `BROWSER_UNAVAILABLE` naming it. */
async function loadPlaywright(): Promise<typeof import("playwright-core")> {
  try {
    return await import("playwright-core");
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND")
      throw new BrowserUnavailableError("playwright-core is not installed", "playwright-core");
    throw err;
  }
}

interface Waiter {
  resolve(): void;
  reject(err: unknown): void;
}

class Host implements BrowserHost {
  readonly available: boolean;
  private browser: Browser | undefined;
  private readonly guards = new WeakMap<Browser, NetworkGuard>();
  private judge: OutboundJudge;
  private launching: Promise<Browser> | undefined;
  private readonly leases = new Set<LeaseHandle>();
  private readonly queue: Waiter[] = [];
  private slots = 0;
  private restarts = 0;
  private launchError: string | undefined;
  private closed = false;
  private nextId = 0;
  private readonly sweeper: NodeJS.Timeout;
  private readonly maxContexts: number;
  private readonly policies: Record<LeasePurpose, { idleMs: number; waitMs: number }>;

  constructor(private readonly o: BrowserHostOptions) {
    this.available = o.executablePath !== undefined;
    this.maxContexts = Math.max(1, o.maxContexts ?? 4);
    this.policies = {
      run: policyOf(o.idleMs, o.holding, "run"),
      session: policyOf(o.idleMs, o.holding, "session"),
      "computer-use": policyOf(o.idleMs, o.holding, "computer-use"),
    };
    this.judge = o.outbound ?? defaultJudge();
    const shortest = Math.min(...Object.values(this.policies).map((p) => p.idleMs));
    this.sweeper = setInterval(() => this.closeIdle(), Math.max(50, Math.min(5_000, shortest / 4)));
    this.sweeper.unref();
  }

  hasFreeSlot(): boolean {
    if (this.o.executablePath === undefined || this.closed) return true;
    return this.slots < this.maxContexts || [...this.leases].some((l) => l.isSpare());
  }

  setOutbound(judge: OutboundJudge): void {
    this.judge = judge;
  }

  status(): BrowserHostStatus {
    const reason = this.o.executablePath === undefined ? this.unavailable() : this.launchError;
    return {
      available: this.available && this.launchError === undefined,
      ...(this.o.executablePath === undefined ? {} : { executable_path: this.o.executablePath }),
      running: this.browser?.isConnected() ?? false,
      contexts: this.leases.size,
      queued: this.queue.length,
      restarts: this.restarts,
      ...(reason === undefined ? {} : { reason }),
    };
  }

  private unavailable(): string {
    return this.o.unavailableReason ?? "no Chromium executable was found";
  }

  async acquire(owner: string, options: AcquireOptions = {}): Promise<BrowserLease> {
    if (this.o.executablePath === undefined) throw new BrowserUnavailableError(this.unavailable());
    if (this.closed) throw new BrowserUnavailableError("the browser host is shut down");
    const policy = this.policies[options.purpose ?? "run"];
    await this.takeSlot(options.signal, Math.max(0, options.waitMs ?? policy.waitMs));
    let context: BrowserContext | undefined;
    try {
      const browser = await this.ensureBrowser();
      context = await browser.newContext({
        ...(options.storageState === undefined ? {} : { storageState: options.storageState }),
        ...(options.recordHar === undefined ? {} : { recordHar: options.recordHar }),
        viewport: { width: 1280, height: 800 },
        serviceWorkers: "block",
      });
      const page = await context.newPage();
      const guard = this.guards.get(browser);
      if (guard === undefined) throw new BrowserCrashedError();
      const outbound = await guard.register(context, page);
      options.signal?.throwIfAborted();
      const lease = createLease({
        id: `lease_${++this.nextId}`,
        owner,
        context,
        page,
        outbound,
        idleMs: policy.idleMs,
        spare: options.spare === true,
        onEnd: (handle) => this.endLease(handle),
      });
      this.leases.add(lease);
      page.on("crash", () => lease.crash(new BrowserCrashedError("The page crashed. Retry the operation.")));
      return lease.api;
    } catch (err) {
      await context?.close().catch(() => undefined);
      this.freeSlot();
      if (options.signal?.aborted) throw options.signal.reason;
      if (err instanceof BrowserUnavailableError) throw err;
      if (this.browser === undefined || !this.browser.isConnected()) throw new BrowserCrashedError();
      throw err;
    }
  }

  async warm(): Promise<void> {
    if (this.o.executablePath === undefined || this.closed) return;
    await this.ensureBrowser();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const waiter of this.queue.splice(0)) {
      waiter.reject(new BrowserUnavailableError("the browser host is shut down"));
    }
    await Promise.all([...this.leases].map((l) => l.api.release()));
    const browser = this.browser ?? (await this.launching?.catch(() => undefined));
    this.browser = undefined;
    await browser?.close().catch(() => undefined);
  }

  /**
   * Takes a slot: a free one, else a spare's (closed for it), else waits in line — at most `waitMs`, then
   * `BROWSER_BUSY`, so an interactive request never hangs on contexts other holders keep.
   */
  private takeSlot(signal: AbortSignal | undefined, waitMs: number): Promise<void> {
    signal?.throwIfAborted();
    if (this.slots < this.maxContexts) {
      this.slots += 1;
      return Promise.resolve();
    }
    const busy = () => new BrowserBusyError(this.maxContexts, waitMs, this.queue.length);
    const spare = [...this.leases].find((l) => l.isSpare());
    if (waitMs <= 0 && spare === undefined) return Promise.reject(busy());
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const leave = () => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
      };
      const onAbort = () => {
        clearTimeout(timer);
        leave();
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        resolve: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        reject: (err) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          reject(err);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const startTimer = () => {
        if (!Number.isFinite(waitMs) || !this.queue.includes(waiter)) return;
        timer = setTimeout(() => {
          leave();
          waiter.reject(busy());
        }, waitMs);
      };
      this.queue.push(waiter);
      // A context opened ahead of use gives its slot to work that asks for one now. Closing it is not waiting
      // on another holder (on a loaded machine it can take longer than `waitMs`): the clock starts once it closed.
      if (spare !== undefined) {
        this.o.logger?.info("closing a spare browser context for a waiting acquire", {
          owner: spare.api.owner,
        });
        void spare.api
          .release()
          .catch(() => undefined)
          .then(startTimer);
      } else startTimer();
    });
  }

  /** Frees a slot, handing it straight to the first in line. */
  private freeSlot(): void {
    const next = this.queue.shift();
    if (next !== undefined) next.resolve();
    else this.slots = Math.max(0, this.slots - 1);
  }

  private endLease(handle: LeaseHandle): void {
    if (this.leases.delete(handle)) this.freeSlot();
  }

  private ensureBrowser(): Promise<Browser> {
    const current = this.browser;
    if (current?.isConnected()) return Promise.resolve(current);
    if (this.launching !== undefined) return this.launching;
    const executablePath = this.o.executablePath ?? "";
    // Loaded on first launch: a server that never drives a browser does not pay for the module.
    const launching = loadPlaywright()
      .then(({ chromium }) =>
        chromium.launch({ executablePath, headless: true, timeout: this.o.launchTimeoutMs ?? 30_000 }),
      )
      .then(async (browser) => {
        // Every request of every context is judged from the first one on.
        const guard = await NetworkGuard.attach(browser, () => this.judge).catch(async (err: unknown) => {
          await browser.close().catch(() => undefined);
          throw err;
        });
        this.guards.set(browser, guard);
        this.launchError = undefined;
        if (this.closed) {
          void browser.close();
          throw new BrowserUnavailableError("the browser host is shut down");
        }
        this.browser = browser;
        browser.on("disconnected", () => this.onDisconnected(browser));
        this.o.logger?.info("browser started", {
          executable_path: executablePath,
          version: browser.version(),
        });
        return browser;
      })
      .catch((err: unknown) => {
        if (err instanceof BrowserUnavailableError) throw err;
        const message = err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err);
        this.launchError = `Chromium at ${executablePath} would not start: ${message}`;
        throw new BrowserUnavailableError(this.launchError);
      })
      .finally(() => {
        this.launching = undefined;
      });
    this.launching = launching;
    return launching;
  }

  /** The browser went away: when it was not closed on purpose, its leases crash and it is restarted. */
  private onDisconnected(browser: Browser): void {
    if (this.browser !== browser) return;
    this.browser = undefined;
    if (this.closed) return;
    this.restarts += 1;
    this.o.logger?.warn("the browser crashed; restarting it", { restarts: this.restarts });
    for (const lease of [...this.leases]) lease.crash(new BrowserCrashedError());
    this.ensureBrowser().catch((err: unknown) =>
      this.o.logger?.warn("the browser did not restart", { err: String(err) }),
    );
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const lease of [...this.leases]) {
      if (now - lease.lastUsed() > lease.idleMs) {
        this.o.logger?.info("closing an idle browser context", { owner: lease.api.owner });
        void lease.api.release();
      }
    }
  }
}

/** The default outbound policy with the default protected payment providers. */
function defaultJudge(): OutboundJudge {
  const policy = createOutboundPolicy();
  return { decide: (url) => policy.decide(url, DEFAULT_PROTECTED_PROVIDER_DOMAINS) };
}

/**
 * The browser host: one headless Chromium process (launched on first use through `playwright-core`, which
 * never downloads a browser), one isolated context per lease, at most `maxContexts` at once with a FIFO
 * queue (an interactive holder waits in it at most its purpose's `waitMs`, then `BROWSER_BUSY`), idle
 * contexts closed after their purpose's `idleMs`, and a browser that crashes restarted — its leases end with
 * `BROWSER_CRASHED` rather than hang. Every request of every context (each redirect hop, frames, workers,
 * WebSockets) is judged by one outbound policy before it leaves (see {@link NetworkGuard}).
 */
export function createBrowserHost(options: BrowserHostOptions): BrowserHost {
  return new Host(options);
}
