import type { Page } from "playwright-core";
import type { BrowserLease } from "../../core/browser/host-api.js";
import type { OutboundGuard } from "../../core/browser/network-guard.js";
import { type AriaNode, parseAriaSnapshot } from "../../domain/aria-snapshot.js";
import type { ComputerUseResources } from "./resources.js";

/** The page a computer-use session acts in: its recording session's live page, or its own. */
export async function pageOf(
  r: ComputerUseResources,
  cusId: string,
  sessionId: string | null,
): Promise<Page> {
  return (await pageAccess(r, cusId, sessionId)).page;
}

/** The page a computer-use session acts in, with the outbound guard of its context. */
export async function pageAccess(
  r: ComputerUseResources,
  cusId: string,
  sessionId: string | null,
): Promise<{ page: Page; outbound: OutboundGuard }> {
  if (sessionId !== null) return r.sessions.livePage(sessionId);
  let pending = r.ownPages.get(cusId);
  if (pending !== undefined) {
    const lease = await pending.catch(() => undefined);
    if (lease !== undefined && !lease.signal.aborted) {
      lease.touch();
      return lease;
    }
  }
  // A page of its own is held only while used: the host closes it after the computer-use idle timeout,
  // and asking for one while every context is taken fails BROWSER_BUSY after a short wait.
  pending = r.browser.acquire(cusId, { purpose: "computer-use" });
  r.ownPages.set(cusId, pending);
  pending.catch(() => r.ownPages.delete(cusId));
  return pending;
}

/** Releases the pages computer-use sessions opened for themselves. */
export async function releaseOwnPages(r: ComputerUseResources): Promise<void> {
  const leases = await Promise.all([...r.ownPages.values()].map((p) => p.catch(() => undefined)));
  r.ownPages.clear();
  await Promise.all(leases.map((l: BrowserLease | undefined) => l?.release()));
}

/** The accessibility tree of every frame of the page, as nodes tagged with their frame. */
export async function accessibilityNodes(page: Page): Promise<AriaNode[]> {
  const frames = page.frames();
  const all = await Promise.all(
    frames.map(async (frame, index) => {
      try {
        const snapshot = await frame.locator("body").ariaSnapshot({ timeout: 5_000 });
        return parseAriaSnapshot(snapshot, frame.url(), index);
      } catch {
        return [];
      }
    }),
  );
  return all.flat();
}
