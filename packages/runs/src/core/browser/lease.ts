import type { BrowserContext, Page } from "playwright-core";
import type { BrowserLease } from "./host-api.js";
import type { OutboundGuard } from "./network-guard.js";

/** The host's side of a lease: its public face, when it was last used, and how it crashes. */
export interface LeaseHandle {
  readonly api: BrowserLease;
  lastUsed(): number;
  /** Closed after this long unused. */
  readonly idleMs: number;
  /** Whether it is still a spare, given up when another acquire would wait for its slot. */
  isSpare(): boolean;
  /** Ends the lease because the browser (or its page) died; the context is gone with it. */
  crash(reason: Error): void;
}

/** What {@link createLease} needs. */
export interface LeaseParts {
  id: string;
  owner: string;
  context: BrowserContext;
  page: Page;
  outbound: OutboundGuard;
  idleMs: number;
  spare: boolean;
  /** Called once when the lease ends, however it ends. */
  onEnd(handle: LeaseHandle): void;
}

/** A lease over one context; ending it (release, idleness, crash) aborts its signal exactly once. */
export function createLease(parts: LeaseParts): LeaseHandle {
  const controller = new AbortController();
  let lastUsed = Date.now();
  let crashed = false;
  let spare = parts.spare;
  let ended = false;
  const end = (reason: Error): boolean => {
    if (ended) return false;
    ended = true;
    controller.abort(reason);
    parts.onEnd(handle);
    return true;
  };
  const api: BrowserLease = {
    id: parts.id,
    owner: parts.owner,
    context: parts.context,
    page: parts.page,
    outbound: parts.outbound,
    signal: controller.signal,
    get crashed() {
      return crashed;
    },
    touch() {
      lastUsed = Date.now();
    },
    adopt() {
      spare = false;
      lastUsed = Date.now();
    },
    lend() {
      spare = true;
      lastUsed = Date.now();
    },
    async release() {
      if (ended) return;
      // The slot is freed once the context is closed, so `maxContexts` bounds live contexts.
      ended = true;
      controller.abort(new Error("the browser lease was released"));
      await parts.context.close().catch(() => undefined);
      parts.onEnd(handle);
    },
  };
  const handle: LeaseHandle = {
    api,
    lastUsed: () => lastUsed,
    idleMs: parts.idleMs,
    isSpare: () => spare && !ended,
    crash(reason) {
      crashed = true;
      if (end(reason)) void parts.context.close().catch(() => undefined);
    },
  };
  return handle;
}
