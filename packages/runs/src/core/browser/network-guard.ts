import type { Browser, BrowserContext, CDPSession, Page, WebSocketRoute } from "playwright-core";
import type { OutboundDecision } from "../../kernel/outbound.js";
import { pageTurn } from "./page-turn.js";

/** Judges one URL: the outbound policy, with the protected payment providers (see `createOutboundPolicy`). */
export interface OutboundJudge {
  decide(url: string): Promise<OutboundDecision>;
}

/** A request the outbound policy refused in a context. */
export interface DeniedRequest {
  url: string;
  host: string;
  rule: string;
}

/**
 * The outbound state of one browser context, which its owner reads and sets: whether requests to a
 * protected provider are approved now, and what the guard stopped since the owner last cleared it.
 */
export interface OutboundGuard {
  /** Requests to a protected provider may leave (a person approved the step or the action). */
  approved: boolean;
  /** A protected provider a request was stopped for (it did not leave). */
  blockedProvider: string | undefined;
  /** A page load (a frame's document) the outbound policy refused. */
  denied: DeniedRequest | undefined;
  /**
   * Resolves after `graceMs` (for requests a page sends a moment later), on the wall clock and on the
   * page's own (see `pageTurn`), once every request the page started by then has been paused and judged;
   * never later than that + 2 s.
   */
  settled(graceMs?: number): Promise<void>;
}

/** What Chromium tells of a paused request (`Fetch.requestPaused`). */
interface Paused {
  requestId: string;
  /** The request's id in the page's `Network` domain. */
  networkId?: string;
  request: { url: string; method: string };
  frameId?: string;
  resourceType?: string;
}

interface TargetInfo {
  targetId: string;
  type: string;
  browserContextId?: string;
}

/** The state kept for one context. */
class ContextState implements OutboundGuard {
  approved = false;
  blockedProvider: string | undefined;
  denied: DeniedRequest | undefined;
  readonly frames = new Set<string>();
  /** Frames showing a protected provider's page (frame id → provider). */
  readonly providerFrames = new Map<string, string>();
  /** The session of the context's first page, which the wait's page turn is asked on. */
  session: CDPSession | undefined;
  private readonly decisions = new Map<string, Promise<OutboundDecision>>();
  private pending = 0;
  /** Requests a page started (`Network.requestWillBeSent`) that the guard has not paused yet. */
  private readonly started = new Set<string>();
  /** The last requests paused (their `networkId`), for a start told after its pause. */
  private readonly pausedIds = new Set<string>();
  private waiters: Array<() => void> = [];

  /** A page started request `id` (of an http(s) URL): the wait waits until the guard has paused it. */
  start(id: string): void {
    if (!this.pausedIds.has(id)) this.started.add(id);
  }

  /** Request `id` was paused (the guard judges it), or ended without reaching the guard. */
  reached(id: string, paused: boolean): void {
    if (paused) {
      this.pausedIds.add(id);
      if (this.pausedIds.size > 1_000)
        for (const old of [...this.pausedIds].slice(0, 500)) this.pausedIds.delete(old);
    }
    if (this.started.delete(id)) this.wakeIfQuiet();
  }

  decide(judge: OutboundJudge, url: string): Promise<OutboundDecision> {
    const origin = new URL(url).origin;
    let decision = this.decisions.get(origin);
    if (decision === undefined) {
      decision = judge.decide(url);
      this.decisions.set(origin, decision);
    }
    return decision;
  }

  begin(): void {
    this.pending += 1;
  }

  end(): void {
    this.pending = Math.max(0, this.pending - 1);
    this.wakeIfQuiet();
  }

  private wakeIfQuiet(): void {
    if (this.pending === 0 && this.started.size === 0) for (const wake of this.waiters.splice(0)) wake();
  }

  async settled(graceMs = 0): Promise<void> {
    if (graceMs > 0) {
      const turn = this.session === undefined ? undefined : pageTurn(this.session, graceMs);
      await Promise.all([new Promise((resolve) => setTimeout(resolve, graceMs)), turn]);
    }
    if (this.pending === 0 && this.started.size === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2_000);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

const BLOCKED = "BlockedByClient";

/**
 * The outbound guard of a browser: one browser-wide `Fetch` interception (Chromium pauses every request
 * of every context there, each redirect hop included, and frames and workers of any process), judged by
 * the outbound policy and the protected-provider rule before it leaves. Requests are told apart by
 * context through the frames each registered context's pages attach; a request of a frame no context
 * claims is judged as strictly as a top-level one that was not approved. WebSockets, which `Fetch` does
 * not pause, are judged by a `routeWebSocket` of each context.
 */
export class NetworkGuard {
  private readonly targets = new Map<string, TargetInfo>();
  /** Frame id → browser context id, for the subframes of registered pages. */
  private readonly frameContexts = new Map<string, string>();
  private readonly contexts = new Map<string, ContextState>();

  private constructor(
    private readonly session: CDPSession,
    private readonly judge: () => OutboundJudge,
  ) {}

  /** Starts intercepting every request of `browser`; nothing of a context leaves unjudged once this resolves. */
  static async attach(browser: Browser, judge: () => OutboundJudge): Promise<NetworkGuard> {
    const session = await browser.newBrowserCDPSession();
    const guard = new NetworkGuard(session, judge);
    session.on("Target.targetCreated", (e: { targetInfo: TargetInfo }) => guard.noteTarget(e.targetInfo));
    session.on("Target.targetInfoChanged", (e: { targetInfo: TargetInfo }) => guard.noteTarget(e.targetInfo));
    session.on("Target.targetDestroyed", (e: { targetId: string }) => guard.targets.delete(e.targetId));
    session.on("Fetch.requestPaused", (e: Paused) => void guard.onPaused(e));
    await session.send("Target.setDiscoverTargets", { discover: true });
    await session.send("Fetch.enable", { patterns: [{ urlPattern: "*" }] });
    return guard;
  }

  private noteTarget(info: TargetInfo): void {
    this.targets.set(info.targetId, info);
  }

  /** Starts telling the requests of `context` apart (its first page is `page`); answers its guard. */
  async register(context: BrowserContext, page: Page): Promise<OutboundGuard> {
    const cdp = await context.newCDPSession(page);
    const { targetInfo } = (await cdp.send("Target.getTargetInfo")) as { targetInfo: TargetInfo };
    const contextId = targetInfo.browserContextId ?? targetInfo.targetId;
    const state = new ContextState();
    state.session = cdp;
    this.contexts.set(contextId, state);
    await this.watchFrames(cdp, contextId, state);
    context.on("page", (popup) => {
      void context
        .newCDPSession(popup)
        .then((s) => this.watchFrames(s, contextId, state))
        .catch(() => undefined);
    });
    context.on("close", () => {
      this.contexts.delete(contextId);
      for (const frame of state.frames) this.frameContexts.delete(frame);
    });
    await context.routeWebSocket(/.*/, (ws) => void this.judgeSocket(ws, state));
    return state;
  }

  private async watchFrames(cdp: CDPSession, contextId: string, state: ContextState): Promise<void> {
    cdp.on("Page.frameAttached", (e: { frameId: string }) => {
      state.frames.add(e.frameId);
      this.frameContexts.set(e.frameId, contextId);
    });
    cdp.on("Page.frameDetached", (e: { frameId: string }) => {
      state.frames.delete(e.frameId);
      state.providerFrames.delete(e.frameId);
      this.frameContexts.delete(e.frameId);
    });
    // What the page starts is told on this session before anything the page does after it (a page turn's
    // answer included); the browser-wide pause of the same request may reach us a moment later.
    cdp.on("Network.requestWillBeSent", (e: { requestId: string; request: { url: string } }) => {
      if (/^https?:/i.test(e.request.url)) state.start(e.requestId);
    });
    const ended = (e: { requestId: string }) => state.reached(e.requestId, false);
    cdp.on("Network.requestServedFromCache", ended);
    cdp.on("Network.loadingFinished", ended);
    cdp.on("Network.loadingFailed", ended);
    await Promise.all([cdp.send("Page.enable"), cdp.send("Network.enable")]);
  }

  private contextOf(frameId: string | undefined): ContextState | undefined {
    if (frameId === undefined) return undefined;
    const id = this.frameContexts.get(frameId) ?? this.targets.get(frameId)?.browserContextId;
    return id === undefined ? undefined : this.contexts.get(id);
  }

  /** Whether the frame is a child frame (a frame a page attached, or an out-of-process iframe). */
  private isSubframe(frameId: string | undefined): boolean {
    if (frameId === undefined) return false;
    return this.frameContexts.has(frameId) || this.targets.get(frameId)?.type === "iframe";
  }

  private async onPaused(e: Paused): Promise<void> {
    const state = this.contextOf(e.frameId);
    state?.begin();
    if (e.networkId !== undefined) state?.reached(e.networkId, true);
    try {
      const allow = await this.allows(e, state);
      if (allow) await this.session.send("Fetch.continueRequest", { requestId: e.requestId });
      else await this.session.send("Fetch.failRequest", { requestId: e.requestId, errorReason: BLOCKED });
    } catch {
      // The request went away with its page, or the browser closed.
    } finally {
      state?.end();
    }
  }

  /** Judges one paused request (every hop of a redirect is paused on its own). */
  private async allows(e: Paused, state: ContextState | undefined): Promise<boolean> {
    const { url, method } = e.request;
    if (!/^https?:/i.test(url)) return true;
    const judge = this.judge();
    const d = state === undefined ? await judge.decide(url) : await state.decide(judge, url);
    const document = e.resourceType === "Document";
    if (d.kind === "denied" || d.kind === "unresolved") {
      // A page load the policy refuses fails the step; a refused resource of a page is just not fetched.
      if (document && state !== undefined)
        state.denied ??= { url, host: d.host, rule: d.kind === "denied" ? d.rule : d.message };
      return false;
    }
    if (d.kind !== "allowed") return true;
    const frameId = e.frameId;
    if (document && frameId !== undefined) state?.providerFrames.delete(frameId);
    if (d.protectedDomain === undefined) return true;
    if (state?.approved === true) return true;
    const reading = method === "GET" || method === "HEAD";
    // The provider's own page loading inside a frame (an embedded card form, and what that page loads).
    if (reading && frameId !== undefined && document && this.isSubframe(frameId)) {
      state?.providerFrames.set(frameId, d.protectedDomain);
      return true;
    }
    if (reading && !document && frameId !== undefined) {
      if (state?.providerFrames.get(frameId) === d.protectedDomain) return true;
    }
    if (state !== undefined) state.blockedProvider ??= d.protectedDomain;
    return false;
  }

  private async judgeSocket(ws: WebSocketRoute, state: ContextState): Promise<void> {
    const url = ws.url().replace(/^ws(s?):/i, "http$1:");
    state.begin();
    try {
      const d = await state.decide(this.judge(), url);
      if (d.kind === "denied" || d.kind === "unresolved") return await ws.close({ code: 1008 });
      if (d.kind === "allowed" && d.protectedDomain !== undefined && !state.approved) {
        state.blockedProvider ??= d.protectedDomain;
        return await ws.close({ code: 1008 });
      }
      ws.connectToServer();
    } catch {
      // The page went away.
    } finally {
      state.end();
    }
  }

  /** Stops intercepting (the browser is closing). */
  async detach(): Promise<void> {
    await this.session.detach().catch(() => undefined);
  }
}
